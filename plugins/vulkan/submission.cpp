// Submissions: one allocation, wait counting and the timepoint callbacks.
#include "submission.hpp"

#include <limits>
#include <new>

#include "command_buffer.hpp"
#include "device.hpp"
#include "queue.hpp"

namespace halo::vk {
namespace {

constexpr uint64_t kFailed = 1;
constexpr uint64_t kRegisteringBit = 2;
constexpr unsigned kWaitShift = 2;
constexpr uint64_t kWaitOne = uint64_t{1} << kWaitShift;

// Lays the submission and its arrays out in one allocation.
class Planner {
 public:
  explicit Planner(size_t start) : total_(start) {}
  template <class T>
  size_t reserve(size_t count) {
    constexpr size_t limit = std::numeric_limits<size_t>::max() / 4;
    if (count > limit / sizeof(T)) throw std::bad_alloc();
    size_t start = (total_ + alignof(T) - 1) & ~(alignof(T) - 1);
    if (start > limit - count * sizeof(T)) throw std::bad_alloc();
    total_ = start + count * sizeof(T);
    return start;
  }
  size_t total() const { return total_; }

 private:
  size_t total_;
};

template <class T>
T* at(void* base, size_t offset) {
  return reinterpret_cast<T*>(static_cast<char*>(base) + offset);
}

}  // namespace

Submission::Submission(Device* device, void* allocation) noexcept
    : host_(device->host), device_(device), allocation_(allocation) {
  device->retain();
}

Submission::~Submission() {
  release_resources();
  for (size_t i = 0; i < wait_count; ++i) waits[i].~Wait();
  host_.free(failure_.load(std::memory_order_acquire));
  device_->release();
}

Submission* Submission::create(Device* device,
                               const halo_queue_execute_info_t& info,
                               CommandBuffer* const* command_buffers) {
  const size_t waits = info.wait_count;
  const size_t signals = info.signal_count;
  const size_t buffers = info.command_buffer_count;
  Planner planner(sizeof(Submission));
  size_t wait_offset = planner.reserve<Wait>(waits);
  size_t signal_offset = planner.reserve<Signal>(signals);
  size_t buffer_offset = planner.reserve<CommandBuffer*>(buffers);
  size_t vk_wait_offset = planner.reserve<VkSemaphore>(waits);
  size_t vk_wait_value_offset = planner.reserve<uint64_t>(waits);
  size_t vk_stage_offset = planner.reserve<VkPipelineStageFlags>(waits);
  size_t vk_signal_offset = planner.reserve<VkSemaphore>(signals + 1);
  size_t vk_signal_value_offset = planner.reserve<uint64_t>(signals + 1);
  size_t vk_buffer_offset = planner.reserve<VkCommandBuffer>(buffers);
  void* memory = device->host.allocate(planner.total(), alignof(Submission));
  if (memory == nullptr) throw std::bad_alloc();
  auto* submission = ::new (memory) Submission(device, memory);
  submission->wait_count = waits;
  submission->waits = at<Wait>(memory, wait_offset);
  for (size_t i = 0; i < waits; ++i) ::new (&submission->waits[i]) Wait();
  submission->signal_count = signals;
  submission->signals = at<Signal>(memory, signal_offset);
  submission->command_buffer_count = buffers;
  submission->command_buffers = at<CommandBuffer*>(memory, buffer_offset);
  submission->vk_wait_semaphores = at<VkSemaphore>(memory, vk_wait_offset);
  submission->vk_wait_values = at<uint64_t>(memory, vk_wait_value_offset);
  submission->vk_wait_stages =
      at<VkPipelineStageFlags>(memory, vk_stage_offset);
  submission->vk_signal_semaphores = at<VkSemaphore>(memory, vk_signal_offset);
  submission->vk_signal_values = at<uint64_t>(memory, vk_signal_value_offset);
  submission->vk_command_buffers =
      at<VkCommandBuffer>(memory, vk_buffer_offset);
  submission->fill(info, command_buffers);
  return submission;
}

void Submission::fill(const halo_queue_execute_info_t& info,
                      CommandBuffer* const* buffers) noexcept {
  for (size_t i = 0; i < wait_count; ++i) {
    Wait& wait = waits[i];
    wait.owner = this;
    wait.semaphore = info.wait_semaphores[i];
    wait.value = info.wait_values[i];
    wait.own = device_->owns(wait.semaphore);
    host_.retain(sdk::as_object(wait.semaphore));
    wait.timepoint.struct_size = sizeof(halo_timepoint_t);
    wait.timepoint.value = wait.value;
    wait.timepoint.callback = &Submission::on_timepoint;
    wait.timepoint.user_data = &wait;
  }
  for (size_t i = 0; i < signal_count; ++i) {
    Signal& signal = signals[i];
    signal = Signal{};
    signal.semaphore = info.signal_semaphores[i];
    signal.value = info.signal_values[i];
    signal.own = device_->owns(signal.semaphore);
    host_.retain(sdk::as_object(signal.semaphore));
  }
  for (size_t i = 0; i < command_buffer_count; ++i) {
    command_buffers[i] = buffers[i];
    host_.retain(buffers[i]->object());
    vk_command_buffers[i] = buffers[i]->vk_command_buffer();
  }
}

void Submission::destroy(Submission* submission) noexcept {
  if (submission == nullptr) return;
  // The destructor's release_resources finishes the waits, if nothing did.
  sdk::Host host = submission->host_;
  void* allocation = submission->allocation_;
  submission->~Submission();
  host.deallocate(allocation);
}

void Submission::release_resources() noexcept {
  if (!resources_held_) return;
  resources_held_ = false;
  // A wait's callback may still be on its way out on the thread that
  // signalled it (its last touch, done = 1, comes after it made the
  // submission ready, and the work may have completed since): wait for it
  // while the semaphore is still held, since this reference may be its
  // last.
  finish_waits();
  for (size_t i = 0; i < wait_count; ++i) {
    host_.release(sdk::as_object(waits[i].semaphore));
  }
  for (size_t i = 0; i < signal_count; ++i) {
    host_.release(sdk::as_object(signals[i].semaphore));
  }
  for (size_t i = 0; i < command_buffer_count; ++i) {
    host_.release(command_buffers[i]->object());
  }
}

bool Submission::settle(uint64_t remove, uint64_t add) noexcept {
  auto ready = [](uint64_t state) {
    return (state & kRegisteringBit) == 0 &&
           ((state >> kWaitShift) == 0 || (state & kFailed) != 0);
  };
  uint64_t old_state = state_.load(std::memory_order_acquire);
  uint64_t new_state;
  do {
    new_state = (old_state - remove) | add;
  } while (!state_.compare_exchange_weak(old_state, new_state,
                                         std::memory_order_acq_rel,
                                         std::memory_order_acquire));
  return !ready(old_state) && ready(new_state);
}

bool Submission::register_waits() noexcept {
  size_t pending = 0;
  for (size_t i = 0; i < wait_count; ++i) {
    if (waits[i].state.load(std::memory_order_relaxed) != kNative) ++pending;
  }
  state_.fetch_add(static_cast<uint64_t>(pending) << kWaitShift,
                   std::memory_order_acq_rel);
  for (size_t i = 0; i < wait_count; ++i) {
    Wait& wait = waits[i];
    if (wait.state.load(std::memory_order_relaxed) != kRegistering) continue;
    wait.done.store(0, std::memory_order_relaxed);
    halo_semaphore_t* semaphore = wait.semaphore;
    halo_status_t status = sdk::semaphore_vtable(semaphore)->acquire_timepoint(
        semaphore, &wait.timepoint);
    if (status != HALO_OK) {
      record_failure(host_.annotate(status, "register wait timepoint"));
      wait.state.store(kSettled, std::memory_order_release);
      wait.done.store(1, std::memory_order_release);
      settle(kWaitOne, kFailed);
      continue;
    }
    uint32_t expected = kRegistering;
    wait.state.compare_exchange_strong(expected, kRegistered,
                                       std::memory_order_acq_rel);
  }
  return settle(kRegisteringBit, 0);
}

void Submission::on_timepoint(void* user_data, halo_timepoint_t*,
                              halo_status_t status) noexcept {
  auto* wait = static_cast<Wait*>(user_data);
  Submission* self = wait->owner;
  wait->state.store(kSettled, std::memory_order_release);
  bool failed = status != HALO_OK;
  if (failed) self->record_failure(status);
  if (self->settle(kWaitOne, failed ? kFailed : 0)) {
    self->device_->queue->start_ready(self);
  }
  // The last touch: destroy (and the failure path) cancels every wait not
  // marked done, and a cancel waits for a callback still running on another
  // thread, so the submission outlives this store.
  wait->done.store(1, std::memory_order_release);
}

bool Submission::convert_to_native(Wait* wait) noexcept {
  if (wait->state.load(std::memory_order_acquire) != kRegistered) return false;
  halo_semaphore_t* semaphore = wait->semaphore;
  if (!sdk::semaphore_vtable(semaphore)->cancel_timepoint(semaphore,
                                                          &wait->timepoint)) {
    return false;  // The callback ran and settled the wait itself.
  }
  wait->state.store(kNative, std::memory_order_release);
  wait->done.store(1, std::memory_order_release);
  return settle(kWaitOne, 0);
}

void Submission::record_failure(halo_status_t status) noexcept {
  halo_status_t expected = nullptr;
  if (!failure_.compare_exchange_strong(expected, status,
                                        std::memory_order_acq_rel,
                                        std::memory_order_acquire)) {
    host_.free(status);
  }
}

void Submission::finish_waits() noexcept {
  for (size_t i = 0; i < wait_count; ++i) {
    if (waits[i].done.load(std::memory_order_acquire) != 0) continue;
    halo_semaphore_t* semaphore = waits[i].semaphore;
    sdk::semaphore_vtable(semaphore)->cancel_timepoint(semaphore,
                                                       &waits[i].timepoint);
    // Its callback has returned or never will: nothing more to wait for.
    waits[i].done.store(1, std::memory_order_release);
  }
}

void Submission::fail_signals(halo_status_t status) noexcept {
  for (size_t i = 0; i < signal_count; ++i) {
    halo_semaphore_t* semaphore = signals[i].semaphore;
    sdk::semaphore_vtable(semaphore)->fail(semaphore, host_.clone(status));
  }
}

}  // namespace halo::vk
