// A structural check of shared-object bytes before dlopen sees them.
#ifndef HALO_CPU_ELF_IMAGE_HPP_
#define HALO_CPU_ELF_IMAGE_HPP_

#include <cstddef>

#include "halo/sdk/host.hpp"

namespace halo::cpu {

// Returns INVALID_ARGUMENT, with the reason, unless |size| bytes at |data|
// (borrowed) are an ELF shared object of this host's class and byte order
// whose header tables, segments and sections all lie inside the bytes,
// whose loadable segments are ordered and whose other mapped segments lie
// inside them, and whose dynamic segment is sound: terminated by DT_NULL,
// with every table and address it names inside the loaded image
// (elf_dynamic.hpp lists the rules).
//
// Why: dlopen maps segments straight from the file and trusts what they
// say. A segment that extends past the end of a (truncated) file faults
// with SIGBUS, and a dynamic entry naming an address past the image
// faults or trips an assertion inside the dynamic linker; either kills the
// caller's process instead of failing. Everything dlopen itself checks and
// explains well (the machine, the ELF version, missing libraries and
// symbols, unknown relocation types) is left to it. The check cannot make
// the library's code sound: its initialisers and kernels still run.
halo_status_t check_elf_image(sdk::Host host, const void* data,
                              size_t size) noexcept;

}  // namespace halo::cpu

#endif  // HALO_CPU_ELF_IMAGE_HPP_
