#include "host_registrations.hpp"

#include <algorithm>

#include "cuda_status.hpp"

namespace halo::cuda {

halo_status_t HostRegistrations::acquire(sdk::Host host, const Api& api,
                                         void* pointer, size_t size,
                                         CUdeviceptr* out_address) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = std::find_if(ranges_.begin(), ranges_.end(), [&](const Range& r) {
    return r.pointer == pointer && r.size == size;
  });
  if (found == ranges_.end()) {
    HALO_SDK_RETURN_IF_ERROR(
        sdk::guard(host, [&] { ranges_.reserve(ranges_.size() + 1); }));
    HALO_CUDA_RETURN_IF_ERROR(
        host, api, "cuMemHostRegister",
        api.cuMemHostRegister(pointer, size,
                              CU_MEMHOSTREGISTER_PORTABLE |
                                  CU_MEMHOSTREGISTER_DEVICEMAP));
    ranges_.push_back({pointer, size, 0});
    found = ranges_.end() - 1;
  }
  halo_status_t status = cuda_status(
      host, api, "cuMemHostGetDevicePointer",
      api.cuMemHostGetDevicePointer(out_address, pointer, 0));
  if (status != HALO_OK) {
    if (found->uses == 0) {
      api.cuMemHostUnregister(pointer);
      ranges_.erase(found);
    }
    return status;
  }
  ++found->uses;
  return HALO_OK;
}

void HostRegistrations::release(const Api& api, void* pointer) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  auto found = std::find_if(ranges_.begin(), ranges_.end(),
                            [&](const Range& r) { return r.pointer == pointer; });
  if (found == ranges_.end() || --found->uses != 0) return;
  api.cuMemHostUnregister(pointer);
  ranges_.erase(found);
}

}  // namespace halo::cuda
