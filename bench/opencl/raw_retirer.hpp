// What raw OpenCL must add to learn of each submission's end as it comes,
// as halo's queues do to release what a submission holds (DESIGN.md §5):
// keep each submission's event, and have a thread wait for it in order and
// release it. The native_opencl_retiring baseline of BM_ClChain10k.
//
// The hand-over is a single-producer, single-consumer ring of atomics: no
// lock on the submitting thread, and a futex wake only while the thread
// sleeps (C++20 atomic wait).
#ifndef HALO_BENCH_OPENCL_RAW_RETIRER_HPP_
#define HALO_BENCH_OPENCL_RAW_RETIRER_HPP_

#include <CL/cl.h>

#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace halo::bench {

class RawRetirer {
 public:
  RawRetirer();
  // Retires what is left, then stops the thread.
  ~RawRetirer();
  RawRetirer(const RawRetirer&) = delete;
  RawRetirer& operator=(const RawRetirer&) = delete;

  // Takes over the caller's reference to |event| (not NULL). One thread
  // only.
  void retire(cl_event event);

 private:
  // More than a chain's submissions, so that the submitting thread only
  // waits for room when the retiring thread is a whole chain behind.
  static constexpr uint64_t kSlots = uint64_t{1} << 15;

  void run();

  std::vector<cl_event> slots_;
  std::atomic<uint64_t> pushed_{0};
  std::atomic<uint64_t> retired_{0};
  std::thread thread_;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_RAW_RETIRER_HPP_
