// ELF header, program header and section header checks; the dynamic
// segment's are in elf_dynamic.cpp.
#include "elf_image.hpp"

#include "elf_dynamic.hpp"
#include "elf_view.hpp"
#include "halo/sdk/commands.hpp"

namespace halo::cpu {
namespace {

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
constexpr unsigned char kHostData = ELFDATA2LSB;
#else
constexpr unsigned char kHostData = ELFDATA2MSB;
#endif
constexpr unsigned char kHostClass =
    sizeof(void*) == 8 ? ELFCLASS64 : ELFCLASS32;

// Segments the dynamic linker, or code it hands them to (the unwinder,
// dl_iterate_phdr users), reads or changes in memory rather than in the
// file, and how many of their bytes it touches.
struct MappedSegmentKind {
  uint32_t type;
  const char* name;
  bool file_size;  // p_filesz bytes; p_memsz otherwise.
};
constexpr MappedSegmentKind kMappedSegmentKinds[] = {
    {PT_DYNAMIC, "PT_DYNAMIC", true},
    {PT_TLS, "PT_TLS", true},  // Its initial image is copied from memory.
    {PT_PHDR, "PT_PHDR", false},
    {PT_GNU_RELRO, "PT_GNU_RELRO", false},  // mprotect'ed read-only.
    {PT_GNU_EH_FRAME, "PT_GNU_EH_FRAME", false},
    {PT_GNU_PROPERTY, "PT_GNU_PROPERTY", false},
};

// A loadable segment: its file part no larger than its memory, its
// addresses without overflow, and after the loadable segment before it
// (the gABI orders them; the checks that follow look addresses up in them).
halo_status_t check_load(const ElfView& view, unsigned index,
                         const ElfProgramHeader& segment,
                         uint64_t* previous_end) {
  if (segment.p_filesz > segment.p_memsz) {
    return view.refuse("loadable segment %u has more bytes in the file "
                       "(%llu) than in memory (%llu)",
                       index,
                       as_ull(segment.p_filesz),
                       as_ull(segment.p_memsz));
  }
  if (segment.p_memsz > UINT64_MAX - segment.p_vaddr) {
    return view.refuse("loadable segment %u ends past the last address",
                       index);
  }
  if (segment.p_vaddr < *previous_end) {
    return view.refuse("loadable segment %u at 0x%llx overlaps or precedes "
                       "the one before it",
                       index, as_ull(segment.p_vaddr));
  }
  *previous_end = segment.p_vaddr + segment.p_memsz;
  return HALO_OK;
}

halo_status_t check_mapped_segment(const ElfView& view, unsigned index,
                                   const ElfProgramHeader& segment) {
  for (const MappedSegmentKind& kind : kMappedSegmentKinds) {
    if (segment.p_type != kind.type) continue;
    uint64_t length = kind.file_size ? segment.p_filesz : segment.p_memsz;
    if (!view.map(segment.p_vaddr, length, nullptr)) {
      return view.refuse("its %s segment (program header %u) at [0x%llx, "
                         "+%llu) is not inside one loadable segment",
                         kind.name, index,
                         as_ull(segment.p_vaddr),
                         as_ull(length));
    }
  }
  return HALO_OK;
}

halo_status_t check_segments(ElfView& view, const ElfHeader& header) {
  if (header.e_phnum == 0) return view.refuse("it has no program headers");
  if (header.e_phentsize != sizeof(ElfProgramHeader)) {
    return view.refuse("its program header size %u is not %zu",
                       static_cast<unsigned>(header.e_phentsize),
                       sizeof(ElfProgramHeader));
  }
  if (!view.file_holds_table(header.e_phoff, header.e_phnum,
                             sizeof(ElfProgramHeader))) {
    return view.refuse("its program headers run past the end (the file is "
                       "truncated)");
  }
  view.set_program_headers(header.e_phoff, header.e_phnum);
  uint64_t previous_end = 0;
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    ElfProgramHeader segment = view.segment(i);
    if (!view.file_holds(segment.p_offset, segment.p_filesz)) {
      return view.refuse("program header %u covers bytes [%llu, +%llu), past "
                         "the end (the file is truncated)",
                         i, as_ull(segment.p_offset),
                         as_ull(segment.p_filesz));
    }
    if (segment.p_type == PT_LOAD) {
      HALO_SDK_RETURN_IF_ERROR(check_load(view, i, segment, &previous_end));
    }
  }
  // Only now are all loadable segments known to be sound.
  for (unsigned i = 0; i < header.e_phnum; ++i) {
    HALO_SDK_RETURN_IF_ERROR(check_mapped_segment(view, i, view.segment(i)));
  }
  return HALO_OK;
}

halo_status_t check_sections(const ElfView& view, const ElfHeader& header) {
  if (header.e_shoff == 0) return HALO_OK;  // No section headers at all.
  if (header.e_shentsize != sizeof(ElfSectionHeader)) {
    return view.refuse("its section header size %u is not %zu",
                       static_cast<unsigned>(header.e_shentsize),
                       sizeof(ElfSectionHeader));
  }
  if (!view.file_holds_table(header.e_shoff, 1, sizeof(ElfSectionHeader))) {
    return view.refuse("its section headers start past the end (the file "
                       "is truncated)");
  }
  auto first = view.read_file<ElfSectionHeader>(header.e_shoff);
  // Past SHN_LORESERVE sections, the count lives in section 0.
  uint64_t count = header.e_shnum != 0 ? header.e_shnum : first.sh_size;
  if (!view.file_holds_table(header.e_shoff, count,
                             sizeof(ElfSectionHeader))) {
    return view.refuse("its section headers run past the end (the file is "
                       "truncated)");
  }
  for (uint64_t i = 0; i < count; ++i) {
    auto section = view.read_file<ElfSectionHeader>(
        header.e_shoff + i * sizeof(ElfSectionHeader));
    if (section.sh_type == SHT_NOBITS) continue;
    if (!view.file_holds(section.sh_offset, section.sh_size)) {
      return view.refuse("section %llu covers bytes past the end (the file "
                         "is truncated)",
                         as_ull(i));
    }
  }
  return HALO_OK;
}

}  // namespace

halo_status_t check_elf_image(sdk::Host host, const void* data,
                              size_t size) noexcept {
  ElfView view(host, static_cast<const uint8_t*>(data), size);
  if (size < sizeof(ElfHeader)) {
    return view.refuse("it is shorter than an ELF header");
  }
  auto header = view.read_file<ElfHeader>(0);
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) {
    return view.refuse("it does not start with the ELF magic bytes");
  }
  if (header.e_ident[EI_CLASS] != kHostClass ||
      header.e_ident[EI_DATA] != kHostData) {
    return view.refuse("its ELF class or byte order is not this host's");
  }
  if (header.e_type != ET_DYN) {
    return view.refuse("it is an ELF file of type %u, not a shared object "
                       "(ET_DYN)",
                       static_cast<unsigned>(header.e_type));
  }
  HALO_SDK_RETURN_IF_ERROR(check_segments(view, header));
  HALO_SDK_RETURN_IF_ERROR(check_sections(view, header));
  return check_dynamic(view);
}

}  // namespace halo::cpu
