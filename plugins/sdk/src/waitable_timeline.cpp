// The futex-backed timeline, and the multi-semaphore wait over timelines.
#include "halo/sdk/waitable_timeline.hpp"

#include "halo/sdk/futex.hpp"
#include "halo/sdk/multi_wait.hpp"
#include "halo/sdk/shared_timeline.hpp"

namespace halo::sdk {
namespace {

// A multi-wait's semaphores as the calling plugin's own timelines.
class TimelineSemaphores final : public MultiWaitSemaphores {
 public:
  TimelineSemaphores(halo_semaphore_t* const* semaphores,
                     TimelineOf timeline_of) noexcept
      : semaphores_(semaphores), timeline_of_(timeline_of) {}

  halo_status_t query(size_t index, uint64_t* out_payload) noexcept override {
    return timeline(index).query(out_payload);
  }
  halo_status_t acquire_timepoint(
      size_t index, halo_timepoint_t* timepoint) noexcept override {
    return timeline(index).acquire(timepoint);
  }
  void cancel_timepoint(size_t index,
                        halo_timepoint_t* timepoint) noexcept override {
    timeline(index).cancel(timepoint);
  }

 private:
  WaitableTimeline& timeline(size_t index) const noexcept {
    return timeline_of_(semaphores_[index]);
  }

  halo_semaphore_t* const* semaphores_;
  TimelineOf timeline_of_;
};

}  // namespace

halo_status_t WaitableTimeline::settle(uint64_t payload, uint64_t value,
                                       bool* done) noexcept {
  if (payload >= HALO_SEMAPHORE_FAILURE_VALUE) {
    *done = true;
    return clone_failure();
  }
  *done = payload >= value;
  return HALO_OK;
}

halo_status_t WaitableTimeline::wait_slow(uint64_t value,
                                          halo_time_ns_t deadline) noexcept {
  bool done = false;
  halo_status_t result = settle(payload(), value, &done);
  if (done) return result;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) return deadline_exceeded_;
  // A shared timeline's waiter sleeps on its page, by the page's protocol
  // (external_handle.h), so that another sharer's change wakes it itself,
  // not through this process's watcher thread: one wake-up, not two. A
  // change of this process's wakes it through the announcement after it.
  SharedTimeline* page = shared();
  for (;;) {
    uint32_t epoch = 0;
    if (page != nullptr) {
      epoch = page->begin_sleep();
    } else {
      waiters_.fetch_add(1, std::memory_order_seq_cst);
      epoch = epoch_.load(std::memory_order_seq_cst);
    }
    result = settle(payload(std::memory_order_seq_cst), value, &done);
    bool in_time = done || (page != nullptr ? page->sleep(epoch, deadline)
                                            : futex_wait(&epoch_, epoch, deadline));
    if (page != nullptr) {
      page->end_sleep();
    } else {
      waiters_.fetch_sub(1, std::memory_order_relaxed);
    }
    if (done) return result;
    // Whether woken or timed out, the payload decides first: a wait whose
    // value arrived right at the deadline still succeeds.
    result = settle(payload(), value, &done);
    if (done) return result;
    if (!in_time) return deadline_exceeded_;
  }
}

void WaitableTimeline::on_changed(uint64_t) noexcept {
  if (waiters_.load(std::memory_order_seq_cst) == 0) return;
  epoch_.fetch_add(1, std::memory_order_seq_cst);
  futex_wake_all(&epoch_);
}

halo_status_t wait_timelines(Host host, halo_wait_mode_t mode, size_t count,
                             halo_semaphore_t* const* semaphores,
                             const uint64_t* values, halo_time_ns_t deadline,
                             TimelineOf timeline_of) noexcept {
  if (count == 1) {
    return timeline_of(semaphores[0]).wait(values[0], deadline);
  }
  TimelineSemaphores timelines(semaphores, timeline_of);
  return wait_semaphores(host, mode, count, values, deadline, timelines);
}

}  // namespace halo::sdk
