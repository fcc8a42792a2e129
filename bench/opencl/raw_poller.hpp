// The least raw OpenCL is known to pay on NVIDIA's driver to learn of each
// link of a chain ending as it comes: what halo's opencl queue does there
// (plugins/opencl/queue.hpp), without halo's bookkeeping. The
// native_opencl_polling baseline of BM_ClChain10k.
//
// NVIDIA's CL_COMPLETE callbacks come milliseconds late, and a thread
// blocked in clWaitForEvents or releasing events takes the locks the
// submitting thread's next enqueue needs (the native_opencl_retiring
// baseline, raw_retirer.hpp). So one thread polls the event status instead,
// and only of the newest link handed over, whose end shows every older
// link's: it asks about a link once it is kFirstPoll old, moving on to
// newer ones meanwhile, until the oldest link not yet seen is kLongestLag
// old (so a chain that never ends is still seen as it goes), then every
// kPollInterval until it has ended. The submitting thread releases the
// events seen complete on its next hand-over, so the polling thread never
// releases one. The same three times as the plugin's.
//
// Each event handed over must wait on the one before (a chain), or follow
// one the caller waited for: the newest's end is taken for all of theirs.
#ifndef HALO_BENCH_OPENCL_RAW_POLLER_HPP_
#define HALO_BENCH_OPENCL_RAW_POLLER_HPP_

#include <CL/cl.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>
#include <vector>

namespace halo::bench {

class RawPoller {
 public:
  RawPoller();
  // Sees the chain to its end, releases every event, then stops the thread.
  ~RawPoller();
  RawPoller(const RawPoller&) = delete;
  RawPoller& operator=(const RawPoller&) = delete;

  // Takes over the caller's reference to |event| (not NULL), the chain's
  // next link. One thread only.
  void retire(cl_event event);

 private:
  using Clock = std::chrono::steady_clock;
  static constexpr std::chrono::microseconds kFirstPoll{20};
  static constexpr std::chrono::microseconds kLongestLag{50};
  static constexpr std::chrono::microseconds kPollInterval{4};
  // More than a chain's links, as RawRetirer's.
  static constexpr uint64_t kSlots = uint64_t{1} << 15;

  struct Link {
    cl_event event = nullptr;  // NULL: the destructor's sign to stop.
    Clock::time_point handed_over;
  };

  void hand_over(cl_event event);
  // Releases the events the thread has seen complete (submitting thread).
  void release_seen();
  void run();
  // The index of the link to ask about next, at least |seen|, once it is
  // due (see the file comment).
  uint64_t choose_link(uint64_t seen) const;
  // Asks about |event| every kPollInterval until it has ended.
  static void poll_until_ended(cl_event event);

  std::vector<Link> links_;
  std::atomic<uint64_t> pushed_{0};
  // Links below it have ended (the polling thread's).
  std::atomic<uint64_t> seen_{0};
  // Links below it are released (the submitting thread's).
  uint64_t released_ = 0;
  std::thread thread_;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_RAW_POLLER_HPP_
