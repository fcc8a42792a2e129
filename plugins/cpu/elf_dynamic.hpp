// The dynamic segment check: every table and address that the dynamic
// linker follows from the dynamic entries lies inside the loaded image.
//
// Why: glibc's dlopen trusts the dynamic segment. An entry naming an
// address past the image, a relocation writing outside it, a symbol or
// string offset past its table, or a missing companion entry makes it
// fault or fail an assertion, which kills the process that called
// halo_executable_create. The rules:
// - PT_DYNAMIC lies in the file part of one PT_LOAD segment and ends with
//   DT_NULL inside it.
// - DT_STRTAB, DT_SYMTAB and DT_HASH or DT_GNU_HASH are present (a cpu-so
//   exports its kernel table), each entry with the companions glibc reads
//   with it (DT_RELA with DT_RELASZ and DT_RELAENT, DT_JMPREL with
//   DT_PLTREL and DT_PLTRELSZ, DT_INIT_ARRAY with DT_INIT_ARRAYSZ,
//   DT_VERNEED and DT_VERDEF with DT_VERSYM, …), and
//   entry sizes and DT_PLTREL are this machine's.
// - The string table ends with NUL, and every name (DT_NEEDED, DT_SONAME,
//   DT_RPATH, …, symbol and version names) is an offset inside it.
// - Every table the checks walk (hash tables, symbols, DT_VERSYM, version
//   records, DT_RELA, DT_REL, DT_JMPREL, DT_RELR) lies with its extent in
//   the file part of one PT_LOAD segment, so no walk outruns the file.
// - Hash buckets and chains name symbols that exist; a relocation names a
//   symbol that exists, writes inside a writable loaded segment (or the
//   object has DT_TEXTREL), and is relative where DT_RELACOUNT says so.
// - What the dynamic linker calls is code, in the file part of an
//   executable segment: DT_INIT, DT_FINI, each entry of DT_PREINIT_ARRAY,
//   DT_INIT_ARRAY and DT_FINI_ARRAY (which a relocation must set), IRELATIVE
//   and STT_GNU_IFUNC resolvers. The arrays and DT_PLTGOT with their
//   extents, and each defined symbol's bytes, lie inside loaded segments.
// The dynamic linker's own refusals (a missing library, an unknown
// relocation type, a foreign machine, an unsupported version record) are
// left to it.
#ifndef HALO_CPU_ELF_DYNAMIC_HPP_
#define HALO_CPU_ELF_DYNAMIC_HPP_

#include <cstdint>

#include "elf_view.hpp"

namespace halo::cpu {

// This machine's relocation conventions. The relocation format of its
// dynamic linker, which glibc asserts DT_PLTREL names:
#if defined(__i386__) || defined(__arm__)
inline constexpr uint64_t kHostPltRelocation = DT_REL;
#else
inline constexpr uint64_t kHostPltRelocation = DT_RELA;
#endif
// The relative relocation (the load base plus an addend), which
// DT_RELACOUNT and DT_RELCOUNT count and glibc asserts on x86-64, and the
// IRELATIVE one (a call of the resolver at the load base plus an addend);
// 0 where this file does not know them, which skips their checks.
#if defined(__x86_64__)
inline constexpr uint32_t kRelativeType = R_X86_64_RELATIVE;
inline constexpr uint32_t kIrelativeType = R_X86_64_IRELATIVE;
#elif defined(__aarch64__)
inline constexpr uint32_t kRelativeType = R_AARCH64_RELATIVE;
inline constexpr uint32_t kIrelativeType = R_AARCH64_IRELATIVE;
#elif defined(__i386__)
inline constexpr uint32_t kRelativeType = R_386_RELATIVE;
inline constexpr uint32_t kIrelativeType = R_386_IRELATIVE;
#elif defined(__arm__)
inline constexpr uint32_t kRelativeType = R_ARM_RELATIVE;
inline constexpr uint32_t kIrelativeType = R_ARM_IRELATIVE;
#else
inline constexpr uint32_t kRelativeType = 0;
inline constexpr uint32_t kIrelativeType = 0;
#endif

// Returns INVALID_ARGUMENT, naming the entry and the fault, unless every
// PT_DYNAMIC segment of |view| (whose segments are checked) is sound.
halo_status_t check_dynamic(const ElfView& view) noexcept;

// The dynamic entries the checks read. As in the dynamic linker, the last
// entry of a tag wins.
#define HALO_CPU_DYNAMIC_TAGS(X)                                            \
  X(STRTAB) X(STRSZ) X(SYMTAB) X(SYMENT) X(HASH) X(GNU_HASH) X(RELA)        \
  X(RELASZ) X(RELAENT) X(RELACOUNT) X(REL) X(RELSZ) X(RELENT) X(RELCOUNT)   \
  X(RELR) X(RELRSZ) X(RELRENT) X(JMPREL) X(PLTRELSZ) X(PLTREL) X(PLTGOT)    \
  X(INIT) X(FINI) X(INIT_ARRAY) X(INIT_ARRAYSZ) X(FINI_ARRAY)               \
  X(FINI_ARRAYSZ) X(PREINIT_ARRAY) X(PREINIT_ARRAYSZ) X(VERSYM) X(VERDEF)   \
  X(VERNEED) X(TEXTREL) X(FLAGS)

enum class DynamicTag : unsigned {
#define HALO_CPU_DYNAMIC_TAG_ENUM(name) k##name,
  HALO_CPU_DYNAMIC_TAGS(HALO_CPU_DYNAMIC_TAG_ENUM)
#undef HALO_CPU_DYNAMIC_TAG_ENUM
  kCount
};

// "DT_STRTAB" for DynamicTag::kSTRTAB.
const char* dynamic_tag_name(DynamicTag tag) noexcept;

struct DynamicEntries {
  // The entries before DT_NULL, in the file.
  ElfRegion table;
  uint64_t count = 0;
  bool present[static_cast<unsigned>(DynamicTag::kCount)] = {};
  uint64_t value[static_cast<unsigned>(DynamicTag::kCount)] = {};
  // DT_STRTAB in the file, DT_STRSZ bytes ending with NUL (checked before
  // the symbol and version checks run).
  ElfRegion strings;
  // The highest version index DT_VERNEED and DT_VERDEF define
  // (check_version_tables).
  uint64_t highest_version = 0;

