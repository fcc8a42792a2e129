// Ways to corrupt a real kernel library's dynamic segment, each of which
// made glibc's dlopen fault or abort inside halo_executable_create until
// the cpu plugin checked for it. The cpu tests expect each to be refused;
// the fuzz build writes each as a regression input (tests/fuzz).
#ifndef HALO_TESTS_CPU_ELF_CORRUPTIONS_HPP_
#define HALO_TESTS_CPU_ELF_CORRUPTIONS_HPP_

#include <link.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

namespace halo_cpu_test {

// Edits the bytes of an ELF shared object of this host's class and byte
// order, well-formed enough to find its program headers and dynamic
// entries. Every edit returns false when the object lacks what it edits.
class ElfEditor {
 public:
  explicit ElfEditor(std::vector<uint8_t> bytes) : bytes_(std::move(bytes)) {}

  const std::vector<uint8_t>& bytes() const { return bytes_; }

  // The index of the |nth| program header of |type|, or -1.
  int segment_index(uint32_t type, int nth = 0) const;
  ElfW(Phdr) segment(int index) const;
  void set_segment(int index, const ElfW(Phdr)& segment);

  // The first dynamic entry with |tag|: its value, or a new value or tag.
  bool value(int64_t tag, uint64_t* out) const;
  bool set(int64_t tag, uint64_t value);
  bool retag(int64_t tag, int64_t new_tag);
  // Gives DT_NULL, and every entry after it in the dynamic segment, |tag|.
  bool unterminate(int64_t tag);

  // Reads or writes a T at loaded address |address| (in a PT_LOAD's file
  // part).
  template <class T>
  bool read(uint64_t address, T* out) const {
    uint64_t offset;
    if (!file_offset(address, sizeof(T), &offset)) return false;
    std::memcpy(out, bytes_.data() + offset, sizeof(T));
    return true;
  }
  template <class T>
  bool write(uint64_t address, const T& value) {
    uint64_t offset;
    if (!file_offset(address, sizeof(T), &offset)) return false;
    std::memcpy(bytes_.data() + offset, &value, sizeof(T));
    return true;
  }

  // The address of the dynamic symbol named |name|, or false.
  bool find_symbol(const char* name, uint64_t* out_address) const;

 private:
  bool file_offset(uint64_t address, uint64_t length,
                   uint64_t* out) const;
  // The file offset of dynamic entry |index| of the first PT_DYNAMIC, if
  // it lies inside that segment.
  bool entry_offset(uint64_t index, uint64_t* out) const;
  bool find_entry(int64_t tag, uint64_t* out_offset) const;

  std::vector<uint8_t> bytes_;
};

struct ElfCorruption {
  const char* name;    // Also the regression input's file name.
  const char* reason;  // Words the refusal must contain.
  bool (*apply)(ElfEditor& editor);
};

// Every corruption, each applied to a fresh copy of a kernel library.
std::span<const ElfCorruption> elf_corruptions();

}  // namespace halo_cpu_test

#endif  // HALO_TESTS_CPU_ELF_CORRUPTIONS_HPP_
