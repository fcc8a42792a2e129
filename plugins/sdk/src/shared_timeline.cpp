// The page of a HOST_TIMELINE_FD and its watcher thread.
#include "halo/sdk/shared_timeline.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <new>

#include "halo/sdk/futex.hpp"
#include "halo/semaphore.h"

namespace halo::sdk {
namespace {

static_assert(sizeof(std::atomic<uint64_t>) == sizeof(uint64_t) &&
                  std::atomic<uint64_t>::is_always_lock_free,
              "the page's payload is read as a lock-free 64-bit atomic");
static_assert(sizeof(halo_host_timeline_t) == 24,
              "the page's layout is the ABI's");

constexpr auto kOrder = std::memory_order_seq_cst;

std::atomic_ref<uint32_t> epoch_of(halo_host_timeline_t* page) noexcept {
  return std::atomic_ref<uint32_t>(page->epoch);
}
std::atomic_ref<uint32_t> waiters_of(halo_host_timeline_t* page) noexcept {
  return std::atomic_ref<uint32_t>(page->waiters);
}

halo_host_timeline_t* map_page(int fd) noexcept {
  void* page = mmap(nullptr, sizeof(halo_host_timeline_t),
                    PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  return page == MAP_FAILED ? nullptr
                            : static_cast<halo_host_timeline_t*>(page);
}

}  // namespace

halo_status_t SharedTimeline::create(Host host, const char* function,
                                     uint64_t payload,
                                     SharedTimeline** out) noexcept {
  const int fd = memfd_create("halo-host-timeline", MFD_CLOEXEC);
  if (fd < 0) {
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "%s: memfd_create for the semaphore's shared page "
                            "failed: %s",
                            function, std::strerror(errno));
  }
  halo_host_timeline_t* page = nullptr;
  if (ftruncate(fd, sizeof(halo_host_timeline_t)) == 0) page = map_page(fd);
  if (page == nullptr) {
    const int error = errno;
    close(fd);
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "%s: the semaphore's shared page cannot be made: "
                            "%s",
                            function, std::strerror(error));
  }
  // A new file reads as zeros; nobody else has it yet.
  page->magic = HALO_HOST_TIMELINE_MAGIC;
  page->version = HALO_HOST_TIMELINE_VERSION;
  page->payload = payload;
  halo_status_t status =
      guard(host, [&] { *out = host.make<SharedTimeline>(page, fd); });
  if (status != HALO_OK) {
    munmap(page, sizeof(halo_host_timeline_t));
    close(fd);
  }
  return status;
}

halo_status_t SharedTimeline::open(Host host, const char* function, int fd,
                                   SharedTimeline** out) noexcept {
  struct stat file = {};
  if (fstat(fd, &file) != 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: handle->fd %d cannot be read: %s", function,
                            fd, std::strerror(errno));
  }
  if (!S_ISREG(file.st_mode) ||
      file.st_size < static_cast<off_t>(sizeof(halo_host_timeline_t))) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: handle->fd %d is not a HOST_TIMELINE_FD: not "
                            "a file of at least %zu bytes of shared memory",
                            function, fd, sizeof(halo_host_timeline_t));
  }
  halo_host_timeline_t* page = map_page(fd);
  if (page == nullptr) {
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "%s: handle->fd %d cannot be mapped: %s", function,
                            fd, std::strerror(errno));
  }
  if (page->magic != HALO_HOST_TIMELINE_MAGIC ||
      page->version != HALO_HOST_TIMELINE_VERSION) {
    const uint32_t magic = page->magic;
    const uint32_t version = page->version;
    munmap(page, sizeof(halo_host_timeline_t));
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: handle->fd %d is not a HOST_TIMELINE_FD "
                            "(magic 0x%08x, version %u; a host timeline has "
                            "0x%08x, version %u)",
                            function, fd, magic, version,
                            HALO_HOST_TIMELINE_MAGIC,
                            HALO_HOST_TIMELINE_VERSION);
  }
  halo_status_t status =
      guard(host, [&] { *out = host.make<SharedTimeline>(page, -1); });
  if (status != HALO_OK) munmap(page, sizeof(halo_host_timeline_t));
  return status;
}