  bool has(DynamicTag tag) const noexcept {
    return present[static_cast<unsigned>(tag)];
  }
  uint64_t operator[](DynamicTag tag) const noexcept {
    return value[static_cast<unsigned>(tag)];
  }
  // The string at |offset| of the string table; the caller checked that
  // |offset| < strings.length().
  const char* string(uint64_t offset) const noexcept {
    return reinterpret_cast<const char*>(strings.file() + offset);
  }
};

// The symbol and version checks (elf_symbols.cpp). Each returns
// INVALID_ARGUMENT naming the fault.
//
// Walks the version records (DT_VERNEED, DT_VERDEF): each inside the
// image, its names inside the string table, each needed file one of the
// DT_NEEDED names (glibc asserts it). Sets |entries|->highest_version.
halo_status_t check_version_tables(const ElfView& view,
                                   DynamicEntries* entries) noexcept;
// Checks dynamic symbol |index|: its entry inside the image, its name inside
// the string table, a defined symbol's bytes inside a loaded segment (and
// an STT_GNU_IFUNC resolver code, ElfView::is_code: dlsym calls it), and
// its DT_VERSYM index one the version records define (glibc indexes its
// version array with it unchecked). Needs check_version_tables first.
halo_status_t check_symbol(const ElfView& view, const DynamicEntries& entries,
                           uint64_t index) noexcept;
// Counts the symbols the hash tables reach (DT_HASH, DT_GNU_HASH: every
// bucket and chain inside its table and naming a symbol that exists) and
// checks each with check_symbol.
halo_status_t check_hashed_symbols(const ElfView& view,
                                   const DynamicEntries& entries,
                                   uint64_t* out_count) noexcept;

// The relocation checks (elf_relocations.cpp). Each returns
// INVALID_ARGUMENT naming the fault.
//
// DT_RELA, DT_REL, DT_JMPREL and DT_RELR: each table in the file, whole
// entries, each naming a symbol that exists (those past |hashed_count| are
// checked with check_symbol), writing inside a writable loaded segment
// (or the object has DT_TEXTREL), relative where DT_RELACOUNT or
// DT_RELCOUNT says so, and calling IRELATIVE resolvers that are code
// (ElfView::is_code).
halo_status_t check_relocations(const ElfView& view,
                                const DynamicEntries& entries,
                                uint64_t hashed_count) noexcept;
// DT_PREINIT_ARRAY, DT_INIT_ARRAY, DT_FINI_ARRAY: dlopen and dlclose call
// each entry once it is relocated, so each must be relocated, and a
// relative relocation must make it the address of code (ElfView::is_code).
// Needs check_relocations first.
halo_status_t check_initializer_arrays(const ElfView& view,
                                       const DynamicEntries& entries) noexcept;

}  // namespace halo::cpu

#endif  // HALO_CPU_ELF_DYNAMIC_HPP_
