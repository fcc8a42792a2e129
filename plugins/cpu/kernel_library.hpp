// A native shared object loaded from bytes in memory, never from a file in
// a shared folder: the bytes go into an anonymous, sealed memfd that dlopen
// maps through /proc/self/fd.
#ifndef HALO_CPU_KERNEL_LIBRARY_HPP_
#define HALO_CPU_KERNEL_LIBRARY_HPP_

#include <cstddef>

#include "halo/sdk/host.hpp"

namespace halo::cpu {

// A loaded kernel library. Movable by hand only (plain members); unload
// exactly once.
//
// Why the memfd stays open while the library is loaded: glibc's dlopen
// first compares the requested name with the names of objects already
// loaded, and returns a match without opening anything. Our name is
// "/proc/self/fd/N"; if N were closed and reused for another kernel while
// this one is still loaded, dlopen would hand back this kernel instead. So
// the fd is closed only after dlclose really unmapped the library, and kept
// for good when it did not (a library can refuse to unload, e.g. for
// STB_GNU_UNIQUE symbols of C++ code, or when HALO_DISABLE_UNLOAD=1 asks to
// keep it mapped for sanitizer reports).
struct KernelLibrary {
  void* handle = nullptr;
  int fd = -1;
  // HALO_DISABLE_UNLOAD=1 at load time: unload leaves the library mapped.
  // Read when loading, on the creating thread, so that unloading (often on
  // the queue's worker) never reads the environment.
  bool keep_mapped = false;

  // Loads |size| bytes at |data| (borrowed). Returns INVALID_ARGUMENT with
  // the reason (check_elf_image's, else dlopen's) when the bytes are not a
  // loadable shared object,
  // RESOURCE_EXHAUSTED when file descriptors or memory run out, INTERNAL
  // for other system failures.
  static halo_status_t load(sdk::Host host, const void* data, size_t size,
                            KernelLibrary* out) noexcept;

  // Returns the address of |name| in the library, or NULL.
  void* symbol(const char* name) const noexcept;

  // Unloads the library (see above for when the fd closes). Accepts an
  // unloaded library.
  void unload() noexcept;
};

}  // namespace halo::cpu

#endif  // HALO_CPU_KERNEL_LIBRARY_HPP_
