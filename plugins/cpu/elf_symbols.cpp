// The dynamic symbols of a shared object: the hash tables that count them,
// the symbols themselves, and the version tables.
#include "elf_dynamic.hpp"

#include <algorithm>
#include <cstring>

#include "halo/sdk/commands.hpp"

namespace halo::cpu {
namespace {

using Symbol = ElfW(Sym);
using Word = ElfW(Addr);
using Tag = DynamicTag;
// A DT_HASH entry (32 bits on most machines, 64 on a few).
using HashWord = Elf_Symndx;

struct GnuHashHeader {
  uint32_t bucket_count;
  uint32_t first_hashed;  // Symbols below it are not in the table.
  uint32_t bloom_words;
  uint32_t bloom_shift;
};

// The same bits in both ELF classes.
unsigned symbol_type(const Symbol& symbol) {
  return ELF64_ST_TYPE(symbol.st_info);
}

// DT_HASH: bucket and chain counts, then the buckets and the chains, each
// entry a symbol index below the chain count, which is the symbol count.
halo_status_t count_by_sysv_hash(const ElfView& view, uint64_t address,
                                 uint64_t* out_count) {
  ElfRegion header;
  if (!view.map_file(address, 2 * sizeof(HashWord), &header)) {
    return view.refuse("its DT_HASH table at 0x%llx is not inside the file "
                       "part of one loadable segment",
                       as_ull(address));
  }
  uint64_t buckets = header.at<HashWord>(0);
  uint64_t chains = header.at<HashWord>(sizeof(HashWord));
  if (buckets == 0) {
    // Every lookup takes a hash modulo the bucket count.
    return view.refuse("its DT_HASH table has no buckets");
  }
  ElfRegion table;
  if (buckets > view.size() || chains > view.size() ||
      !view.map_file(address, (2 + buckets + chains) * sizeof(HashWord),
                     &table)) {
    return view.refuse("its DT_HASH table (%llu buckets, %llu chains) runs "
                       "outside the file part of its loadable segment",
                       as_ull(buckets), as_ull(chains));
  }
  for (uint64_t i = 0; i < buckets + chains; ++i) {
    uint64_t symbol = table.at<HashWord>((2 + i) * sizeof(HashWord));
    if (symbol >= chains) {
      return view.refuse("its DT_HASH table names symbol %llu; it has %llu",
                         as_ull(symbol), as_ull(chains));
    }
  }
  *out_count = chains;
  return HALO_OK;
}

// DT_GNU_HASH: a header, a bloom filter of words, the buckets (each 0 or
// the first hashed symbol of its chain) and one chain entry per hashed
// symbol, the last of each chain with bit 0 set. The highest bucket's chain
// ends at the last symbol.
halo_status_t count_by_gnu_hash(const ElfView& view, uint64_t address,
                                uint64_t* out_count) {
  ElfRegion region;
  if (!view.map_file(address, sizeof(GnuHashHeader), &region)) {
    return view.refuse("its DT_GNU_HASH table at 0x%llx is not inside the "
                       "file part of one loadable segment",
                       as_ull(address));
  }
  auto header = region.at<GnuHashHeader>(0);
  if (header.bucket_count == 0) {
    return view.refuse("its DT_GNU_HASH table has no buckets");
  }
  // glibc asserts it (and masks bloom indexes with bloom_words - 1).
  if (header.bloom_words == 0 ||
      (header.bloom_words & (header.bloom_words - 1)) != 0) {
    return view.refuse("its DT_GNU_HASH bloom filter has %u words, not a "
                       "power of two",
                       header.bloom_words);
  }
  uint64_t buckets_offset =
      sizeof(GnuHashHeader) + uint64_t{header.bloom_words} * sizeof(Word);
  uint64_t chains_offset =
      buckets_offset + uint64_t{header.bucket_count} * sizeof(uint32_t);
  if (!view.map_file(address, chains_offset, &region)) {
    return view.refuse("its DT_GNU_HASH table (%u bloom words, %u buckets) "
                       "runs outside the file part of its loadable segment",
                       header.bloom_words, header.bucket_count);
  }
  uint64_t highest = 0;
  for (uint64_t i = 0; i < header.bucket_count; ++i) {
    uint32_t first = region.at<uint32_t>(buckets_offset + i * sizeof(uint32_t));
    if (first != 0 && first < header.first_hashed) {
      return view.refuse("its DT_GNU_HASH bucket %llu starts at symbol %u, "
                         "below the first hashed symbol %u",
                         as_ull(i), first, header.first_hashed);
    }
    if (first > highest) highest = first;
  }
  if (highest == 0) {  // No hashed symbols.
    *out_count = header.first_hashed;
    return HALO_OK;
  }
  // Every chain runs forward to an end bit, so the chains below the
  // highest bucket end no later than its chain.
  ElfRegion chains;
  uint64_t start = (highest - header.first_hashed) * sizeof(uint32_t);
  if (view.map_file_rest(saturating_add(address, chains_offset), &chains)) {
    for (uint64_t offset = start; offset + sizeof(uint32_t) <= chains.length();
         offset += sizeof(uint32_t)) {
      if ((chains.at<uint32_t>(offset) & 1) != 0) {
        *out_count = header.first_hashed + offset / sizeof(uint32_t) + 1;
        return HALO_OK;
      }
    }
  }
  return view.refuse("its DT_GNU_HASH chain from symbol %llu does not end "
                     "inside the file part of its loadable segment",
                     as_ull(highest));
}

bool is_defined_address(const Symbol& symbol) {
  if (symbol.st_shndx == SHN_UNDEF || symbol.st_shndx == SHN_ABS ||
      symbol.st_shndx == SHN_COMMON) {
    return false;
  }
  return symbol_type(symbol) != STT_TLS;  // A TLS offset.
}

// Version records chain by offsets from one record to the next (0 ends a
// chain). Each step must move past the record it leaves, so that records
// never overlap and no walk runs longer than the file.
bool next_record(uint64_t* address, uint64_t step, uint64_t record_size) {
  if (step < record_size) return false;
  *address = saturating_add(*address, step);
  return true;
}

bool names_needed_file(const DynamicEntries& entries, uint64_t name) {
  for (uint64_t i = 0; i < entries.count; ++i) {
    auto entry = entries.table.at<ElfW(Dyn)>(i * sizeof(ElfW(Dyn)));
    if (entry.d_tag == DT_NEEDED &&
        std::strcmp(entries.string(entry.d_un.d_val),
                    entries.string(name)) == 0) {
      return true;
    }
  }
  return false;
}

// The version-needed records, each with its list of versions. glibc
// asserts that each record's file is one this object loads.
halo_status_t check_needed_versions(const ElfView& view,
                                    const DynamicEntries& entries,
                                    uint64_t* highest) {
  using Need = ElfW(Verneed);
  using NeedAux = ElfW(Vernaux);
  uint64_t strings = entries.strings.length();
  uint64_t address = entries[Tag::kVERNEED];
  for (uint64_t record = 0;; ++record) {
    ElfRegion region;
    if (!view.map_file(address, sizeof(Need), &region)) {
      return view.refuse("its DT_VERNEED record %llu at 0x%llx is not "
                         "inside the file part of one loadable segment",
                         as_ull(record), as_ull(address));
    }
    auto need = region.at<Need>(0);
    if (need.vn_file >= strings) {
      return view.refuse("its DT_VERNEED record %llu names string offset "
                         "%u, past DT_STRSZ (%llu)",
                         as_ull(record), need.vn_file, as_ull(strings));
    }
    if (!names_needed_file(entries, need.vn_file)) {
      return view.refuse("its DT_VERNEED record %llu names '%.64s', which is "
                         "not one of its DT_NEEDED libraries",
                         as_ull(record), entries.string(need.vn_file));
    }
    // glibc reads at least one version, whatever vn_cnt says.
    uint64_t aux = saturating_add(address, need.vn_aux);
    for (;;) {
      if (!view.map_file(aux, sizeof(NeedAux), &region)) {
        return view.refuse("a version of its DT_VERNEED record %llu, at "
                           "0x%llx, is not inside the file part of one "
                           "loadable segment",
                           as_ull(record), as_ull(aux));
      }
      auto version = region.at<NeedAux>(0);
      if (version.vna_name >= strings) {
        return view.refuse("a version of its DT_VERNEED record %llu names "
                           "string offset %u, past DT_STRSZ (%llu)",
                           as_ull(record), version.vna_name, as_ull(strings));
      }
      *highest = std::max<uint64_t>(*highest, version.vna_other & 0x7fff);
      if (version.vna_next == 0) break;
      if (!next_record(&aux, version.vna_next, sizeof(NeedAux))) {
        return view.refuse("a version of its DT_VERNEED record %llu links "
                           "to an overlapping one",
                           as_ull(record));
      }
    }
    if (need.vn_next == 0) return HALO_OK;
    if (!next_record(&address, need.vn_next, sizeof(Need))) {
      return view.refuse("its DT_VERNEED record %llu links to an "
                         "overlapping one",
                         as_ull(record));
    }
  }
}

// The version-definition records, each with its names.
halo_status_t check_defined_versions(const ElfView& view,
                                     const DynamicEntries& entries,
                                     uint64_t* highest) {
  using Definition = ElfW(Verdef);
  using DefinitionAux = ElfW(Verdaux);
  uint64_t strings = entries.strings.length();
  uint64_t address = entries[Tag::kVERDEF];
  for (uint64_t record = 0;; ++record) {
    ElfRegion region;
    if (!view.map_file(address, sizeof(Definition), &region)) {
      return view.refuse("its DT_VERDEF record %llu at 0x%llx is not inside "
                         "the file part of one loadable segment",
                         as_ull(record), as_ull(address));
    }
    auto definition = region.at<Definition>(0);
    *highest = std::max<uint64_t>(*highest, definition.vd_ndx & 0x7fff);
    uint64_t aux = saturating_add(address, definition.vd_aux);
    for (;;) {
      if (!view.map_file(aux, sizeof(DefinitionAux), &region)) {
        return view.refuse("a name of its DT_VERDEF record %llu, at 0x%llx, "
                           "is not inside the file part of one loadable "
                           "segment",
                           as_ull(record), as_ull(aux));
      }
      auto name = region.at<DefinitionAux>(0);
      if (name.vda_name >= strings) {
        return view.refuse("a name of its DT_VERDEF record %llu is string "
                           "offset %u, past DT_STRSZ (%llu)",
                           as_ull(record), name.vda_name, as_ull(strings));
      }
      if (name.vda_next == 0) break;
      if (!next_record(&aux, name.vda_next, sizeof(DefinitionAux))) {
        return view.refuse("a name of its DT_VERDEF record %llu links to an "
                           "overlapping one",
                           as_ull(record));
      }
    }
    if (definition.vd_next == 0) return HALO_OK;
    if (!next_record(&address, definition.vd_next, sizeof(Definition))) {
      return view.refuse("its DT_VERDEF record %llu links to an overlapping "
                         "one",
                         as_ull(record));
    }
  }
}

}  // namespace

halo_status_t check_version_tables(const ElfView& view,
                                   DynamicEntries* entries) noexcept {
  uint64_t highest = 0;
  if (entries->has(Tag::kVERNEED)) {
    HALO_SDK_RETURN_IF_ERROR(check_needed_versions(view, *entries, &highest));
  }
  if (entries->has(Tag::kVERDEF)) {
    HALO_SDK_RETURN_IF_ERROR(
        check_defined_versions(view, *entries, &highest));
  }
  if (entries->has(Tag::kVERSYM) && highest == 0) {
    // glibc would index a version array it never made.
    return view.refuse("it has DT_VERSYM but no version that DT_VERNEED or "
                       "DT_VERDEF defines");
  }
  entries->highest_version = highest;
  return HALO_OK;
}

halo_status_t check_symbol(const ElfView& view, const DynamicEntries& entries,
                           uint64_t index) noexcept {
  uint64_t address = entries[Tag::kSYMTAB];
  ElfRegion region;
  if (index > view.size() ||
      !view.map_file(saturating_add(address, index * sizeof(Symbol)),
                     sizeof(Symbol), &region)) {
    return view.refuse("its dynamic symbol %llu (DT_SYMTAB 0x%llx) is not "
                       "inside the file part of one loadable segment",
                       as_ull(index), as_ull(address));
  }
  auto symbol = region.at<Symbol>(0);
  if (symbol.st_name >= entries.strings.length()) {
    return view.refuse("its dynamic symbol %llu has name offset %u, past "
                       "DT_STRSZ (%llu)",
                       as_ull(index), static_cast<unsigned>(symbol.st_name),
                       as_ull(entries.strings.length()));
  }
  if (is_defined_address(symbol)) {
    if (!view.map(symbol.st_value, symbol.st_size, nullptr)) {
      return view.refuse("its symbol '%.64s' at [0x%llx, +%llu) is not "
                         "inside one loadable segment",
                         entries.string(symbol.st_name),
                         as_ull(symbol.st_value), as_ull(symbol.st_size));
    }
    if (symbol_type(symbol) == STT_GNU_IFUNC &&
        !view.is_code(symbol.st_value)) {
      return view.refuse("its STT_GNU_IFUNC symbol '%.64s' at 0x%llx is not "
                         "in the file part of an executable segment",
                         entries.string(symbol.st_name),
                         as_ull(symbol.st_value));
    }
  }
  if (!entries.has(Tag::kVERSYM)) return HALO_OK;
  using VersionIndex = ElfW(Half);
  address = entries[Tag::kVERSYM];
  if (!view.map_file(saturating_add(address, index * sizeof(VersionIndex)),
                     sizeof(VersionIndex), &region)) {
    return view.refuse("the DT_VERSYM entry of its symbol %llu (DT_VERSYM "
                       "0x%llx) is not inside the file part of one loadable "
                       "segment",
                       as_ull(index), as_ull(address));
  }
  uint64_t version = region.at<VersionIndex>(0) & 0x7fff;
  if (version > entries.highest_version) {
    return view.refuse("its symbol %llu has version index %llu; its "
                       "version tables define up to %llu",
                       as_ull(index), as_ull(version),
                       as_ull(entries.highest_version));
  }
  return HALO_OK;
}

halo_status_t check_hashed_symbols(const ElfView& view,
                                   const DynamicEntries& entries,
                                   uint64_t* out_count) noexcept {
  uint64_t count = 0;
  if (entries.has(Tag::kHASH)) {
    HALO_SDK_RETURN_IF_ERROR(
        count_by_sysv_hash(view, entries[Tag::kHASH], &count));
  }
  if (entries.has(Tag::kGNU_HASH)) {
    uint64_t gnu_count = 0;
    HALO_SDK_RETURN_IF_ERROR(
        count_by_gnu_hash(view, entries[Tag::kGNU_HASH], &gnu_count));
    count = std::max(count, gnu_count);
  }
  // Each check fails at the first symbol past the file part of the table's
  // segment, so the loop never runs longer than the file.
  for (uint64_t i = 0; i < count; ++i) {
    HALO_SDK_RETURN_IF_ERROR(check_symbol(view, entries, i));
  }
  *out_count = count;
  return HALO_OK;
}

}  // namespace halo::cpu
