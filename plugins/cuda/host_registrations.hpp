// Host memory registered with CUDA (cuMemHostRegister) for imported host
// allocations (external.h, HOST_ALLOCATION), counted per range: CUDA
// refuses to register a range twice, and one application memory may be
// imported more than once (external.h, "Aliases").
#ifndef HALO_CUDA_HOST_REGISTRATIONS_HPP_
#define HALO_CUDA_HOST_REGISTRATIONS_HPP_

#include <cstddef>
#include <mutex>
#include <vector>

#include "cuda_library.hpp"
#include "halo/sdk/host.hpp"

namespace halo::cuda {

class HostRegistrations {
 public:
  explicit HostRegistrations(sdk::Host host)
      : ranges_(sdk::HostAllocator<Range>(host)) {}

  // Registers [|pointer|, |pointer| + |size|) with |context| current, or
  // counts one more use of that very range, and stores the address the
  // device reaches it at in |out_address|. Returns the failing CUDA call's
  // status (a range overlapping a registered one but not equal to it is
  // CUDA's refusal), or RESOURCE_EXHAUSTED.
  halo_status_t acquire(sdk::Host host, const Api& api, void* pointer,
                        size_t size, CUdeviceptr* out_address) noexcept;
  // Drops a use of the range at |pointer|; the last unregisters it. Call
  // with the device's context current.
  void release(const Api& api, void* pointer) noexcept;

 private:
  struct Range {
    void* pointer;
    size_t size;
    unsigned uses;
  };
  std::mutex mutex_;
  std::vector<Range, sdk::HostAllocator<Range>> ranges_;
};

}  // namespace halo::cuda

#endif  // HALO_CUDA_HOST_REGISTRATIONS_HPP_
