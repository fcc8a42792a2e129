/* halo-event-loop: device work awaited from an epoll loop, with no thread
 * blocked in halo.
 *
 * Every device with queues (of every plugin found) gets one submission per
 * frame, all made up front: each waits for the frame's value on one host
 * gate and signals it on a semaphore of its own device. A fence per frame
 * joins those signals across the devices and plugins, and its wait handle
 * (halo/fence.h) is an fd in the loop's epoll set beside a timerfd. Each
 * timer tick opens the gate for the next frame; each readable wait handle
 * is a finished frame. The loop never calls a blocking halo function;
 * only the shutdown waits for the devices to be idle. */
#define _POSIX_C_SOURCE 200809L  /* CLOCK_MONOTONIC under strict C11 */

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "halo/halo.h"

enum { kFrames = 8, kMaxDevices = 8 };
/* A loop turn that sees no event for this long means lost work. */
enum { kStallMs = 10000 };

static bool report(halo_status_t status, const char* what) {
  if (status == NULL) return false;
  fprintf(stderr, "halo-event-loop: %s failed: %s: %s\n", what,
          halo_status_code_name(halo_status_code(status)),
          halo_status_message(status));
  halo_status_free(status);
  return true;
}

/* Opens every device that has queues, up to kMaxDevices. */
static size_t open_queue_devices(halo_registry_t* registry,
                                 halo_device_t** devices) {
  size_t count = 0;
  size_t opened = 0;
  if (report(halo_registry_device_count(registry, &count), "device count")) {
    return 0;
  }
  for (size_t i = 0; i < count && opened < kMaxDevices; ++i) {
    halo_device_t* device = NULL;
    if (report(halo_registry_create_device(registry, i, NULL, &device),
               "create device")) {
      continue;
    }
    halo_device_capabilities_t caps = {.struct_size = sizeof(caps)};
    halo_device_info_t info = {.struct_size = sizeof(info)};
    if (!report(halo_device_query_capabilities(device, &caps), "capabilities") &&
        !report(halo_device_query_info(device, &info), "info") &&
        (caps.features & HALO_DEVICE_FEATURE_QUEUES) != 0) {
      printf("halo-event-loop: device %zu: %s\n", opened, info.name);
      devices[opened++] = device;
    } else {
      halo_device_release(device);
    }
  }
  return opened;
}

/* Submits frame |frame| on every device (waiting on |gate|) and returns a
 * wait handle for the fence of their signals, or NULL on an error. */
static halo_wait_handle_t* submit_frame(halo_device_t** devices, size_t count,
                                        halo_semaphore_t* gate,
                                        halo_semaphore_t** done,
                                        uint64_t frame) {
  halo_fence_t* frame_done = NULL;
  halo_wait_handle_t* handle = NULL;
  bool ok = !report(halo_fence_create(&frame_done), "fence");
  for (size_t d = 0; ok && d < count; ++d) {
    /* Behind the gate, and behind the device's previous frame: only
     * semaphores order submissions, and done[d] must reach each frame's
     * value in turn. */
    halo_fence_t* waits = NULL;
    halo_fence_t* signal = NULL;
    ok = !report(halo_fence_create(&waits), "fence") &&
         !report(halo_fence_insert(waits, gate, frame), "insert") &&
         (frame == 1 || !report(halo_fence_insert(waits, done[d], frame - 1), "insert")) &&
         !report(halo_fence_create(&signal), "fence") &&
         !report(halo_fence_insert(signal, done[d], frame), "insert") &&
         !report(halo_device_queue_execute_fences(devices[d],
                                                  HALO_QUEUE_AFFINITY_ANY, waits,
                                                  signal, 0, NULL),
                 "submit") &&
         !report(halo_fence_join(frame_done, signal), "join");
    halo_fence_release(signal);
    halo_fence_release(waits);
  }
  if (ok) {
    report(halo_fence_create_wait_handle(frame_done, &handle), "wait handle");
  }
  halo_fence_release(frame_done);
  return handle;
}

/* Runs the loop until every frame's handle was readable; returns the
 * number of frames that finished without a failure. */
