#include "elf_corruptions.hpp"

#include <cstring>

namespace halo_cpu_test {
namespace {

using Header = ElfW(Ehdr);
using ProgramHeader = ElfW(Phdr);
using Dynamic = ElfW(Dyn);
using Symbol = ElfW(Sym);
// The corruptions edit relocations of 64-bit machines, which use RELA.
using Rela = Elf64_Rela;
static_assert(sizeof(void*) == 8, "the corruptions edit 64-bit objects");

// The relocation that calls a resolver while relocating.
#if defined(__aarch64__)
constexpr uint32_t kIrelativeType = R_AARCH64_IRELATIVE;
#else
constexpr uint32_t kIrelativeType = R_X86_64_IRELATIVE;
#endif

// An address far past any kernel library's image.
constexpr uint64_t kFar = 0x40000000;
// A tag that neither glibc's dlopen nor the plugin reads, to remove an
// entry without moving the others.
constexpr int64_t kUnusedTag = DT_GNU_PRELINKED;

Header header_of(const std::vector<uint8_t>& bytes) {
  Header header;
  std::memcpy(&header, bytes.data(), sizeof(header));
  return header;
}

// Sets the |index|th 32-bit word of the DT_GNU_HASH header.
bool set_gnu_hash_word(ElfEditor& elf, int index, uint32_t value) {
  uint64_t table;
  return elf.value(DT_GNU_HASH, &table) &&
         elf.write(table + index * sizeof(uint32_t), value);
}

// Rewrites relocation |index| of the table at |table_tag| with |edit|.
template <class Edit>
bool edit_relocation(ElfEditor& elf, int64_t table_tag, uint64_t index,
                     Edit edit) {
  uint64_t table;
  Rela relocation;
  if (!elf.value(table_tag, &table) ||
      !elf.read(table + index * sizeof(Rela), &relocation)) {
    return false;
  }
  edit(relocation);
  return elf.write(table + index * sizeof(Rela), relocation);
}

bool edit_symbol_name(ElfEditor& elf, uint64_t index, uint32_t name) {
  uint64_t table;
  Symbol symbol;
  if (!elf.value(DT_SYMTAB, &table) ||
      !elf.read(table + index * sizeof(Symbol), &symbol)) {
    return false;
  }
  symbol.st_name = name;
  return elf.write(table + index * sizeof(Symbol), symbol);
}

bool move_segment(ElfEditor& elf, uint32_t type, uint64_t address) {
  int index = elf.segment_index(type);
  if (index < 0) return false;
  ProgramHeader segment = elf.segment(index);
  segment.p_vaddr = address;
  elf.set_segment(index, segment);
  return true;
}

// glibc asserts that DT_PLTREL names its machine's format, RELA here.
constexpr int64_t kForeignPltRelocation = DT_REL;

const ElfCorruption kCorruptions[] = {
    {"strtab_outside", "string table (DT_STRTAB 0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_STRTAB, kFar); }},
    {"strsz_past_image", "is not inside the file part",
     [](ElfEditor& elf) { return elf.set(DT_STRSZ, 0x10000000); }},
    {"strtab_unterminated", "does not end with a NUL byte",
     [](ElfEditor& elf) {
       uint64_t size;
       return elf.value(DT_STRSZ, &size) && elf.set(DT_STRSZ, size - 1);
     }},
    {"symtab_outside", "dynamic symbol 0 (DT_SYMTAB 0x40000000)",
     [](ElfEditor& elf) { return elf.set(DT_SYMTAB, kFar); }},
    {"rela_outside", "DT_RELA table at [0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_RELA, kFar); }},
    {"relasz_past_image", "DT_RELA table at",
     [](ElfEditor& elf) {
       return elf.set(DT_RELASZ, sizeof(Rela) * 0x100000);
     }},
    {"rela_without_relasz", "has DT_RELA but no DT_RELASZ",
     [](ElfEditor& elf) { return elf.retag(DT_RELASZ, kUnusedTag); }},
    {"relaent_wrong", "DT_RELAENT is 16",
     [](ElfEditor& elf) { return elf.set(DT_RELAENT, 16); }},
    {"relacount_past_relative", "its relative count says it is relative",
     [](ElfEditor& elf) {
       uint64_t count, size;
       return elf.value(DT_RELACOUNT, &count) &&
              elf.value(DT_RELASZ, &size) && count < size / sizeof(Rela) &&
              elf.set(DT_RELACOUNT, count + 1);
     }},
    {"jmprel_outside", "DT_JMPREL table at [0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_JMPREL, kFar); }},
    {"pltrelsz_past_image", "DT_JMPREL table at",
     [](ElfEditor& elf) {
       return elf.set(DT_PLTRELSZ, sizeof(Rela) * 0x100000);
     }},
    {"pltrel_foreign", "DT_PLTREL is",
     [](ElfEditor& elf) { return elf.set(DT_PLTREL, kForeignPltRelocation); }},
    {"jmprel_without_pltrelsz", "has DT_JMPREL but no DT_PLTRELSZ",
     [](ElfEditor& elf) { return elf.retag(DT_PLTRELSZ, kUnusedTag); }},
    {"gnu_hash_outside", "DT_GNU_HASH table at 0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_GNU_HASH, kFar); }},
    {"gnu_hash_no_buckets", "DT_GNU_HASH table has no buckets",
     [](ElfEditor& elf) { return set_gnu_hash_word(elf, 0, 0); }},
    {"gnu_hash_bloom_not_power_of_two", "not a power of two",
     [](ElfEditor& elf) { return set_gnu_hash_word(elf, 2, 3); }},
    {"gnu_hash_bloom_past_image", "runs outside the file part",
     [](ElfEditor& elf) { return set_gnu_hash_word(elf, 2, 1u << 24); }},
    {"hash_outside", "DT_HASH table at 0x40000000",
     [](ElfEditor& elf) {
       return elf.retag(DT_GNU_HASH, DT_HASH) && elf.set(DT_HASH, kFar);
     }},
    {"init_outside", "DT_INIT at [0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_INIT, kFar); }},
    {"init_not_code", "DT_INIT at 0x",
     [](ElfEditor& elf) {
       uint64_t strings;
       return elf.value(DT_STRTAB, &strings) && elf.set(DT_INIT, strings);
     }},
    {"fini_outside", "DT_FINI at [0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_FINI, kFar); }},
    {"init_array_outside", "DT_INIT_ARRAY at [0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_INIT_ARRAY, kFar); }},
    {"init_arraysz_past_image", "DT_INIT_ARRAY at",
     [](ElfEditor& elf) { return elf.set(DT_INIT_ARRAYSZ, 0x10000000); }},
    {"fini_array_outside", "DT_FINI_ARRAY at [0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_FINI_ARRAY, kFar); }},
    {"fini_arraysz_past_image", "DT_FINI_ARRAY at",
     [](ElfEditor& elf) { return elf.set(DT_FINI_ARRAYSZ, 0x10000000); }},
    {"versym_outside", "DT_VERSYM 0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_VERSYM, kFar); }},
    {"versym_undefined_version", "version index 768",
     [](ElfEditor& elf) {
       uint64_t table;
       return elf.value(DT_VERSYM, &table) &&
              elf.write(table + sizeof(ElfW(Half)), ElfW(Half){0x300});
     }},
    {"versym_without_versions", "DT_VERSYM but no version",
     [](ElfEditor& elf) { return elf.retag(DT_VERNEED, kUnusedTag); }},
    {"verneed_outside", "DT_VERNEED record 0 at 0x40000000",
     [](ElfEditor& elf) { return elf.set(DT_VERNEED, kFar); }},
    {"verneed_file_not_needed", "not one of its DT_NEEDED libraries",
     [](ElfEditor& elf) {
       // Names the kernel table's symbol instead of a library.
       uint64_t table, symbol_address;
       Symbol symbol;
       ElfW(Verneed) need;
       if (!elf.find_symbol("halo_cpu_kernel_table", &symbol_address) ||
           !elf.read(symbol_address, &symbol) ||
           !elf.value(DT_VERNEED, &table) || !elf.read(table, &need)) {
         return false;
       }
       need.vn_file = symbol.st_name;
       return elf.write(table, need);
     }},
    {"verneed_without_versym", "has DT_VERNEED but no DT_VERSYM",
     [](ElfEditor& elf) { return elf.retag(DT_VERSYM, kUnusedTag); }},
    {"verdef_outside", "DT_VERDEF record 0 at 0x40000000",
     [](ElfEditor& elf) {
       return elf.retag(DT_VERNEEDNUM, DT_VERDEF) && elf.set(DT_VERDEF, kFar);
     }},
    {"needed_past_strsz", "DT_NEEDED entry names string offset 268435456",
     [](ElfEditor& elf) { return elf.set(DT_NEEDED, 0x10000000); }},
    {"soname_past_strsz", "DT_SONAME entry names string offset 268435456",
     [](ElfEditor& elf) {
       return elf.retag(DT_VERNEEDNUM, DT_SONAME) &&
              elf.set(DT_SONAME, 0x10000000);
     }},
    {"relr_without_size", "has DT_RELR but no DT_RELRSZ",
     [](ElfEditor& elf) { return elf.retag(DT_VERNEEDNUM, DT_RELR); }},
    {"dynamic_unterminated", "has no DT_NULL entry",
     [](ElfEditor& elf) { return elf.unterminate(kUnusedTag); }},
    {"dynamic_outside_loads", "PT_DYNAMIC segment",
     [](ElfEditor& elf) { return move_segment(elf, PT_DYNAMIC, kFar); }},
    {"relro_outside_loads", "PT_GNU_RELRO segment",
     [](ElfEditor& elf) { return move_segment(elf, PT_GNU_RELRO, kFar); }},
    {"loads_overlap", "overlaps or precedes the one before it",
     [](ElfEditor& elf) {
       int second = elf.segment_index(PT_LOAD, 1);
       if (second < 0) return false;
       ProgramHeader segment = elf.segment(second);
       segment.p_vaddr = elf.segment(elf.segment_index(PT_LOAD)).p_vaddr;
       elf.set_segment(second, segment);
       return true;
     }},
    {"load_file_part_larger", "more bytes in the file",
     [](ElfEditor& elf) {
       int index = elf.segment_index(PT_LOAD);
       ProgramHeader segment = elf.segment(index);
       segment.p_memsz = segment.p_filesz - 1;
       elf.set_segment(index, segment);
       return true;
     }},
    {"relocation_outside", "writes at 0x40000000, outside",
     [](ElfEditor& elf) {
       return edit_relocation(elf, DT_RELA, 0,
                              [](Rela& r) { r.r_offset = kFar; });
     }},
    {"relocation_in_code", "in a read-only segment",
     [](ElfEditor& elf) {
       uint64_t code;
       return elf.value(DT_INIT, &code) &&
              edit_relocation(elf, DT_JMPREL, 0,
                              [code](Rela& r) { r.r_offset = code; });
     }},
    {"irelative_resolver_not_code", "calls a resolver at",
     [](ElfEditor& elf) {
       uint64_t size, strings;
       return elf.value(DT_RELASZ, &size) && elf.value(DT_STRTAB, &strings) &&
              edit_relocation(elf, DT_RELA, size / sizeof(Rela) - 1,
                              [strings](Rela& r) {
                                r.r_info = ELF64_R_INFO(0, kIrelativeType);
                                r.r_addend = strings;
                              });
     }},
    {"init_array_entry_not_code", "DT_INIT_ARRAY entry 0 is 0x",
     [](ElfEditor& elf) {
       uint64_t array, strings, size;
       if (!elf.value(DT_INIT_ARRAY, &array) ||
           !elf.value(DT_STRTAB, &strings) || !elf.value(DT_RELASZ, &size)) {
         return false;
       }
       // The relative relocation that sets the entry.
       for (uint64_t i = 0; i < size / sizeof(Rela); ++i) {
         bool sets_entry = false;
         if (!edit_relocation(elf, DT_RELA, i, [&](Rela& r) {
               sets_entry = r.r_offset == array;
               if (sets_entry) r.r_addend = strings;
             })) {
           return false;
         }
         if (sets_entry) return true;
       }
       return false;
     }},
    {"init_array_unrelocated", "DT_INIT_ARRAY entry 0 is never relocated",
     [](ElfEditor& elf) {
       // The dynamic segment is writable, and no relocation writes there.
       int dynamic = elf.segment_index(PT_DYNAMIC);
       return dynamic >= 0 &&
              elf.set(DT_INIT_ARRAY, elf.segment(dynamic).p_vaddr);
     }},
    {"relocation_symbol_outside", "dynamic symbol 1048576",
     [](ElfEditor& elf) {
       return edit_relocation(elf, DT_JMPREL, 0, [](Rela& r) {
         r.r_info = ELF64_R_INFO(0x100000, ELF64_R_TYPE(r.r_info));
       });
     }},
    {"symbol_name_past_strsz", "has name offset 1048576",
     [](ElfEditor& elf) { return edit_symbol_name(elf, 1, 0x100000); }},
    {"symbol_outside", "symbol 'halo_cpu_kernel_table' at [0x40000000",
     [](ElfEditor& elf) {
       uint64_t address;
       Symbol symbol;
       if (!elf.find_symbol("halo_cpu_kernel_table", &address) ||
           !elf.read(address, &symbol)) {
         return false;
       }
       symbol.st_value = kFar;
       return elf.write(address, symbol);
     }},
};

}  // namespace

int ElfEditor::segment_index(uint32_t type, int nth) const {
  Header header = header_of(bytes_);
  for (int i = 0; i < header.e_phnum; ++i) {
    if (segment(i).p_type == type && nth-- == 0) return i;
  }
  return -1;
}

ProgramHeader ElfEditor::segment(int index) const {
  ProgramHeader segment;
  std::memcpy(&segment,
              bytes_.data() + header_of(bytes_).e_phoff +
                  index * sizeof(ProgramHeader),
              sizeof(segment));
  return segment;
}

void ElfEditor::set_segment(int index, const ProgramHeader& segment) {
  std::memcpy(bytes_.data() + header_of(bytes_).e_phoff +
                  index * sizeof(ProgramHeader),
              &segment, sizeof(segment));
}

bool ElfEditor::file_offset(uint64_t address, uint64_t length,
                            uint64_t* out) const {
  for (int i = 0; i < header_of(bytes_).e_phnum; ++i) {
    ProgramHeader load = segment(i);
    if (load.p_type == PT_LOAD && address >= load.p_vaddr &&
        address - load.p_vaddr + length <= load.p_filesz &&
        load.p_offset + load.p_filesz <= bytes_.size()) {
      *out = load.p_offset + (address - load.p_vaddr);
      return true;
    }
  }
  return false;
}

bool ElfEditor::entry_offset(uint64_t index, uint64_t* out) const {
  int dynamic = segment_index(PT_DYNAMIC);
  if (dynamic < 0) return false;
  ProgramHeader segment = this->segment(dynamic);
  if ((index + 1) * sizeof(Dynamic) > segment.p_filesz) return false;
  *out = segment.p_offset + index * sizeof(Dynamic);
  return *out + sizeof(Dynamic) <= bytes_.size();
}

bool ElfEditor::find_entry(int64_t tag, uint64_t* out_offset) const {
  uint64_t offset;
  for (uint64_t i = 0; entry_offset(i, &offset); ++i) {
    Dynamic entry;
    std::memcpy(&entry, bytes_.data() + offset, sizeof(entry));
    if (entry.d_tag == tag) {
      *out_offset = offset;
      return true;
    }
    if (entry.d_tag == DT_NULL) return false;
  }
  return false;
}

bool ElfEditor::value(int64_t tag, uint64_t* out) const {
  uint64_t offset;
  if (!find_entry(tag, &offset)) return false;
  Dynamic entry;
  std::memcpy(&entry, bytes_.data() + offset, sizeof(entry));
  *out = entry.d_un.d_val;
  return true;
}

bool ElfEditor::set(int64_t tag, uint64_t value) {
  uint64_t offset;
  if (!find_entry(tag, &offset)) return false;
  Dynamic entry = {};
  entry.d_tag = tag;
  entry.d_un.d_val = value;
  std::memcpy(bytes_.data() + offset, &entry, sizeof(entry));
  return true;
}

bool ElfEditor::retag(int64_t tag, int64_t new_tag) {
  uint64_t offset;
  if (!find_entry(tag, &offset)) return false;
  ElfW(Sxword) replacement = new_tag;
  std::memcpy(bytes_.data() + offset, &replacement, sizeof(replacement));
  return true;
}

bool ElfEditor::unterminate(int64_t tag) {
  uint64_t offset;
  if (!find_entry(DT_NULL, &offset)) return false;
  for (uint64_t i = 0; entry_offset(i, &offset); ++i) {
    Dynamic entry;
    std::memcpy(&entry, bytes_.data() + offset, sizeof(entry));
    if (entry.d_tag != DT_NULL) continue;
    entry.d_tag = tag;
    std::memcpy(bytes_.data() + offset, &entry, sizeof(entry));
  }
  return true;
}

bool ElfEditor::find_symbol(const char* name, uint64_t* out_address) const {
  uint64_t symbols, strings, string_size;
  if (!value(DT_SYMTAB, &symbols) || !value(DT_STRTAB, &strings) ||
      !value(DT_STRSZ, &string_size)) {
    return false;
  }
  Symbol symbol;
  for (uint64_t i = 0; read(symbols + i * sizeof(Symbol), &symbol); ++i) {
    uint64_t length = std::strlen(name) + 1;
    uint64_t offset;
    if (symbol.st_name + length <= string_size &&
        file_offset(strings + symbol.st_name, length, &offset) &&
        std::memcmp(bytes_.data() + offset, name, length) == 0) {
      if (out_address != nullptr) *out_address = symbols + i * sizeof(Symbol);
      return true;
    }
  }
  return false;
}

std::span<const ElfCorruption> elf_corruptions() { return kCorruptions; }

}  // namespace halo_cpu_test
