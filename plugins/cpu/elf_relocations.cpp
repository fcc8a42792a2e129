// The relocations of a shared object (DT_RELA, DT_REL, DT_JMPREL,
// DT_RELR) and the initialiser arrays, whose entries only relocations make
// callable.
#include "elf_dynamic.hpp"

#include <type_traits>

#include "halo/sdk/commands.hpp"

namespace halo::cpu {
namespace {

using Rela = ElfW(Rela);
using Rel = ElfW(Rel);
using Word = ElfW(Addr);
using Tag = DynamicTag;
// The format of DT_JMPREL: DT_PLTREL names this machine's (checked).
using PltRelocation =
    std::conditional_t<kHostPltRelocation == DT_RELA, Rela, Rel>;

#if __ELF_NATIVE_CLASS == 64
uint64_t relocation_symbol(uint64_t info) { return ELF64_R_SYM(info); }
uint32_t relocation_type(uint64_t info) { return ELF64_R_TYPE(info); }
#else
uint64_t relocation_symbol(uint32_t info) { return ELF32_R_SYM(info); }
uint32_t relocation_type(uint32_t info) { return ELF32_R_TYPE(info); }
#endif

// R_*_NONE: the same on every machine; it writes nothing.
constexpr uint32_t kNoneType = 0;

bool has_text_relocations(const DynamicEntries& entries) {
  return entries.has(Tag::kTEXTREL) ||
         (entries.has(Tag::kFLAGS) && (entries[Tag::kFLAGS] & DF_TEXTREL));
}

// A relocation table's entries, in the file (check_relocation_table
// checked that they are).
template <class Entry>
struct Table {
  const char* name;
  ElfRegion region;
  uint64_t count = 0;

