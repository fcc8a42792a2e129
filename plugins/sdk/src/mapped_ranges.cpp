#include "halo/sdk/mapped_ranges.hpp"

namespace halo::sdk {

void MappedRanges::add(const Mapping& mapping) {
  std::lock_guard<std::mutex> lock(mutex_);
  mappings_.push_back(mapping);
}

halo_status_t MappedRanges::remove(Host host, const char* function,
                                   uint64_t offset, uint64_t length,
                                   Mapping* out) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  for (auto it = mappings_.begin(); it != mappings_.end(); ++it) {
    if (it->offset != offset || it->length != length) continue;
    *out = *it;
    mappings_.erase(it);
    return HALO_OK;
  }
  return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                          "%s: offset %llu and length %llu name no mapped "
                          "range of the buffer",
                          function, static_cast<unsigned long long>(offset),
                          static_cast<unsigned long long>(length));
}

}  // namespace halo::sdk
