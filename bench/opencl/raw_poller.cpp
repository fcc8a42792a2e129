#include "raw_poller.hpp"

#include <pthread.h>

#include "checks.hpp"
#include "halo/sdk/spin.hpp"

namespace halo::bench {

RawPoller::RawPoller() : links_(kSlots), thread_([this] { run(); }) {}

RawPoller::~RawPoller() {
  hand_over(nullptr);
  thread_.join();
  release_seen();
}

void RawPoller::retire(cl_event event) { hand_over(event); }

void RawPoller::hand_over(cl_event event) {
  release_seen();
  const uint64_t pushed = pushed_.load(std::memory_order_relaxed);
  while (pushed - released_ == kSlots) {
    const uint64_t seen = seen_.load(std::memory_order_acquire);
    if (seen == released_) seen_.wait(seen, std::memory_order_acquire);
    release_seen();
  }
  links_[pushed % kSlots] = {event, Clock::now()};
  pushed_.store(pushed + 1, std::memory_order_release);
  pushed_.notify_one();
}

void RawPoller::release_seen() {
  const uint64_t seen = seen_.load(std::memory_order_acquire);
  for (; released_ < seen; ++released_) {
    cl_event event = links_[released_ % kSlots].event;
    if (event != nullptr) check_cl(clReleaseEvent(event), "clReleaseEvent");
  }
}

void RawPoller::run() {
  // Named as a profiler shows it beside the plugin's worker.
  pthread_setname_np(pthread_self(), "raw-poller");
  uint64_t seen = 0;
  for (;;) {
    const uint64_t pushed = pushed_.load(std::memory_order_acquire);
    if (seen == pushed) {
      pushed_.wait(pushed, std::memory_order_acquire);
      continue;
    }
    const uint64_t link = choose_link(seen);
    cl_event event = links_[link % kSlots].event;
    if (event == nullptr) {
      // The end: the link before the sign shows every older one's.
      if (link > seen) {
        cl_event last = links_[(link - 1) % kSlots].event;
        check_cl(clWaitForEvents(1, &last), "clWaitForEvents");
      }
      seen_.store(link + 1, std::memory_order_release);
      return;
    }
    poll_until_ended(event);
    seen = link + 1;
    seen_.store(seen, std::memory_order_release);
    seen_.notify_one();
  }
}

uint64_t RawPoller::choose_link(uint64_t seen) const {
  const Clock::time_point oldest = links_[seen % kSlots].handed_over;
  uint64_t link = pushed_.load(std::memory_order_acquire) - 1;
  for (;;) {
    if (links_[link % kSlots].event == nullptr) return link;
    const Clock::time_point now = Clock::now();
    if (now - links_[link % kSlots].handed_over >= kFirstPoll) return link;
    const uint64_t newest = pushed_.load(std::memory_order_acquire) - 1;
    if (newest != link && now - oldest < kLongestLag) {
      link = newest;
      continue;
    }
    sdk::cpu_pause();
  }
}

void RawPoller::poll_until_ended(cl_event event) {
  auto ended = [event] {
    cl_int status = CL_QUEUED;
    check_cl(clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS,
                            sizeof(status), &status, nullptr),
             "clGetEventInfo");
    return status <= CL_COMPLETE;
  };
  while (!sdk::spin_until(std::chrono::seconds(1), kPollInterval, ended)) {
  }
}

}  // namespace halo::bench
