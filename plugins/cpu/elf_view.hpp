// The bytes of a shared object as the checks in elf_image.cpp and
// elf_dynamic.cpp read them: file offsets, and virtual addresses the way
// dlopen maps them. Addresses are the file's own (an ET_DYN object is laid
// out from 0; dlopen adds the load base): each PT_LOAD segment maps
// [p_vaddr, p_vaddr + p_memsz) to its p_filesz file bytes followed by
// zeros, and nothing outside the PT_LOAD segments is mapped. Every read
// copies, because the bytes are the caller's and may be unaligned.
#ifndef HALO_CPU_ELF_VIEW_HPP_
#define HALO_CPU_ELF_VIEW_HPP_

#include <link.h>

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "halo/sdk/host.hpp"

namespace halo::cpu {

using ElfHeader = ElfW(Ehdr);
using ElfProgramHeader = ElfW(Phdr);
using ElfSectionHeader = ElfW(Shdr);

// True when [offset, offset + length) lies within [0, size) (overflow-safe).
inline bool range_inside(uint64_t offset, uint64_t length, uint64_t size) {
  return offset <= size && length <= size - offset;
}

// For printing a value with %llu or %llx.
inline unsigned long long as_ull(uint64_t value) {
  return static_cast<unsigned long long>(value);
}

// |a| + |b|, or UINT64_MAX where that would wrap: an address no segment
// maps, so the map that follows fails.
inline uint64_t saturating_add(uint64_t a, uint64_t b) {
  return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

// A range of mapped addresses: length() bytes, the first file_length() of
// them from the file, the rest zeros.
class ElfRegion {
 public:
  ElfRegion() noexcept = default;
  ElfRegion(const uint8_t* file, uint64_t length,
            uint64_t file_length) noexcept
      : file_(file), length_(length), file_length_(file_length) {}

  uint64_t length() const noexcept { return length_; }
  uint64_t file_length() const noexcept { return file_length_; }
  // The region's file bytes; valid for file_length() bytes.
  const uint8_t* file() const noexcept { return file_; }

  // Returns the T at |offset|; the caller keeps it inside length().
  template <class T>
  T at(uint64_t offset) const noexcept {
    T value;
    copy(offset, &value, sizeof(value));
    return value;
  }

 private:
  void copy(uint64_t offset, void* out, size_t length) const noexcept;

  const uint8_t* file_ = nullptr;
  uint64_t length_ = 0;
  uint64_t file_length_ = 0;
};

class ElfView {
 public:
  ElfView(sdk::Host host, const uint8_t* bytes, size_t size) noexcept
      : host_(host), bytes_(bytes), size_(size) {}

  // Returns INVALID_ARGUMENT: the bytes are not a loadable cpu-so, for the
  // reason |format| gives.
  halo_status_t refuse(const char* format, ...) const noexcept
      HALO_SDK_PRINTF(2, 3);

  size_t size() const noexcept { return size_; }

  // True when [offset, offset + length) lies inside the file.
  bool file_holds(uint64_t offset, uint64_t length) const noexcept {
    return range_inside(offset, length, size_);
  }
  // True when |count| entries of |entry_size| bytes at |offset| lie inside
  // the file (overflow-safe).
  bool file_holds_table(uint64_t offset, uint64_t count,
                        uint64_t entry_size) const noexcept;

  // Returns the T at file |offset|; the caller checked file_holds.
  template <class T>
  T read_file(uint64_t offset) const noexcept {
    T value;
    std::memcpy(&value, bytes_ + offset, sizeof(value));
    return value;
  }

  // Names the program header table, once checked to lie inside the file.
  void set_program_headers(uint64_t offset, unsigned count) noexcept {
    program_headers_ = offset;
    segment_count_ = count;
  }
  unsigned segment_count() const noexcept { return segment_count_; }
  ElfProgramHeader segment(unsigned index) const noexcept {
    return read_file<ElfProgramHeader>(program_headers_ +
                                       index * sizeof(ElfProgramHeader));
  }

  // True when one PT_LOAD segment maps all of [address, address + length)
  // (a zero |length| still needs |address| inside or at the end of one).
  // Fills |out_region| and |out_flags| (the segment's PF_* bits) when they
  // are not NULL.
  bool map(uint64_t address, uint64_t length, ElfRegion* out_region,
           uint32_t* out_flags = nullptr) const noexcept;
  // Like map, and the whole range must come from the file, not from the
  // zeros past a segment's file part. Tables whose entries the checks walk
  // must pass this, so that no walk runs longer than the file, and so must
  // the code the dynamic linker calls.
  bool map_file(uint64_t address, uint64_t length, ElfRegion* out_region,
                uint32_t* out_flags = nullptr) const noexcept;
  // True when |address| lies in the file part of an executable loaded
  // segment: code the dynamic linker may call.
  bool is_code(uint64_t address) const noexcept {
    uint32_t flags = 0;
    return map_file(address, 1, nullptr, &flags) && (flags & PF_X) != 0;
  }
  // Maps from |address| to the end of the file part of the PT_LOAD segment
  // holding it, for tables whose length is only found by walking them.
  bool map_file_rest(uint64_t address, ElfRegion* out_region) const noexcept;

 private:
  // The PT_LOAD segment holding [address, address + length) in memory.
  bool find_load(uint64_t address, uint64_t length,
                 ElfProgramHeader* out) const noexcept;

  sdk::Host host_;
  const uint8_t* bytes_;
  size_t size_;
  uint64_t program_headers_ = 0;
  unsigned segment_count_ = 0;
};

}  // namespace halo::cpu

#endif  // HALO_CPU_ELF_VIEW_HPP_
