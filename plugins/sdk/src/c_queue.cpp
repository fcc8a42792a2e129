// halo/sdk/c/queue.h over the SDK's submission core, in-flight tracker and
// completion worker.
//
// The worker sees each submission twice: once ready (a failed one is
// finished at once, any other goes to the plugin's submit hook), and once
// completed (halo_sdk_submission_complete posts it back), when it signals
// or fails the signals, releases everything and goes.
#include "halo/sdk/c/queue.h"

#include "halo/sdk/completion_worker.hpp"
#include "halo/sdk/host_semaphore.hpp"
#include "halo/sdk/in_flight_tracker.hpp"
#include "halo/sdk/returned_allocations.hpp"
#include "halo/sdk/submission.hpp"

namespace halo::sdk {
namespace {

class CQueue;

class CSubmission final : public Submission {
 public:
  CSubmission(const Init& init, CQueue* queue) noexcept
      : Submission(init), queue(queue) {}

  halo_sdk_submission_t* handle() noexcept {
    return reinterpret_cast<halo_sdk_submission_t*>(this);
  }
  static CSubmission* from(halo_sdk_submission_t* handle) noexcept {
    return reinterpret_cast<CSubmission*>(handle);
  }

  CQueue* const queue;
  // Set on the worker when the submit hook has it.
  bool submitted = false;
};

class CQueue {
 public:
  CQueue(Host host, const halo_sdk_queue_hooks_t& hooks) noexcept
      : host_(host),
        hooks_(hooks),
        returned_allocations_(host),
        worker_(&CQueue::process, this, std::chrono::nanoseconds(0),
                /*poll=*/nullptr, &CQueue::on_idle) {}

  static halo_status_t create(Host host, const halo_sdk_queue_hooks_t& hooks,
                              halo_sdk_queue_t** out_queue) noexcept {
    return guard(host, [&] {
      CQueue* queue = host.make<CQueue>(host, hooks);
      try {
        queue->worker_.start();
      } catch (...) {
        host.destroy(queue);
        throw;
      }
      *out_queue = reinterpret_cast<halo_sdk_queue_t*>(queue);
    });
  }

  static void destroy(CQueue* queue) noexcept {
    if (queue == nullptr) return;
    queue->worker_.stop();
    Host host = queue->host_;
    host.destroy(queue);
  }

  halo_status_t execute(halo_device_t* device,
                        const halo_queue_execute_info_t& info) noexcept {
    halo_status_t status = check_single_queue_affinity(host_, info);
    if (status == HALO_OK) status = claim(info);
    if (status != HALO_OK) return status;
    CSubmission* submission = nullptr;
    status = guard(host_, [&] {
      submission =
          Submission::create<CSubmission>(host_, &returned_allocations_, device,
                                          SubmissionLists::of(info), this);
    });
    if (status != HALO_OK) {
      if (hooks_.unclaim != nullptr) hooks_.unclaim(hooks_.context, &info);
      return status;
    }
    in_flight_.track(submission);
    if (submission->register_waits(&CQueue::on_ready)) on_ready(submission);
    return HALO_OK;
  }

  halo_status_t wait_idle(halo_time_ns_t deadline) noexcept {
    return in_flight_.wait_idle(host_, deadline);
  }

  void post(CSubmission* submission) noexcept { worker_.post(submission); }

 private:
  halo_status_t claim(const halo_queue_execute_info_t& info) noexcept {
    if (hooks_.claim != nullptr) return hooks_.claim(hooks_.context, &info);
    if (info.command_buffer_count == 0) return HALO_OK;
    return host_.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                  "halo_device_queue_execute: "
                                  "info->command_buffers[0] is not a command "
                                  "buffer of this device");
  }

  static void on_ready(Submission* submission) noexcept {
    if (submission->failure() == HALO_OK) commit_queue_signals(*submission);
    auto* own = static_cast<CSubmission*>(submission);
    own->queue->post(own);
  }

  static void process(void* self, Submission* base) noexcept {
    auto* queue = static_cast<CQueue*>(self);
    auto* submission = static_cast<CSubmission*>(base);
    if (!submission->submitted && submission->failure() == HALO_OK &&
        queue->hooks_.submit != nullptr) {
      submission->submitted = true;
      // The list stays valid until this worker finishes the submission,
      // which it cannot do before the hook returns.
      queue->hooks_.submit(queue->hooks_.context, submission->handle(),
                           submission->command_buffers(),
                           submission->command_buffer_count());
      return;
    }
    submission->complete();
    queue->in_flight_.retire(submission);
    // Possibly the device's last reference, which destroys this queue.
    Submission::destroy(submission, &queue->returned_allocations_);
  }

  static void on_idle(void* self) noexcept {
    static_cast<CQueue*>(self)->returned_allocations_.free_all();
  }

  Host host_;
  const halo_sdk_queue_hooks_t hooks_;
  InFlightTracker in_flight_;
  // Finished submissions' memory, freed by the next submitting thread or
  // the idle worker; before the worker, so destroyed after it has stopped.
  ReturnedAllocations returned_allocations_;
  CompletionWorker worker_;
};

}  // namespace
}  // namespace halo::sdk

using halo::sdk::CQueue;
using halo::sdk::CSubmission;

halo_status_t halo_sdk_queue_create(const halo_host_interface_t* host,
                                    const halo_sdk_queue_hooks_t* hooks,
                                    halo_sdk_queue_t** out_queue) {
  return CQueue::create(halo::sdk::Host(host), *hooks, out_queue);
}

void halo_sdk_queue_destroy(halo_sdk_queue_t* queue) {
  CQueue::destroy(reinterpret_cast<CQueue*>(queue));
}

halo_status_t halo_sdk_queue_execute(halo_sdk_queue_t* queue,
                                     halo_device_t* device,
                                     const halo_queue_execute_info_t* info) {
  return reinterpret_cast<CQueue*>(queue)->execute(device, *info);
}

halo_status_t halo_sdk_queue_wait_idle(halo_sdk_queue_t* queue,
                                       halo_time_ns_t deadline) {
  return reinterpret_cast<CQueue*>(queue)->wait_idle(deadline);
}

void halo_sdk_submission_complete(halo_sdk_submission_t* handle,
                                  halo_status_t status) {
  CSubmission* submission = CSubmission::from(handle);
  if (status != HALO_OK) submission->record_failure(status);
  submission->queue->post(submission);
}
