#include "raw_retirer.hpp"

#include "checks.hpp"

namespace halo::bench {

RawRetirer::RawRetirer() : slots_(kSlots), thread_([this] { run(); }) {}

RawRetirer::~RawRetirer() {
  // No event: the thread's sign to stop, after the events before it.
  retire(nullptr);
  thread_.join();
}

void RawRetirer::retire(cl_event event) {
  const uint64_t pushed = pushed_.load(std::memory_order_relaxed);
  for (uint64_t retired = retired_.load(std::memory_order_acquire);
       pushed - retired == kSlots;
       retired = retired_.load(std::memory_order_acquire)) {
    retired_.wait(retired, std::memory_order_acquire);
  }
  slots_[pushed % kSlots] = event;
  pushed_.store(pushed + 1, std::memory_order_release);
  pushed_.notify_one();
}

void RawRetirer::run() {
  uint64_t retired = 0;
  for (;;) {
    const uint64_t pushed = pushed_.load(std::memory_order_acquire);
    if (retired == pushed) {
      pushed_.wait(pushed, std::memory_order_acquire);
      continue;
    }
    cl_event event = slots_[retired % kSlots];
    if (event == nullptr) return;
    check_cl(clWaitForEvents(1, &event), "clWaitForEvents");
    check_cl(clReleaseEvent(event), "clReleaseEvent");
    retired_.store(++retired, std::memory_order_release);
    retired_.notify_one();
  }
}

}  // namespace halo::bench
