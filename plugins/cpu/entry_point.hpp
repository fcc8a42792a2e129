// One entry point of a cpu kernel: its validated description from the
// kernel table and the libffi call interface prepared for it at load time
// (the calling convention is in halo/cpu_kernel.h).
#ifndef HALO_CPU_ENTRY_POINT_HPP_
#define HALO_CPU_ENTRY_POINT_HPP_

#include <ffi.h>

#include <cstdint>

#include "halo/cpu_kernel.h"
#include "halo/executable.h"
#include "halo/sdk/host.hpp"

namespace halo::cpu {

// Argument values of one call: the workgroup pointer, then one per
// parameter.
inline constexpr uint32_t kMaxCallArguments = HALO_CPU_MAX_PARAMETERS + 1;

// A prepared entry point. Not copyable or movable once prepared: the call
// interface points at types_.
class EntryPoint {
 public:
  EntryPoint() noexcept = default;
  EntryPoint(const EntryPoint&) = delete;
  EntryPoint& operator=(const EntryPoint&) = delete;

  // Validates table entry |ordinal| (|entry|, borrowed from the loaded
  // kernel, which must outlive this object) as cpu_kernel.h says and
  // prepares its call interface. Returns INVALID_ARGUMENT naming the entry
  // and the fault: a NULL, empty or over-long name, a NULL function, too
  // many parameters, a NULL parameter list, an unknown kind, or a buffer
  // after a scalar. Returns INTERNAL when libffi refuses the signature.
  halo_status_t prepare(sdk::Host host, uint32_t ordinal,
                        const halo_cpu_entry_point_t& entry) noexcept;

  const char* name() const noexcept { return name_; }
  halo_cpu_kernel_function_t function() const noexcept { return function_; }
  uint32_t binding_count() const noexcept { return binding_count_; }
  uint32_t constant_size() const noexcept { return constant_size_; }
  // Returns the entry point's public description (full struct_size).
  halo_entry_point_info_t describe() const noexcept;

  // Fills |values| (kMaxCallArguments entries) with the argument value
  // pointers of a call: |workgroup| (the address of the pointer the kernel
  // receives first), each of the binding_count() addresses in |bindings|,
  // and each constant inside |constants| (constant_size() bytes, 8-byte
  // aligned). Every pointer must stay valid while the values are used.
  void bind(void** values, const halo_cpu_workgroup_t* const* workgroup,
            void* const* bindings, const uint8_t* constants) const noexcept;

  // Calls the entry point with |values| from bind. Thread-safe.
  void invoke(void** values) const noexcept {
    ffi_call(&cif_, function_, nullptr, values);
  }

 private:
  halo_status_t fail(sdk::Host host, uint32_t ordinal, const char* format,
                     ...) const noexcept HALO_SDK_PRINTF(4, 5);
  halo_status_t read_parameters(sdk::Host host, uint32_t ordinal,
                                const halo_cpu_entry_point_t& entry) noexcept;

  char name_[128] = {};
  halo_cpu_kernel_function_t function_ = nullptr;
  uint32_t binding_count_ = 0;
  uint32_t constant_count_ = 0;
  uint32_t constant_size_ = 0;
  // Byte offset of each constant within the dispatch's constants.
  uint32_t constant_offsets_[HALO_CPU_MAX_PARAMETERS] = {};
  ffi_type* types_[kMaxCallArguments] = {};
  // ffi_call takes a non-const interface but only reads it.
  mutable ffi_cif cif_ = {};
};

}  // namespace halo::cpu

#endif  // HALO_CPU_ENTRY_POINT_HPP_
