// A structural check of shared-object bytes before dlopen sees them.
#ifndef HALO_CPU_ELF_IMAGE_HPP_
#define HALO_CPU_ELF_IMAGE_HPP_

#include <cstddef>

#include "halo/sdk/host.hpp"

namespace halo::cpu {

// Returns INVALID_ARGUMENT, with the reason, unless |size| bytes at |data|
// (borrowed) are an ELF shared object of this host's class and byte order
// whose header tables, segments and sections all lie inside the bytes.
//
// Why: dlopen maps segments straight from the file and reads them, and a
// segment that extends past the end of a (truncated) file faults with
// SIGBUS instead of failing. Everything dlopen itself checks and explains
// well (the machine, the ELF version, missing symbols) is left to it.
halo_status_t check_elf_image(sdk::Host host, const void* data,
                              size_t size) noexcept;

}  // namespace halo::cpu

#endif  // HALO_CPU_ELF_IMAGE_HPP_
