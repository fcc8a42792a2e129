// Pollable wait handles (halo/fence.h): an eventfd written once when every
// timepoint of a fence snapshot is reached or one fails, driven by one
// timepoint per semaphore, so no thread of libhalo's blocks for it.
#include <sys/eventfd.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "api_guard.hpp"
#include "check.hpp"
#include "fence.hpp"
#include "object_refs.hpp"

struct halo_wait_handle_t {};

namespace halo::loader {
namespace {

class WaitHandle {
 public:
  explicit WaitHandle(size_t count)
      : registrations_(std::make_unique<Registration[]>(count)),
        pending_(count + 1) {}
  WaitHandle(const WaitHandle&) = delete;
  WaitHandle& operator=(const WaitHandle&) = delete;

  // Cancels every registered timepoint (no callback runs once a cancel
  // returned), then drops the semaphores and the fd.
  ~WaitHandle() {
    for (size_t i = 0; i < registered_; ++i) {
      Registration& registration = registrations_[i];
      bool cancelled = false;
      halo_status_free(halo_semaphore_cancel_timepoint(
          registration.semaphore, &registration.timepoint, &cancelled));
      release_object(as_object(registration.semaphore));
    }
    if (fd_ >= 0) close(fd_);
    halo_status_free(failure_);
  }

  static WaitHandle* cast(halo_wait_handle_t* handle) noexcept {
    return reinterpret_cast<WaitHandle*>(handle);
  }
  halo_wait_handle_t* handle() noexcept {
    return reinterpret_cast<halo_wait_handle_t*>(this);
  }
  int fd() const noexcept { return fd_; }

  // Opens the eventfd and registers a timepoint on each of |timepoints|.
  // On an error the handle is left for the destructor to undo.
  halo_status_t start(const std::vector<FenceTimepoint>& timepoints,
                      const char* function) {
    fd_ = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (fd_ < 0) {
      const int error = errno;
      return halo_status_format(
          error == EMFILE || error == ENFILE || error == ENOMEM
              ? HALO_STATUS_RESOURCE_EXHAUSTED
              : HALO_STATUS_INTERNAL,
          "%s: eventfd: %s", function, std::strerror(error));
    }
    for (const FenceTimepoint& timepoint : timepoints) {
      Registration& registration = registrations_[registered_];
      registration.semaphore = timepoint.semaphore;
      registration.timepoint.struct_size = sizeof(halo_timepoint_t);
      registration.timepoint.value = timepoint.value;
      registration.timepoint.callback = &on_timepoint;
      registration.timepoint.user_data = this;
      retain_object(as_object(timepoint.semaphore));
      halo_status_t status = halo_semaphore_acquire_timepoint(
          timepoint.semaphore, &registration.timepoint);
      if (status != nullptr) {
        release_object(as_object(timepoint.semaphore));
        return status;
      }
      ++registered_;
    }
    // The count started one above the timepoints so that none could
    // settle the handle while others were still being registered.
    arrive();
    return nullptr;
  }

  halo_status_t status(bool* out_ready) {
    std::lock_guard<std::mutex> lock(mutex_);
    *out_ready = ready_;
    return failure_ != nullptr ? halo_status_clone(failure_) : nullptr;
  }

 private:
  struct Registration {
    halo_timepoint_t timepoint = {};
    halo_semaphore_t* semaphore = nullptr;
  };

  static void on_timepoint(void* user_data, halo_timepoint_t*,
                           halo_status_t status) {
    WaitHandle* self = static_cast<WaitHandle*>(user_data);
    if (status != nullptr) {
      self->settle(status);
    } else {
      self->arrive();
    }
  }

  void arrive() {
    if (pending_.fetch_sub(1, std::memory_order_acq_rel) == 1) settle(nullptr);
  }

  // Makes the handle ready with |failure| (NULL: reached), once; a later
  // failure is dropped. The callbacks never block: the eventfd is
  // non-blocking and written once, far below its counter's limit.
  void settle(halo_status_t failure) {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      if (ready_) {
        halo_status_free(failure);
        return;
      }
      ready_ = true;
      failure_ = failure;
    }
    const uint64_t one = 1;
    [[maybe_unused]] ssize_t written = write(fd_, &one, sizeof(one));
  }

  std::unique_ptr<Registration[]> registrations_;
  size_t registered_ = 0;
  int fd_ = -1;
  std::atomic<size_t> pending_;
  std::mutex mutex_;
  bool ready_ = false;            // Guarded by mutex_.
  halo_status_t failure_ = nullptr;  // Guarded by mutex_.
};

}  // namespace
}  // namespace halo::loader

using namespace halo::loader;

extern "C" {

halo_status_t halo_fence_create_wait_handle(halo_fence_t* fence,
                                            halo_wait_handle_t** out_handle) try {
  HALO_RETURN_IF_ERROR(check_object(fence, HALO_OBJECT_TYPE_FENCE,
                                    sizeof(halo_object_vtable_t), __func__,
                                    "fence"));
  if (out_handle == nullptr) return null_argument(__func__, "out_handle");
  *out_handle = nullptr;
  const std::vector<FenceTimepoint> timepoints = Fence::cast(fence)->snapshot();
  auto handle = std::make_unique<WaitHandle>(timepoints.size());
  HALO_RETURN_IF_ERROR(handle->start(timepoints, __func__));
  *out_handle = handle.release()->handle();
  return nullptr;
}
HALO_API_CATCH_ALL

int halo_wait_handle_fd(const halo_wait_handle_t* handle) {
  if (handle == nullptr) return -1;
  return WaitHandle::cast(const_cast<halo_wait_handle_t*>(handle))->fd();
}

halo_status_t halo_wait_handle_status(halo_wait_handle_t* handle,
                                      bool* out_ready) try {
  if (handle == nullptr) return null_argument(__func__, "handle");
  if (out_ready == nullptr) return null_argument(__func__, "out_ready");
  return WaitHandle::cast(handle)->status(out_ready);
}
HALO_API_CATCH_ALL

void halo_wait_handle_destroy(halo_wait_handle_t* handle) {
  delete WaitHandle::cast(handle);
}

}  // extern "C"
