// File and address reads of a shared object's bytes, and the one status
// every refusal of them carries.
#include "elf_view.hpp"

#include <cstdarg>
#include <cstdio>

namespace halo::cpu {

void ElfRegion::copy(uint64_t offset, void* out, size_t length) const noexcept {
  auto* bytes = static_cast<uint8_t*>(out);
  size_t from_file = 0;
  if (offset < file_length_) {
    uint64_t available = file_length_ - offset;
    from_file = available < length ? static_cast<size_t>(available) : length;
    std::memcpy(bytes, file_ + offset, from_file);
  }
  std::memset(bytes + from_file, 0, length - from_file);
}

halo_status_t ElfView::refuse(const char* format, ...) const noexcept {
  char reason[256];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(reason, sizeof(reason), format, arguments);
  va_end(arguments);
  return host_.make_status(HALO_STATUS_INVALID_ARGUMENT,
                           "halo_executable_create: params->data (%zu bytes) "
                           "is not a loadable cpu-so shared object for this "
                           "host: %s",
                           size_, reason);
}

bool ElfView::file_holds_table(uint64_t offset, uint64_t count,
                               uint64_t entry_size) const noexcept {
  if (count != 0 && entry_size > UINT64_MAX / count) return false;
  return file_holds(offset, count * entry_size);
}

bool ElfView::find_load(uint64_t address, uint64_t length,
                        ElfProgramHeader* out) const noexcept {
  for (unsigned i = 0; i < segment_count_; ++i) {
    ElfProgramHeader segment = this->segment(i);
    if (segment.p_type != PT_LOAD || address < segment.p_vaddr) continue;
    if (range_inside(address - segment.p_vaddr, length, segment.p_memsz)) {
      *out = segment;
      return true;
    }
  }
  return false;
}

bool ElfView::map(uint64_t address, uint64_t length, ElfRegion* out_region,
                  uint32_t* out_flags) const noexcept {
  ElfProgramHeader segment;
  if (!find_load(address, length, &segment)) return false;
  // The segment checks guarantee p_filesz <= p_memsz and that the file
  // part lies inside the file.
  uint64_t offset = address - segment.p_vaddr;
  const uint8_t* file = bytes_;  // Unread when no byte comes from the file.
  uint64_t file_length = 0;
  if (offset < segment.p_filesz) {
    file = bytes_ + segment.p_offset + offset;
    file_length = segment.p_filesz - offset;
    if (file_length > length) file_length = length;
  }
  if (out_region != nullptr) {
    *out_region = ElfRegion(file, length, file_length);
  }
  if (out_flags != nullptr) *out_flags = segment.p_flags;
  return true;
}

bool ElfView::map_file(uint64_t address, uint64_t length,
                       ElfRegion* out_region,
                       uint32_t* out_flags) const noexcept {
  ElfRegion region;
  if (!map(address, length, &region, out_flags) ||
      region.file_length() != length) {
    return false;
  }
  if (out_region != nullptr) *out_region = region;
  return true;
}

bool ElfView::map_file_rest(uint64_t address,
                            ElfRegion* out_region) const noexcept {
  ElfProgramHeader segment;
  if (!find_load(address, 0, &segment)) return false;
  uint64_t offset = address - segment.p_vaddr;
  if (offset > segment.p_filesz) return false;
  *out_region = ElfRegion(bytes_ + segment.p_offset + offset,
                          segment.p_filesz - offset,
                          segment.p_filesz - offset);
  return true;
}

}  // namespace halo::cpu
