// The cpu executable: a "cpu-so" kernel library loaded from memory and its
// validated, call-ready entry points (format: halo/cpu_kernel.h).
#ifndef HALO_CPU_EXECUTABLE_HPP_
#define HALO_CPU_EXECUTABLE_HPP_

#include <cstdint>

#include "entry_point.hpp"
#include "halo/device.h"
#include "halo/executable.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/object_cast.hpp"
#include "kernel_library.hpp"

namespace halo::cpu {

// The one executable format of the cpu device.
inline constexpr char kExecutableFormat[] = "cpu-so";

// An executable object; the header comes first so handle and object share
// an address.
struct Executable {
  halo_object_t header;
  sdk::Host host;
  // The device, retained so that it outlives its executables.
  halo_device_t* device;
  KernelLibrary library;
  // entry_point_count prepared entry points, from the host allocator.
  EntryPoint* entry_points = nullptr;
  uint32_t entry_point_count = 0;

  // The vtable of every such object (see sdk/object_cast.hpp).
  static const halo_executable_vtable_t kVtable;

  Executable(sdk::Host host, halo_device_t* device) noexcept;
  ~Executable();

  // Creates an executable of |device| (borrowed; retained) from |params|.
  // Returns a new reference in |out_executable|. Returns INVALID_ARGUMENT,
  // with the reason, for a format other than "cpu-so", empty data, bytes
  // that are not a sound shared object for this host (check_elf_image's
  // reason: dlopen would fault on them), bytes dlopen refuses (its message
  // included), a library without the kernel table symbol, or a table
  // cpu_kernel.h does not allow (another abi_version, no entry points,
  // duplicate names or functions, and the faults EntryPoint::prepare
  // reports). RESOURCE_EXHAUSTED when memory or file descriptors run out.
  // Thread-safe.
  static halo_status_t create(sdk::Host host, halo_device_t* device,
                              const halo_executable_params_t& params,
                              halo_executable_t** out_executable) noexcept;

  // Returns the cpu executable behind |executable| in |*out| when it
  // belongs to the cpu plugin and to |device|; else INVALID_ARGUMENT naming
  // |function| and |argument|. Borrows everything.
  static halo_status_t resolve(sdk::Host host, halo_executable_t* executable,
                               halo_device_t* device, const char* function,
                               const char* argument,
                               Executable** out) noexcept;

  // Returns the cpu executable behind |executable|, or NULL for another
  // plugin's.
  static Executable* from(halo_executable_t* executable) noexcept {
    return sdk::object_from<Executable>(executable);
  }
  static Executable* cast(halo_executable_t* executable) noexcept {
    return sdk::object_cast<Executable>(executable);
  }
  halo_executable_t* handle() noexcept {
    return reinterpret_cast<halo_executable_t*>(this);
  }

 private:
  halo_status_t load_table(const halo_executable_params_t& params);
};

}  // namespace halo::cpu

#endif  // HALO_CPU_EXECUTABLE_HPP_
