// The dynamic segment: its entries, their required companions and entry
// sizes, the string table and the names in it, and the addresses of the
// initialisers; the symbol and version tables are in elf_symbols.cpp, the
// relocations in elf_relocations.cpp.
#include "elf_dynamic.hpp"

#include "halo/sdk/commands.hpp"

namespace halo::cpu {
namespace {

using Dynamic = ElfW(Dyn);
using Rela = ElfW(Rela);
using Rel = ElfW(Rel);
using Word = ElfW(Addr);
using Tag = DynamicTag;

bool find_tag(int64_t value, Tag* out) {
  switch (value) {
#define HALO_CPU_DYNAMIC_TAG_CASE(name) \
  case DT_##name:                       \
    *out = Tag::k##name;                \
    return true;
    HALO_CPU_DYNAMIC_TAGS(HALO_CPU_DYNAMIC_TAG_CASE)
#undef HALO_CPU_DYNAMIC_TAG_CASE
    default:
      return false;
  }
}

// Entries whose value is an offset into the string table.
struct StringEntry {
  int64_t tag;
  const char* name;
};
constexpr StringEntry kStringEntries[] = {
    {DT_NEEDED, "DT_NEEDED"},       {DT_SONAME, "DT_SONAME"},
    {DT_RPATH, "DT_RPATH"},         {DT_RUNPATH, "DT_RUNPATH"},
    {DT_AUXILIARY, "DT_AUXILIARY"}, {DT_FILTER, "DT_FILTER"},
    {DT_AUDIT, "DT_AUDIT"},         {DT_DEPAUDIT, "DT_DEPAUDIT"},
    {DT_CONFIG, "DT_CONFIG"},
};

// Entries the dynamic linker reads whenever the first is present: without
// the second it dereferences NULL.
struct Companion {
  Tag tag;
  Tag needs;
};
constexpr Companion kCompanions[] = {
    {Tag::kSTRTAB, Tag::kSTRSZ},
    {Tag::kRELA, Tag::kRELASZ},
    {Tag::kRELA, Tag::kRELAENT},
    {Tag::kREL, Tag::kRELSZ},
    {Tag::kREL, Tag::kRELENT},
    {Tag::kRELR, Tag::kRELRSZ},
    {Tag::kRELR, Tag::kRELRENT},
    {Tag::kJMPREL, Tag::kPLTREL},
    {Tag::kJMPREL, Tag::kPLTRELSZ},
    {Tag::kPLTREL, Tag::kJMPREL},
    {Tag::kPLTREL, Tag::kPLTRELSZ},
    {Tag::kINIT_ARRAY, Tag::kINIT_ARRAYSZ},
    {Tag::kFINI_ARRAY, Tag::kFINI_ARRAYSZ},
    {Tag::kPREINIT_ARRAY, Tag::kPREINIT_ARRAYSZ},
    // glibc reads the symbols' versions whenever it has version records.
    {Tag::kVERNEED, Tag::kVERSYM},
    {Tag::kVERDEF, Tag::kVERSYM},
};

// Entries that must hold one value: glibc asserts each but DT_SYMENT, and
// reads symbols of its own size whatever DT_SYMENT says.
struct FixedValue {
  Tag tag;
  uint64_t value;
};
constexpr FixedValue kFixedValues[] = {
    {Tag::kPLTREL, kHostPltRelocation}, {Tag::kRELAENT, sizeof(Rela)},
    {Tag::kRELENT, sizeof(Rel)},        {Tag::kRELRENT, sizeof(Word)},
    {Tag::kSYMENT, sizeof(ElfW(Sym))},
};

// Addresses the dynamic linker reads or calls, with their extents.
struct AddressEntry {
  Tag address;
  Tag size;         // The entry holding the extent; kCount for |extent|.
  uint64_t extent;  // Bytes, when |size| is kCount.
  bool executable;  // Called: must be code (ElfView::is_code).
};
constexpr AddressEntry kAddressEntries[] = {
    {Tag::kINIT, Tag::kCount, 1, true},
    {Tag::kFINI, Tag::kCount, 1, true},
    {Tag::kINIT_ARRAY, Tag::kINIT_ARRAYSZ, 0, false},
    {Tag::kFINI_ARRAY, Tag::kFINI_ARRAYSZ, 0, false},
    {Tag::kPREINIT_ARRAY, Tag::kPREINIT_ARRAYSZ, 0, false},
    {Tag::kPLTGOT, Tag::kCount, sizeof(Word), false},
};

halo_status_t read_entries(const ElfView& view, unsigned index,
                           const ElfProgramHeader& segment,
                           DynamicEntries* out) {
  if (!view.map_file(segment.p_vaddr, segment.p_filesz, &out->table)) {
    return view.refuse("its dynamic segment (program header %u) is not "
                       "inside the file part of one loadable segment",
                       index);
  }
  uint64_t capacity = segment.p_filesz / sizeof(Dynamic);
  for (uint64_t i = 0; i < capacity; ++i) {
    auto entry = out->table.at<Dynamic>(i * sizeof(Dynamic));
    if (entry.d_tag == DT_NULL) {
      out->count = i;
      return HALO_OK;
    }
    Tag tag;
    if (find_tag(entry.d_tag, &tag)) {
      out->present[static_cast<unsigned>(tag)] = true;
      out->value[static_cast<unsigned>(tag)] = entry.d_un.d_val;
    }
  }
  return view.refuse("its dynamic segment (program header %u) has no "
                     "DT_NULL entry within its %llu bytes",
                     index, as_ull(segment.p_filesz));
}

halo_status_t check_entry_rules(const ElfView& view,
                                const DynamicEntries& entries) {
  // A cpu-so exports its kernel table, so it has symbols to look up.
  for (Tag required : {Tag::kSTRTAB, Tag::kSYMTAB}) {
    if (!entries.has(required)) {
      return view.refuse("its dynamic segment has no %s entry",
                         dynamic_tag_name(required));
    }
  }
  if (!entries.has(Tag::kHASH) && !entries.has(Tag::kGNU_HASH)) {
    return view.refuse("its dynamic segment has neither a DT_HASH nor a "
                       "DT_GNU_HASH entry");
  }
  for (const Companion& rule : kCompanions) {
    if (entries.has(rule.tag) && !entries.has(rule.needs)) {
      return view.refuse("its dynamic segment has %s but no %s",
                         dynamic_tag_name(rule.tag),
                         dynamic_tag_name(rule.needs));
    }
  }
  for (const FixedValue& rule : kFixedValues) {
    if (entries.has(rule.tag) && entries[rule.tag] != rule.value) {
      return view.refuse("its %s is %llu, not %llu",
                         dynamic_tag_name(rule.tag), as_ull(entries[rule.tag]),
                         as_ull(rule.value));
    }
  }
  return HALO_OK;
}

// The string table lies in the file and ends with NUL, so every offset
// below DT_STRSZ names a terminated string; then every name entry must be
// such an offset.
halo_status_t check_strings(const ElfView& view, DynamicEntries* entries) {
  uint64_t address = (*entries)[Tag::kSTRTAB];
  uint64_t size = (*entries)[Tag::kSTRSZ];
  if (size == 0 || !view.map_file(address, size, &entries->strings)) {
    return view.refuse("its string table (DT_STRTAB 0x%llx, DT_STRSZ %llu) "
                       "is not inside the file part of one loadable segment",
                       as_ull(address), as_ull(size));
  }
  if (entries->strings.at<char>(size - 1) != '\0') {
    return view.refuse("its string table (DT_STRTAB) does not end with a "
                       "NUL byte");
  }
  for (uint64_t i = 0; i < entries->count; ++i) {
    auto entry = entries->table.at<Dynamic>(i * sizeof(Dynamic));
    for (const StringEntry& kind : kStringEntries) {
      if (entry.d_tag == kind.tag && entry.d_un.d_val >= size) {
        return view.refuse("its %s entry names string offset %llu, past "
                           "DT_STRSZ (%llu)",
                           kind.name, as_ull(entry.d_un.d_val), as_ull(size));
      }
    }
  }
  return HALO_OK;
}

halo_status_t check_addresses(const ElfView& view,
                              const DynamicEntries& entries) {
  for (const AddressEntry& rule : kAddressEntries) {
    if (!entries.has(rule.address)) continue;
    uint64_t address = entries[rule.address];
    uint64_t length = rule.size == Tag::kCount ? rule.extent
                                               : entries[rule.size];
    if (!view.map(address, length, nullptr)) {
      return view.refuse("its %s at [0x%llx, +%llu) is not inside one "
                         "loadable segment",
                         dynamic_tag_name(rule.address), as_ull(address),
                         as_ull(length));
    }
    if (rule.executable && !view.is_code(address)) {
      return view.refuse("its %s at 0x%llx is not in the file part of an "
                         "executable segment",
                         dynamic_tag_name(rule.address), as_ull(address));
    }
  }
  return HALO_OK;
}

halo_status_t check_dynamic_segment(const ElfView& view, unsigned index,
                                    const ElfProgramHeader& segment) {
  DynamicEntries entries;
  HALO_SDK_RETURN_IF_ERROR(read_entries(view, index, segment, &entries));
  HALO_SDK_RETURN_IF_ERROR(check_entry_rules(view, entries));
  HALO_SDK_RETURN_IF_ERROR(check_strings(view, &entries));
  HALO_SDK_RETURN_IF_ERROR(check_version_tables(view, &entries));
  uint64_t hashed_count = 0;
  HALO_SDK_RETURN_IF_ERROR(check_hashed_symbols(view, entries, &hashed_count));
  HALO_SDK_RETURN_IF_ERROR(check_relocations(view, entries, hashed_count));
  HALO_SDK_RETURN_IF_ERROR(check_addresses(view, entries));
  return check_initializer_arrays(view, entries);
}

}  // namespace

const char* dynamic_tag_name(DynamicTag tag) noexcept {
  static constexpr const char* kNames[] = {
#define HALO_CPU_DYNAMIC_TAG_NAME(name) "DT_" #name,
      HALO_CPU_DYNAMIC_TAGS(HALO_CPU_DYNAMIC_TAG_NAME)
#undef HALO_CPU_DYNAMIC_TAG_NAME
  };
  return kNames[static_cast<unsigned>(tag)];
}

halo_status_t check_dynamic(const ElfView& view) noexcept {
  // glibc uses the last PT_DYNAMIC; every one is checked. One with no file
  // bytes is dlopen's to refuse ("no dynamic section").
  for (unsigned i = 0; i < view.segment_count(); ++i) {
    ElfProgramHeader segment = view.segment(i);
    if (segment.p_type != PT_DYNAMIC || segment.p_filesz == 0) continue;
    HALO_SDK_RETURN_IF_ERROR(check_dynamic_segment(view, i, segment));
  }
  return HALO_OK;
}

}  // namespace halo::cpu
