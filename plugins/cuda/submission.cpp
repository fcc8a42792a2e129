// One queue_execute of the cuda plugin (see submission.hpp).
#include "submission.hpp"

#include "command_buffer.hpp"
#include "device.hpp"
#include "device_wait.hpp"
#include "semaphore.hpp"

namespace halo::cuda {
Submission::Extra Submission::plan_extra(sdk::AllocationPlan& plan,
                                         const sdk::SubmissionLists& lists) {
  Extra extra;
  extra.chained_waits = plan.reserve<bool>(lists.waits.count);
  extra.device_waits = plan.reserve<bool>(lists.waits.count);
  return extra;
}

Submission* Submission::create(Device* device,
                               sdk::ReturnedAllocations* recycled,
                               const halo_queue_execute_info_t& info) {
  return sdk::Submission::create<Submission>(
      device->host, recycled, device->handle(), sdk::SubmissionLists::of(info),
      device);
}

Submission::Submission(const Init& init, const Extra& extra,
                       Device* device) noexcept
    : sdk::Submission(init),
      device_(device),
      chained_waits_(init.at<bool>(extra.chained_waits)),
      device_waits_(init.at<bool>(extra.device_waits)) {
  for (size_t i = 0; i < wait_count(); ++i) {
    chained_waits_[i] = false;
    device_waits_[i] = false;
  }
}

void Submission::resolve_waits() noexcept {
  for (size_t i = 0; i < wait_count(); ++i) {
    halo_semaphore_t* semaphore = wait(i).semaphore;
    const uint64_t value = wait(i).value;
    DeviceWaitSemaphore* import = DeviceWaitSemaphore::from(semaphore);
    if (import != nullptr && import->device == device_) {
      device_waits_[i] = true;
      set_native(i);
      continue;
    }
    // Another device's import for device waits stays host-side: its
    // timepoint is refused, which fails the submission (external.h).
    uint64_t current = 0;
    halo_status_t status =
        sdk::semaphore_vtable(semaphore)->query(semaphore, &current);
    if (status == HALO_OK && current >= value) {
      set_native(i);  // Reached: nothing to wait for.
      continue;
    }
    host().free(status);
    // A failed semaphore stays host-side: its timepoint fails at once.
    Semaphore* own = Semaphore::from(semaphore);
    if (status == HALO_OK && own != nullptr && own->device == device_ &&
        own->issued_reaches(device_->stream, value)) {
      chained_waits_[i] = true;
      set_native(i);
    }
  }
}

bool Submission::issue() noexcept {
  for (size_t i = 0; i < wait_count(); ++i) {
    if (!device_waits_[i]) continue;
    halo_status_t status = DeviceWaitSemaphore::cast(wait(i).semaphore)
                               ->enqueue_wait(device_->stream, wait(i).value);
    if (status != HALO_OK) {
      record_failure(status);
      return false;
    }
  }
  for (size_t i = 0; i < command_buffer_count(); ++i) {
    halo_status_t status =
        CommandBuffer::cast(command_buffer(i))->issue(device_->stream);
    if (status != HALO_OK) {
      record_failure(status);
      return false;
    }
  }
  for (size_t i = 0; i < signal_count(); ++i) {
    Semaphore* own = Semaphore::from(signal(i).semaphore);
    if (own != nullptr && own->device == device_) {
      own->note_issued(device_->stream, signal(i).value);
    }
  }
  return true;
}

void Submission::check_work(halo_status_t device_status) noexcept {
  if (device_status != HALO_OK) record_failure(host().clone(device_status));
  for (size_t i = 0; i < wait_count(); ++i) {
    if (!chained_waits_[i]) continue;
    // The signaller completed before this submission on the same worker:
    // the semaphore has reached the value, or failed.
    Semaphore* own = Semaphore::cast(wait(i).semaphore);
    halo_status_t status =
        own->timeline.wait(wait(i).value, HALO_DEADLINE_INFINITE_PAST);
    if (status != HALO_OK) record_failure(status);
  }
}

}  // namespace halo::cuda
