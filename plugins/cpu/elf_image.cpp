// ELF header, program header and section header range checks. The bytes
// may be unaligned (they are the caller's), so every header is copied out
// before it is read.
#include "elf_image.hpp"

#include <link.h>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "halo/sdk/commands.hpp"

namespace halo::cpu {
namespace {

using Header = ElfW(Ehdr);
using ProgramHeader = ElfW(Phdr);
using SectionHeader = ElfW(Shdr);

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2LSB;
#else
constexpr unsigned char kHostData = ELFDATA2MSB;
#endif
constexpr unsigned char kHostClass =
    sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;

halo_status_t refuse(sdk::Host host, size_t size, const char* format, ...)
    HALO_SDK_PRINTF(3, 4);

halo_status_t refuse(sdk::Host host, size_t size, const char* format, ...) {
  char reason[256];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(reason, sizeof(reason), format, arguments);
  va_end(arguments);
  return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                          "halo_executable_create: params->data (%zu bytes) "
                          "is not a loadable cpu-so shared object for this "
                          "host: %s",
                          size, reason);
}

// True when [offset, offset + length) lies within |size| (overflow-safe).
bool inside(uint64_t offset, uint64_t length, size_t size) {
  return offset <= size && length <= size - offset;
}

// True when a table of |count| entries of |entry_size| bytes at |offset|
// lies within |size|.
bool table_inside(uint64_t offset, uint64_t count, uint64_t entry_size,
                  size_t size) {
  if (count != 0 && entry_size > UINT64_MAX / count) return false;
  return inside(offset, count * entry_size, size);
}

halo_status_t check_segments(sdk::Host host, const uint8_t* bytes,
                             size_t size, const Header& header) {
  if (header.e_phnum == 0) {
    return refuse(host, size, "it has no program headers");
  }
  if (header.e_phentsize != sizeof(ProgramHeader)) {
    return refuse(host, size, "its program header size %u is not %zu",
                  static_cast<unsigned>(header.e_phentsize),
                  sizeof(ProgramHeader));
  }
  if (!table_inside(header.e_phoff, header.e_phnum, sizeof(ProgramHeader),
                    size)) {
    return refuse(host, size, "its program headers run past the end (the "
                              "file is truncated)");
  }
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    ProgramHeader segment;
    std::memcpy(&segment, bytes + header.e_phoff + i * sizeof(segment),
                sizeof(segment));
    if (!inside(segment.p_offset, segment.p_filesz, size)) {
      return refuse(host, size,
                    "program header %u covers bytes [%llu, +%llu), past the "
                    "end (the file is truncated)",
                    i, static_cast<unsigned long long>(segment.p_offset),
                    static_cast<unsigned long long>(segment.p_filesz));
    }
  }
  return HALO_OK;
}

halo_status_t check_sections(sdk::Host host, const uint8_t* bytes,
                             size_t size, const Header& header) {
  if (header.e_shoff == 0) return HALO_OK;  // No section headers at all.
  if (header.e_shentsize != sizeof(SectionHeader)) {
    return refuse(host, size, "its section header size %u is not %zu",
                  static_cast<unsigned>(header.e_shentsize),
                  sizeof(SectionHeader));
  }
  if (!table_inside(header.e_shoff, 1, sizeof(SectionHeader), size)) {
    return refuse(host, size, "its section headers start past the end (the "
                              "file is truncated)");
  }
  SectionHeader first;
  std::memcpy(&first, bytes + header.e_shoff, sizeof(first));
  // Past SHN_LORESERVE sections, the count lives in section 0.
  uint64_t count = header.e_shnum != 0 ? header.e_shnum : first.sh_size;
  if (!table_inside(header.e_shoff, count, sizeof(SectionHeader), size)) {
    return refuse(host, size, "its section headers run past the end (the "
                              "file is truncated)");
  }
  for (uint64_t i = 0; i < count; ++i) {
    SectionHeader section;
    std::memcpy(&section, bytes + header.e_shoff + i * sizeof(section),
                sizeof(section));
    if (section.sh_type == SHT_NOBITS) continue;
    if (!inside(section.sh_offset, section.sh_size, size)) {
      return refuse(host, size,
                    "section %llu covers bytes past the end (the file is "
                    "truncated)",
                    static_cast<unsigned long long>(i));
    }
  }
  return HALO_OK;
}

}  // namespace

halo_status_t check_elf_image(sdk::Host host, const void* data,
                              size_t size) noexcept {
  const auto* bytes = static_cast<const uint8_t*>(data);
  Header header;
  if (size < sizeof(header)) {
    return refuse(host, size, "it is shorter than an ELF header");
  }
  std::memcpy(&header, bytes, sizeof(header));
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return refuse(host, size, "it does not start with the ELF magic bytes");
  }
  if (header.e_ident[EI_CLASS] != kHostClass ||
      header.e_ident[EI_DATA] != kHostData) {
    return refuse(host, size, "its ELF class or byte order is not this "
                              "host's");
  }
  if (header.e_type != ET_DYN) {
    return refuse(host, size, "it is an ELF file of type %u, not a shared "
                              "object (ET_DYN)",
                  static_cast<unsigned>(header.e_type));
  }
  HALO_SDK_RETURN_IF_ERROR(check_segments(host, bytes, size, header));
  return check_sections(host, bytes, size, header);
}

}  // namespace halo::cpu