  Entry operator[](uint64_t index) const {
    return region.at<Entry>(index * sizeof(Entry));
  }
};

template <class Entry>
bool find_table(const ElfView& view, const DynamicEntries& entries,
                Tag table_tag, Tag size_tag, Table<Entry>* out) {
  out->name = dynamic_tag_name(table_tag);
  if (!entries.has(table_tag)) return true;  // An empty table.
  uint64_t size = entries[size_tag];
  out->count = size / sizeof(Entry);
  return size % sizeof(Entry) == 0 &&
         view.map_file(entries[table_tag], size, &out->region);
}

// Calls |visit|(index, target) for each word the DT_RELR table relocates,
// in order, until it returns false. An even entry is an address to
// relocate; an odd one a bitmap of the words after the last one relocated.
// Returns false when a bitmap comes before any address: glibc would
// relocate words at NULL.
template <class Visit>
bool visit_relr(const Table<Word>& table, Visit visit) {
  constexpr uint64_t kBitmapWords = 8 * sizeof(Word) - 1;
  bool have_address = false;
  uint64_t next = 0;  // The word after the last one relocated.
  for (uint64_t i = 0; i < table.count; ++i) {
    uint64_t entry = table[i];
    if ((entry & 1) == 0) {
      if (!visit(i, entry)) return true;
      have_address = true;
      next = saturating_add(entry, sizeof(Word));
      continue;
    }
    if (!have_address) return false;
    for (uint64_t bit = 1; bit <= kBitmapWords; ++bit) {
      if (((entry >> bit) & 1) == 0) continue;
      if (!visit(i, saturating_add(next, (bit - 1) * sizeof(Word)))) {
        return true;
      }
    }
    next = saturating_add(next, kBitmapWords * sizeof(Word));
  }
  return true;
}

// A relocation writes one word at |address|: inside a loaded segment, and a
// writable one unless the object asks for text relocations.
halo_status_t check_target(const ElfView& view, bool text_relocations,
                           const char* table, uint64_t index,
                           uint64_t address) {
  uint32_t flags = 0;
  if (!view.map(address, sizeof(Word), nullptr, &flags)) {
    return view.refuse("its %s relocation %llu writes at 0x%llx, outside its "
                       "loadable segments",
                       table, as_ull(index), as_ull(address));
  }
  if ((flags & PF_W) == 0 && !text_relocations) {
    return view.refuse("its %s relocation %llu writes at 0x%llx, in a "
                       "read-only segment, without DT_TEXTREL",
                       table, as_ull(index), as_ull(address));
  }
  return HALO_OK;
}

template <class Entry>
halo_status_t check_relocation_table(const ElfView& view,
                                     const DynamicEntries& entries,
                                     Tag table_tag, Tag size_tag,
                                     uint64_t relative_count,
                                     uint64_t hashed_count) {
  Table<Entry> table;
  if (!find_table(view, entries, table_tag, size_tag, &table)) {
    return view.refuse("its %s table at [0x%llx, +%llu) is not whole "
                       "relocations inside the file part of one loadable "
                       "segment",
                       table.name, as_ull(entries[table_tag]),
                       as_ull(entries[size_tag]));
  }
  bool text_relocations = has_text_relocations(entries);
  for (uint64_t i = 0; i < table.count; ++i) {
    Entry entry = table[i];
    uint64_t symbol = relocation_symbol(entry.r_info);
    uint32_t type = relocation_type(entry.r_info);
    // Undefined symbols need not be hashed: those past the hashed ones
    // are checked one by one.
    if (symbol >= hashed_count) {
      HALO_SDK_RETURN_IF_ERROR(check_symbol(view, entries, symbol));
    }
    if (i < relative_count && kRelativeType != 0 && type != kRelativeType) {
      return view.refuse("its %s relocation %llu has type %u, yet its "
                         "relative count says it is relative",
                         table.name, as_ull(i), type);
    }
    if (type == kNoneType) continue;
    HALO_SDK_RETURN_IF_ERROR(check_target(view, text_relocations, table.name,
                                          i, entry.r_offset));
    if constexpr (std::is_same_v<Entry, Rela>) {
      // glibc calls the resolver at the addend while relocating.
      if (kIrelativeType != 0 && type == kIrelativeType &&
          !view.is_code(entry.r_addend)) {
        return view.refuse("its %s relocation %llu calls a resolver at "
                           "0x%llx, not in the file part of an executable "
                           "segment",
                           table.name, as_ull(i), as_ull(entry.r_addend));
      }
    }
  }
  return HALO_OK;
}

halo_status_t check_relr_table(const ElfView& view,
                               const DynamicEntries& entries) {
  Table<Word> table;
  if (!find_table(view, entries, Tag::kRELR, Tag::kRELRSZ, &table)) {
    return view.refuse("its DT_RELR table at [0x%llx, +%llu) is not whole "
                       "words inside the file part of one loadable segment",
                       as_ull(entries[Tag::kRELR]),
                       as_ull(entries[Tag::kRELRSZ]));
  }
  bool text_relocations = has_text_relocations(entries);
  halo_status_t status = HALO_OK;
  bool starts_with_address = visit_relr(table, [&](uint64_t i, uint64_t at) {
    status = check_target(view, text_relocations, "DT_RELR", i, at);
    return status == HALO_OK;
  });
  if (status != HALO_OK) return status;
  if (!starts_with_address) {
    return view.refuse("its DT_RELR table starts with a bitmap, not an "
                       "address");
  }
  return HALO_OK;
}

// What a word of the object holds once the dynamic linker relocated it.
struct RelocatedWord {
  enum Kind {
    kUnrelocated,  // Its file value, an address before the load base.
    kAddress,      // |address|, of the object's own image.
    kOther,        // A symbol's value or a resolver's: not known here.
  } kind = kUnrelocated;
  uint64_t address = 0;
};

// Applies the entries of |table| that write at |address| to |word|.
template <class Entry>
void apply_relocations(const ElfView& view, const Table<Entry>& table,
                       uint64_t address, RelocatedWord* word) {
  for (uint64_t i = 0; i < table.count; ++i) {
    Entry entry = table[i];
    uint32_t type = relocation_type(entry.r_info);
    if (entry.r_offset != address || type == kNoneType) continue;
    if (type != kRelativeType) {
      word->kind = RelocatedWord::kOther;
      continue;
    }
    word->kind = RelocatedWord::kAddress;
    if constexpr (std::is_same_v<Entry, Rela>) {
      word->address = entry.r_addend;
    } else {
      // The addend is the word itself (check_target mapped it).
      ElfRegion region;
      view.map(address, sizeof(Word), &region);
      word->address = region.at<Word>(0);
    }
  }
}

// The word at |address| once relocated, in glibc's order: DT_RELR, then
// DT_REL, then DT_RELA and DT_JMPREL; the last relocation wins.
RelocatedWord relocate_word(const ElfView& view, const DynamicEntries& entries,
                            uint64_t address) {
  RelocatedWord word;
  Table<Word> relr;
  find_table(view, entries, Tag::kRELR, Tag::kRELRSZ, &relr);
  visit_relr(relr, [&](uint64_t, uint64_t at) {
    if (at != address) return true;
    ElfRegion region;
    view.map(address, sizeof(Word), &region);
    word.kind = RelocatedWord::kAddress;
    word.address = region.at<Word>(0);
    return false;
  });
  Table<Rel> rel;
  find_table(view, entries, Tag::kREL, Tag::kRELSZ, &rel);
  apply_relocations(view, rel, address, &word);
  Table<Rela> rela;
  find_table(view, entries, Tag::kRELA, Tag::kRELASZ, &rela);
  apply_relocations(view, rela, address, &word);
  Table<PltRelocation> plt;
  find_table(view, entries, Tag::kJMPREL, Tag::kPLTRELSZ, &plt);
  apply_relocations(view, plt, address, &word);
  return word;
}

halo_status_t check_initializer_array(const ElfView& view,
                                      const DynamicEntries& entries,
                                      Tag array_tag, Tag size_tag) {
  if (!entries.has(array_tag)) return HALO_OK;
  uint64_t array = entries[array_tag];
  // check_addresses mapped the array; glibc calls size / word entries.
  for (uint64_t i = 0; i < entries[size_tag] / sizeof(Word); ++i) {
    RelocatedWord word = relocate_word(view, entries, array + i * sizeof(Word));
    if (word.kind == RelocatedWord::kUnrelocated) {
      return view.refuse("its %s entry %llu is never relocated, so dlopen "
                         "would call its unrelocated value",
                         dynamic_tag_name(array_tag), as_ull(i));
    }
    if (word.kind == RelocatedWord::kAddress && !view.is_code(word.address)) {
      return view.refuse("its %s entry %llu is 0x%llx once relocated, not in "
                         "the file part of an executable segment",
                         dynamic_tag_name(array_tag), as_ull(i),
                         as_ull(word.address));
    }
  }
  return HALO_OK;
}

}  // namespace

halo_status_t check_relocations(const ElfView& view,
                                const DynamicEntries& entries,
                                uint64_t hashed_count) noexcept {
  if (entries.has(Tag::kRELA)) {
    uint64_t relative =
        entries.has(Tag::kRELACOUNT) ? entries[Tag::kRELACOUNT] : 0;
    HALO_SDK_RETURN_IF_ERROR(check_relocation_table<Rela>(
        view, entries, Tag::kRELA, Tag::kRELASZ, relative, hashed_count));
  }
  if (entries.has(Tag::kREL)) {
    uint64_t relative =
        entries.has(Tag::kRELCOUNT) ? entries[Tag::kRELCOUNT] : 0;
    HALO_SDK_RETURN_IF_ERROR(check_relocation_table<Rel>(
        view, entries, Tag::kREL, Tag::kRELSZ, relative, hashed_count));
  }
  if (entries.has(Tag::kJMPREL)) {
    HALO_SDK_RETURN_IF_ERROR(check_relocation_table<PltRelocation>(
        view, entries, Tag::kJMPREL, Tag::kPLTRELSZ, 0, hashed_count));
  }
  if (entries.has(Tag::kRELR)) {
    HALO_SDK_RETURN_IF_ERROR(check_relr_table(view, entries));
  }
  return HALO_OK;
}

halo_status_t check_initializer_arrays(const ElfView& view,
                                       const DynamicEntries& entries) noexcept {
  HALO_SDK_RETURN_IF_ERROR(check_initializer_array(
      view, entries, Tag::kPREINIT_ARRAY, Tag::kPREINIT_ARRAYSZ));
  HALO_SDK_RETURN_IF_ERROR(check_initializer_array(
      view, entries, Tag::kINIT_ARRAY, Tag::kINIT_ARRAYSZ));
  return check_initializer_array(view, entries, Tag::kFINI_ARRAY,
                                 Tag::kFINI_ARRAYSZ);
}

}  // namespace halo::cpu