static int run_loop(int epoll_fd, int timer_fd, halo_semaphore_t* gate,
                    halo_wait_handle_t** handles) {
  uint64_t opened = 0;
  int finished = 0;
  int succeeded = 0;
  while (finished < kFrames) {
    struct epoll_event events[4];
    const int ready = epoll_wait(epoll_fd, events, 4, kStallMs);
    if (ready <= 0) {
      fprintf(stderr, "halo-event-loop: no event for %d ms\n", kStallMs);
      return succeeded;
    }
    for (int i = 0; i < ready; ++i) {
      if (events[i].data.u64 == 0) {
        uint64_t ticks = 0;
        if (read(timer_fd, &ticks, sizeof(ticks)) < 0) continue;
        if (opened < kFrames) {
          ++opened;
          report(halo_semaphore_signal(gate, opened), "open the gate");
        }
        continue;
      }
      const uint64_t frame = events[i].data.u64;
      halo_wait_handle_t* handle = handles[frame - 1];
      bool settled = false;
      const bool failed = report(halo_wait_handle_status(handle, &settled),
                                 "frame");
      if (!settled) continue;
      printf("halo-event-loop: frame %" PRIu64 " %s\n", frame,
             failed ? "failed" : "done on every device");
      epoll_ctl(epoll_fd, EPOLL_CTL_DEL, halo_wait_handle_fd(handle), NULL);
      halo_wait_handle_destroy(handle);
      handles[frame - 1] = NULL;
      ++finished;
      if (!failed) ++succeeded;
    }
  }
  return succeeded;
}

int main(void) {
  halo_registry_t* registry = NULL;
  if (report(halo_registry_create(NULL, &registry), "registry")) return 1;
  halo_device_t* devices[kMaxDevices] = {0};
  halo_semaphore_t* done[kMaxDevices] = {0};
  halo_wait_handle_t* handles[kFrames] = {0};
  halo_semaphore_t* gate = NULL;
  const size_t count = open_queue_devices(registry, devices);
  int epoll_fd = epoll_create1(EPOLL_CLOEXEC);
  int timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
  int succeeded = -1;
  bool ok = count > 0 && epoll_fd >= 0 && timer_fd >= 0 &&
            !report(halo_semaphore_create(devices[0], 0,
                                          HALO_SEMAPHORE_FLAG_NONE, &gate),
                    "gate");
  for (size_t d = 0; ok && d < count; ++d) {
    ok = !report(halo_semaphore_create(devices[d], 0, HALO_SEMAPHORE_FLAG_NONE,
                                       &done[d]),
                 "semaphore");
  }
  for (uint64_t frame = 1; ok && frame <= kFrames; ++frame) {
    handles[frame - 1] = submit_frame(devices, count, gate, done, frame);
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = frame};
    ok = handles[frame - 1] != NULL &&
         epoll_ctl(epoll_fd, EPOLL_CTL_ADD,
                   halo_wait_handle_fd(handles[frame - 1]), &event) == 0;
  }
  if (ok) {
    /* A tick every millisecond releases the next frame. */
    const struct itimerspec period = {{0, 1000000}, {0, 1000000}};
    struct epoll_event event = {.events = EPOLLIN, .data.u64 = 0};
    ok = timerfd_settime(timer_fd, 0, &period, NULL) == 0 &&
         epoll_ctl(epoll_fd, EPOLL_CTL_ADD, timer_fd, &event) == 0;
  }
  if (ok) succeeded = run_loop(epoll_fd, timer_fd, gate, handles);
  if (count == 0) fprintf(stderr, "halo-event-loop: no device with queues\n");
  /* Whatever did not finish is failed, so that its submissions drain. */
  if (gate != NULL && succeeded != kFrames) {
    report(halo_semaphore_fail(gate, halo_status_create(HALO_STATUS_CANCELLED,
                                                        "halo-event-loop: stopped")),
           "fail the gate");
  }
  for (int f = 0; f < kFrames; ++f) halo_wait_handle_destroy(handles[f]);
  for (size_t d = 0; d < count; ++d) {
    report(halo_device_wait_idle(devices[d], HALO_DEADLINE_INFINITE_FUTURE),
           "wait idle");
    halo_semaphore_release(done[d]);
  }
  halo_semaphore_release(gate);
  for (size_t d = 0; d < count; ++d) halo_device_release(devices[d]);
  halo_registry_release(registry);
  if (timer_fd >= 0) close(timer_fd);
  if (epoll_fd >= 0) close(epoll_fd);
  if (succeeded != kFrames) return 1;
  printf("halo-event-loop: OK (%d frames on %zu devices)\n", kFrames, count);
  return 0;
}
