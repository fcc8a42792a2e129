#include "halo/sdk/host_semaphore.hpp"

#include <unistd.h>

#include "halo/sdk/external.hpp"
#include "halo/sdk/semaphore_vtable.hpp"

namespace halo::sdk {

HostSemaphore::HostSemaphore(Host host, halo_device_t* device,
                             uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&kSemaphoreVtable<HostSemaphore>)),
      host(host),
      device(device),
      timeline(host, initial_value) {
  host.retain(as_object(device));
}

HostSemaphore::~HostSemaphore() {
  host.destroy(shared);
  host.release(as_object(device));
}

void HostSemaphore::share(SharedTimeline* page) {
  shared = page;
  timeline.share(page);
  page->watch(
      [](void* owner) noexcept {
        static_cast<HostSemaphore*>(owner)->timeline.changed_elsewhere();
      },
      [](void* owner) noexcept {
        HostSemaphore* self = static_cast<HostSemaphore*>(owner);
        self->host.destroy(self);
      },
      [](void* owner) noexcept {
        return static_cast<HostSemaphore*>(owner)->timeline.pending_timepoints() != 0;
      },
      this);
}

halo_status_t HostSemaphore::create(Host host, halo_device_t* device,
                                    uint64_t initial_value,
                                    halo_semaphore_t** out_semaphore,
                                    halo_semaphore_flags_t flags) noexcept {
  SharedTimeline* page = nullptr;
  if (flags & HALO_SEMAPHORE_FLAG_EXPORTABLE) {
    halo_status_t status = SharedTimeline::create(host, "halo_semaphore_create",
                                                  initial_value, &page);
    if (status != HALO_OK) return status;
  }
  HostSemaphore* semaphore = nullptr;
  halo_status_t status = guard(host, [&] {
    semaphore = host.make<HostSemaphore>(host, device, initial_value);
  });
  if (status != HALO_OK) {
    host.destroy(page);
    return status;
  }
  if (page != nullptr) {
    status = guard(host, [&] { semaphore->share(page); });
    if (status != HALO_OK) {
      host.destroy(semaphore);
      return status;
    }
  }
  *out_semaphore = semaphore->handle();
  return HALO_OK;
}

halo_status_t HostSemaphore::import(Host host, halo_device_t* device,
                                    const halo_external_handle_t* handle,
                                    halo_semaphore_t** out_semaphore) noexcept {
  SharedTimeline* page = nullptr;
  halo_status_t status =
      SharedTimeline::open(host, "halo_semaphore_import", handle->fd, &page);
  if (status != HALO_OK) return status;
  HostSemaphore* semaphore = nullptr;
  status = guard(
      host, [&] { semaphore = host.make<HostSemaphore>(host, device, 0); });
  if (status != HALO_OK) {
    host.destroy(page);
    return status;
  }
  status = guard(host, [&] { semaphore->share(page); });
  if (status != HALO_OK) {
    host.destroy(semaphore);
    return status;
  }
  // The import succeeded, so the fd is ours; the mapping outlives it.
  close(handle->fd);
  *out_semaphore = semaphore->handle();
  return HALO_OK;
}

namespace {

// The types |device|, whose semaphores are HostSemaphores, reports that it
// exports them as: a plugin may build on these semaphores and export none.
halo_external_handle_type_t export_types_of(Host host, halo_device_t* device) {
  const auto* vtable =
      reinterpret_cast<const halo_device_vtable_t*>(as_object(device)->vtable);
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  halo_status_t status = vtable->query_capabilities(device, &caps);
  if (status != HALO_OK) {
    host.free(status);
    return 0;
  }
  return caps.semaphore_export_types & HostSemaphore::kShareTypes;
}

}  // namespace

halo_status_t HostSemaphore::export_handle(
    halo_external_handle_type_t type,
    halo_external_handle_t* out_handle) noexcept {
  static const char kFunction[] = "halo_semaphore_export";
  const bool exportable = shared != nullptr && shared->exportable();
  halo_status_t status = check_export(host, kFunction, "semaphore", exportable,
                                      export_types_of(host, device), type);
  if (status != HALO_OK) return status;
  int fd = -1;
  status = shared->export_fd(host, kFunction, &fd);
  if (status != HALO_OK) return status;
  return fill_fd_handle(host, kFunction, "fcntl(F_DUPFD_CLOEXEC)", type, fd, 0,
                        out_handle);
}

void HostSemaphore::destroy(HostSemaphore* semaphore) noexcept {
  if (semaphore->shared != nullptr && semaphore->shared->on_watcher_thread()) {
    semaphore->shared->release_owner_after_change();
    return;
  }
  Host host = semaphore->host;
  host.destroy(semaphore);
}

bool HostSemaphore::is(halo_semaphore_t* semaphore) noexcept {
  return is_semaphore_of<HostSemaphore>(semaphore);
}

void commit_queue_signals(Submission& submission) noexcept {
  for (size_t i = 0; i < submission.signal_count(); ++i) {
    const Submission::Signal& signal = submission.signal(i);
    if (!HostSemaphore::is(signal.semaphore)) continue;
    std::atomic<uint64_t>& committed =
        HostSemaphore::cast(signal.semaphore)->committed;
    uint64_t current = committed.load(std::memory_order_relaxed);
    while (current < signal.value &&
           !committed.compare_exchange_weak(current, signal.value,
                                            std::memory_order_release,
                                            std::memory_order_relaxed)) {
    }
  }
}

halo_status_t wait_host_semaphores(Host host, halo_wait_mode_t mode,
                                   size_t count,
                                   halo_semaphore_t* const* semaphores,
                                   const uint64_t* values,
                                   halo_time_ns_t deadline) noexcept {
  return wait_timelines(
      host, mode, count, semaphores, values, deadline,
      [](halo_semaphore_t* semaphore) noexcept -> WaitableTimeline& {
        return HostSemaphore::cast(semaphore)->timeline;
      });
}

}  // namespace halo::sdk
