// A timeline shared through a HOST_TIMELINE_FD (external_handle.h, ABI 1.6):
// the halo_host_timeline_t page every sharer maps, and the thread that
// carries what other sharers write there into this process's timeline.
//
// The page's payload word is the local timeline's payload (Timeline::share),
// so a query or a host wait on any side sees every side's signal at once.
// Timepoints and sleeping host waiters are process-local: after each local
// change the timeline announces it on the page, and each sharer's watcher
// thread, woken by another's announcement, has its own timeline release
// what the payload reached. A watcher announces nothing, so sharers never
// echo each other. A host waiter sleeps on the page itself (begin_sleep),
// so that another sharer's change wakes it without the watcher between;
// and the watcher sleeps on the page only while its timeline has
// timepoints pending, so a change nobody here awaits wakes nobody here.
#ifndef HALO_SDK_SHARED_TIMELINE_HPP_
#define HALO_SDK_SHARED_TIMELINE_HPP_

#include <atomic>
#include <cstdint>
#include <memory>

#include "halo/deadline.h"
#include "halo/external_handle.h"
#include "halo/sdk/host.hpp"
#include "halo/sdk/plugin_threads.hpp"

namespace halo::sdk {

class SharedTimeline {
 public:
  // Called on the watcher thread with the owner given to watch.
  using OwnerCall = void (*)(void* owner) noexcept;

  // Makes a new page holding |payload| (a memfd) in host memory. Returns
  // RESOURCE_EXHAUSTED naming |function| when the system refuses it.
  static halo_status_t create(Host host, const char* function, uint64_t payload,
                              SharedTimeline** out) noexcept;
  // Maps the page behind |fd|, which stays the caller's (the mapping does
  // not need it). Returns INVALID_ARGUMENT
  // naming |function| for a file that is not a host timeline's page (too
  // small, or without its magic and version), RESOURCE_EXHAUSTED when the
  // mapping fails.
  static halo_status_t open(Host host, const char* function, int fd,
                            SharedTimeline** out) noexcept;

  // Ends the watch (waiting for a change being applied on another thread)
  // and unmaps the page. Destroy through Host::destroy.
  ~SharedTimeline();
  SharedTimeline(const SharedTimeline&) = delete;
  SharedTimeline& operator=(const SharedTimeline&) = delete;

  // The page's payload word: the timeline's payload itself
  // (Timeline::share), raised there with compare-and-swap.
  std::atomic<uint64_t>* payload_word() const noexcept;

  // Wakes the other sharers after this process changed the payload word
  // (the page's "change" protocol after its compare-and-swap).
  void announce_change() noexcept;

  // The page's "sleep" protocol, for a thread of this process waiting for
  // a change of any sharer: begin_sleep() counts it among the page's
  // waiters and returns the epoch; after re-reading the payload it sleeps
  // while the epoch is still that one (sleep() returns false once
  // |deadline| passed) and then end_sleep()s. Every sharer's change wakes
  // it, this process's own through announce_change.
  uint32_t begin_sleep() noexcept;
  bool sleep(uint32_t epoch, halo_time_ns_t deadline) noexcept;
  void end_sleep() noexcept;

  // True for a page made by create, which export_fd serves.
  bool exportable() const noexcept { return fd_ >= 0; }

  // A new file descriptor of the page (close-on-exec), the caller's, from
  // a page made by create. Returns RESOURCE_EXHAUSTED naming |function|
  // when none is left.
  halo_status_t export_fd(Host host, const char* function,
                          int* out_fd) noexcept;

  // Whether the owner needs other sharers' changes carried to it now (it
  // has timepoints pending).
  using OwnerQuery = bool (*)(void* owner) noexcept;

  // Starts the watcher thread: it calls |changed| with |owner| after every
  // change another sharer announces while |wanted| says the owner needs
  // them (and may call it when nothing changed), until the page goes.
  // While the owner needs none the watcher sleeps apart from the page, so
  // that other sharers' changes wake nobody here, until want_changes().
  // Throws std::system_error when no thread can start.
  void watch(OwnerCall changed, OwnerCall release, OwnerQuery wanted,
             void* owner);

  // Called once the owner may need changes again (after it registered a
  // timepoint): wakes the watcher if it sleeps apart. Thread-safe; one load
  // while the watcher is awake or on the page.
  void want_changes() noexcept;

  // True on the watcher thread, where |changed| may run callbacks that
  // drop the owner's last reference.
  bool on_watcher_thread() const noexcept {
    return threads_.is_current_thread();
  }
  // Called on the watcher thread instead of destroying the owner there:
  // the watcher calls |release| (given to watch) once |changed| returns,
  // which must destroy the owner and this page with it.
  void release_owner_after_change() noexcept { owner_released_ = true; }

 private:
  friend class Host;  // Host::make constructs it.
  SharedTimeline(halo_host_timeline_t* page, int fd) noexcept
      : page_(page), fd_(fd) {}
  void run_watch() noexcept;
  // The watcher's sleep apart from the page, until want_changes() or the
  // end of the watch.
  void rest() noexcept;

  halo_host_timeline_t* page_;
  // The memfd of a page made by create; -1 for one opened.
  int fd_;
  OwnerCall changed_ = nullptr;
  OwnerCall release_ = nullptr;
  OwnerQuery wanted_ = nullptr;
  void* owner_ = nullptr;
  // Touched by the watcher thread alone.
  bool owner_released_ = false;
  std::atomic<bool> stopping_{false};
  // The watcher sleeps apart (rest) on resting_wakes_ while resting_.
  std::atomic<bool> resting_{false};
  std::atomic<uint32_t> resting_wakes_{0};
  PluginThreads threads_;
};

}  // namespace halo::sdk

#endif  // HALO_SDK_SHARED_TIMELINE_HPP_