SharedTimeline::~SharedTimeline() {
  stopping_.store(true, kOrder);
  resting_wakes_.fetch_add(1, kOrder);
  futex_wake_all(&resting_wakes_);
  // A new epoch, so that a watcher about to sleep does not (other sharers'
  // watchers wake for nothing, as the page's protocol allows).
  epoch_of(page_).fetch_add(1, kOrder);
  futex_wake_all_shared(&page_->epoch);
  threads_.await_exits();
  munmap(page_, sizeof(halo_host_timeline_t));
  if (fd_ >= 0) close(fd_);
}

std::atomic<uint64_t>* SharedTimeline::payload_word() const noexcept {
  return reinterpret_cast<std::atomic<uint64_t>*>(&page_->payload);
}

void SharedTimeline::announce_change() noexcept {
  epoch_of(page_).fetch_add(1, kOrder);
  if (waiters_of(page_).load(kOrder) != 0) futex_wake_all_shared(&page_->epoch);
}

uint32_t SharedTimeline::begin_sleep() noexcept {
  waiters_of(page_).fetch_add(1, kOrder);
  return epoch_of(page_).load(kOrder);
}

bool SharedTimeline::sleep(uint32_t epoch, halo_time_ns_t deadline) noexcept {
  return futex_wait_shared(&page_->epoch, epoch, deadline);
}

void SharedTimeline::end_sleep() noexcept {
  waiters_of(page_).fetch_sub(1, kOrder);
}

halo_status_t SharedTimeline::export_fd(Host host, const char* function,
                                        int* out_fd) noexcept {
  const int fd = fcntl(fd_, F_DUPFD_CLOEXEC, 0);
  if (fd < 0) {
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "%s: the semaphore's page cannot be given a new "
                            "file descriptor: %s",
                            function, std::strerror(errno));
  }
  *out_fd = fd;
  return HALO_OK;
}

void SharedTimeline::watch(OwnerCall changed, OwnerCall release,
                           OwnerQuery wanted, void* owner) {
  changed_ = changed;
  release_ = release;
  wanted_ = wanted;
  owner_ = owner;
  threads_.start("halo-timeline", [this]() noexcept { run_watch(); });
}

void SharedTimeline::run_watch() noexcept {
  for (;;) {
    const uint32_t epoch = epoch_of(page_).load(kOrder);
    if (stopping_.load(kOrder)) return;
    changed_(owner_);
    if (owner_released_) {
      // The owner's last reference went inside |changed_|: it and this
      // page go now, and the thread touches neither again.
      release_(owner_);
      return;
    }
    if (!wanted_(owner_)) {
      rest();
      continue;
    }
    if (begin_sleep() == epoch && !stopping_.load(kOrder)) {
      sleep(epoch, HALO_DEADLINE_INFINITE_FUTURE);
    }
    end_sleep();
  }
}

void SharedTimeline::rest() noexcept {
  // A Dekker pair with want_changes: the owner raises its need (a pending
  // timepoint, seq_cst) before reading resting_, and this thread raises
  // resting_ before reading the need, so either want_changes sees it
  // resting and wakes it, or it sees the need and does not sleep.
  resting_.store(true, kOrder);
  const uint32_t wakes = resting_wakes_.load(kOrder);
  if (!wanted_(owner_) && !stopping_.load(kOrder)) {
    futex_wait(&resting_wakes_, wakes, HALO_DEADLINE_INFINITE_FUTURE);
  }
  resting_.store(false, kOrder);
}

void SharedTimeline::want_changes() noexcept {
  if (!resting_.load(kOrder)) return;
  resting_wakes_.fetch_add(1, kOrder);
  futex_wake_all(&resting_wakes_);
}

}  // namespace halo::sdk
