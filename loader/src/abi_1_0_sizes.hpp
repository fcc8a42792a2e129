// ABI 1.0's struct sizes: the least struct_size libhalo accepts in what a
// plugin hands over (its descriptor and vtables) and in what an application
// passes in (its argument structs).
//
// A plugin or an application built against 1.0 must keep working in every
// libhalo 1.x (DESIGN.md §2.3), while sizeof of each struct grows with every
// member appended after 1.0. So a minimum is never sizeof: each struct's
// size is measured up to its last ABI 1.0 member, which stays where it is
// for good (members are only appended). tests/abi checks every size below
// against the frozen 1.0 headers in tests/abi_compat/abi_1_0.
//
// The other half of the rule: a member appended after 1.0 may be read only
// when the struct_size at hand covers it (HALO_VTABLE_HAS for vtable
// entries). libhalo reads none yet, since 1.0 is the newest ABI; whoever
// appends the first one checks its offset against struct_size where it is
// read.
#pragma once

#include <cstddef>
#include <cstdint>

#include "halo/halo.h"
#include "halo/plugin.h"

// Every struct with a struct_size that crosses the boundary, beside its last
// ABI 1.0 member. halo_object_vtable_t and halo_allocator_t are embedded in
// larger structs, so they can never grow, but are listed all the same.
#define HALO_ABI_1_0_STRUCTS(X)                           \
  X(halo_allocator_t, free)                               \
  X(halo_buffer_params_t, alignment)                      \
  X(halo_buffer_vtable_t, invalidate_range)               \
  X(halo_command_buffer_vtable_t, dispatch)               \
  X(halo_device_capabilities_t, executable_formats)       \
  X(halo_device_info_t, uuid)                             \
  X(halo_device_params_t, flags)                          \
  X(halo_device_vtable_t, create_executable)              \
  X(halo_dispatch_params_t, bindings)                     \
  X(halo_driver_info_t, description)                      \
  X(halo_driver_vtable_t, create_device)                  \
  X(halo_entry_point_info_t, constant_size)               \
  X(halo_executable_params_t, data_size)                  \
  X(halo_executable_vtable_t, lookup_entry_point)         \
  X(halo_host_interface_t, status_from_code)              \
  X(halo_object_vtable_t, destroy)                        \
  X(halo_plugin_descriptor_t, create_driver)              \
  X(halo_plugin_query_params_t, host)                     \
  X(halo_plugin_record_t, skip_reason)                    \
  X(halo_queue_execute_info_t, command_buffers)           \
  X(halo_registry_options_t, plugin_paths)                \
  X(halo_semaphore_vtable_t, device)                      \
  X(halo_timepoint_t, implementation)

namespace halo::loader {

// Only the structs listed above have an ABI 1.0 size.
template <typename Struct>
struct Abi10Size;

#define HALO_ABI_1_0_SIZE_(type, last_member)                      \
  template <>                                                      \
  struct Abi10Size<type> {                                         \
    static constexpr uint32_t value = static_cast<uint32_t>(       \
        offsetof(type, last_member) + sizeof(type::last_member));  \
  };
HALO_ABI_1_0_STRUCTS(HALO_ABI_1_0_SIZE_)
#undef HALO_ABI_1_0_SIZE_

// The size of |Struct| in ABI 1.0, e.g. abi_1_0_size<halo_device_vtable_t>.
template <typename Struct>
inline constexpr uint32_t abi_1_0_size = Abi10Size<Struct>::value;

}  // namespace halo::loader
