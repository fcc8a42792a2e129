// Raw OpenCL that keeps each link's event kHeld links longer than it must,
// with no other thread: what holding events alone costs the driver's
// enqueue, beside what asking about them costs (raw_poller.hpp). Any
// scheme that learns of a link's end after the fact holds its event until
// then; halo's opencl queue holds a chain's last few. The
// native_opencl_holding baseline of BM_ClChain10k.
#ifndef HALO_BENCH_OPENCL_RAW_HOLDER_HPP_
#define HALO_BENCH_OPENCL_RAW_HOLDER_HPP_

#include <CL/cl.h>

#include <array>
#include <cstddef>

namespace halo::bench {

class RawHolder {
 public:
  RawHolder() = default;
  // Releases what it still holds.
  ~RawHolder();
  RawHolder(const RawHolder&) = delete;
  RawHolder& operator=(const RawHolder&) = delete;

  // Takes over the caller's reference to |event| (not NULL) and releases
  // the one handed over kHeld calls before.
  void retire(cl_event event);

 private:
  // About as many as halo's queue holds in a chain on NVIDIA's driver: the
  // links of a 50 µs run, and those seen but not yet released.
  static constexpr size_t kHeld = 8;

  std::array<cl_event, kHeld> held_{};
  size_t next_ = 0;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_RAW_HOLDER_HPP_
