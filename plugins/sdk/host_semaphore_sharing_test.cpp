// The SDK's host semaphores shared as HOST_TIMELINE_FD (external_handle.h):
// an import in this process, and another process that speaks the page's
// protocol with nothing but atomics and futex calls, as a plugin written
// without the SDK would.
#include <fcntl.h>
#include <linux/futex.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <climits>
#include <future>
#include <thread>

#include "halo/sdk/futex.hpp"
#include "halo/sdk/host_semaphore.hpp"
#include "halo/sdk/semaphore_vtable.hpp"
#include "testing/fake_host.hpp"
#include "testing/leak_checked_test.hpp"

namespace halo::sdk {
namespace {

using testing::fake_host_interface;
using testing::StatusHolder;

// A device of the test's own: only its reference count matters.
struct FakeDevice {
  halo_object_t header;
  static void destroy(halo_object_t* object) {
    delete reinterpret_cast<FakeDevice*>(object);
  }
  halo_device_t* handle() { return reinterpret_cast<halo_device_t*>(this); }
};
// Its capabilities say it exports host timelines, which the semaphore's
// export asks.
halo_status_t query_capabilities(halo_device_t*,
                                 halo_device_capabilities_t* out) {
  out->semaphore_export_types = HostSemaphore::kShareTypes;
  return nullptr;
}
const halo_device_vtable_t kDeviceTable = {
    .object = {sizeof(halo_device_vtable_t), HALO_OBJECT_TYPE_DEVICE,
               &FakeDevice::destroy},
    .query_capabilities = &query_capabilities,
};
const halo_object_vtable_t& kDeviceVtable = kDeviceTable.object;

Host host() { return Host(fake_host_interface()); }

void release(halo_semaphore_t* semaphore) { host().release(as_object(semaphore)); }

uint64_t value_of(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  StatusHolder status(HostSemaphore::cast(semaphore)->timeline.query(&value));
  return value;
}

class HostSemaphoreSharingTest : public testing::LeakCheckedTest {
 protected:
  void SetUp() override {
    LeakCheckedTest::SetUp();
    device_ = new FakeDevice{HALO_OBJECT_HEADER_INIT(&kDeviceVtable)};
  }
  void TearDown() override {
    host().release(as_object(device_->handle()));
    LeakCheckedTest::TearDown();
  }

  halo_semaphore_t* make_exportable(uint64_t value) {
    halo_semaphore_t* semaphore = nullptr;
    EXPECT_EQ(HostSemaphore::create(host(), device_->handle(), value, &semaphore,
                                    HALO_SEMAPHORE_FLAG_EXPORTABLE),
              nullptr);
    return semaphore;
  }

  int export_fd(halo_semaphore_t* semaphore) {
    halo_external_handle_t handle = {};
    handle.struct_size = sizeof(handle);
    EXPECT_EQ(HostSemaphore::cast(semaphore)->export_handle(
                  HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD, &handle),
              nullptr);
    EXPECT_EQ(handle.type, HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD);
    return handle.fd;
  }

  halo_status_t import(int fd, halo_semaphore_t** out) {
    halo_external_handle_t handle = {};
    handle.struct_size = sizeof(handle);
    handle.type = HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD;
    handle.fd = fd;
    return HostSemaphore::import(host(), device_->handle(), &handle, out);
  }

  FakeDevice* device_ = nullptr;
};

// Records the status a timepoint's callback got.
struct Landing {
  std::promise<halo_status_code_t> code;
  static void callback(void* user_data, halo_timepoint_t*,
                       halo_status_t status) noexcept {
    StatusHolder holder(status);
    static_cast<Landing*>(user_data)->code.set_value(holder.code());
  }
};

halo_timepoint_t timepoint_for(uint64_t value, Landing* landing) {
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = value;
  timepoint.callback = &Landing::callback;
  timepoint.user_data = landing;
  return timepoint;
}

TEST_F(HostSemaphoreSharingTest, AnImportIsTheSameTimeline) {
  halo_semaphore_t* original = make_exportable(5);
  halo_semaphore_t* imported = nullptr;
  const int fd = export_fd(original);
  ASSERT_EQ(import(fd, &imported), nullptr);
  EXPECT_EQ(fcntl(fd, F_GETFD), -1) << "a successful import closes its fd";
  EXPECT_EQ(value_of(imported), 5u);

  // A timepoint and a host wait on one side, each released by a signal of
  // the other side, through that side's announcement and the watcher.
  Landing landing;
  halo_timepoint_t timepoint = timepoint_for(7, &landing);
  ASSERT_EQ(HostSemaphore::cast(original)->timeline.acquire(&timepoint), nullptr);
  std::future<halo_status_code_t> waited = std::async(std::launch::async, [&] {
    StatusHolder status(HostSemaphore::cast(original)->timeline.wait(
        6, HALO_DEADLINE_INFINITE_FUTURE));
    return status.code();
  });
  ASSERT_EQ(HostSemaphore::cast(imported)->timeline.signal(6), nullptr);
  EXPECT_EQ(value_of(original), 6u) << "a query reads the page itself";
  EXPECT_EQ(waited.get(), HALO_STATUS_OK);
  ASSERT_EQ(HostSemaphore::cast(imported)->timeline.signal(7), nullptr);
  EXPECT_EQ(landing.code.get_future().get(), HALO_STATUS_OK);

  // A failure of the original reaches the import as DATA_LOSS.
  HostSemaphore::cast(original)->timeline.fail(
      host().make_status(HALO_STATUS_ABORTED, "test failure"));
  StatusHolder failure(
      HostSemaphore::cast(imported)->timeline.wait(8, HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(failure.code(), HALO_STATUS_DATA_LOSS);
  EXPECT_NE(failure.message().find("failed by another sharer"), std::string::npos)
      << failure.message();
  release(imported);
  release(original);
}

// Whoever drops an import's last reference inside a callback that the
// watcher thread runs (another sharer's signal released it) leaves the
// import to be destroyed once the watcher is back.
TEST_F(HostSemaphoreSharingTest, TheLastReleaseInAWatcherCallbackIsDeferred) {
  halo_semaphore_t* original = make_exportable(0);
  const long without_import = testing::live_allocations();
  halo_semaphore_t* imported = nullptr;
  ASSERT_EQ(import(export_fd(original), &imported), nullptr);
  // Counts what the release frees inside the callback: nothing, as the
  // import goes only once the watcher is back.
  struct Releaser {
    halo_semaphore_t* imported;
    long freed_inside = -1;
    static void callback(void* user_data, halo_timepoint_t*,
                         halo_status_t status) noexcept {
      StatusHolder holder(status);
      auto* self = static_cast<Releaser*>(user_data);
      const long before = testing::live_allocations();
      release(self->imported);
      self->freed_inside = before - testing::live_allocations();
    }
  } releaser{imported};
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = 1;
  timepoint.callback = &Releaser::callback;
  timepoint.user_data = &releaser;
  ASSERT_EQ(HostSemaphore::cast(imported)->timeline.acquire(&timepoint), nullptr);
  ASSERT_EQ(HostSemaphore::cast(original)->timeline.signal(1), nullptr);
  // The watcher frees the import and its page once the callback returned;
  // nothing else observes that last free, so the test waits for it.
  testing::await_live_allocations(without_import);
  EXPECT_EQ(releaser.freed_inside, 0);
  release(original);
}

TEST_F(HostSemaphoreSharingTest, AnImportRefusesWhatIsNotAHostTimeline) {
  halo_semaphore_t* imported = nullptr;
  const int null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  ASSERT_GE(null_fd, 0);
  StatusHolder not_a_file(import(null_fd, &imported));
  EXPECT_EQ(not_a_file.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(not_a_file.message().find("is not a HOST_TIMELINE_FD"), std::string::npos)
      << not_a_file.message();
  EXPECT_NE(fcntl(null_fd, F_GETFD), -1) << "a failed import leaves the fd open";
  close(null_fd);

  const int memfd = memfd_create("not-a-timeline", MFD_CLOEXEC);
  ASSERT_GE(memfd, 0);
  ASSERT_EQ(ftruncate(memfd, 4096), 0);
  StatusHolder no_magic(import(memfd, &imported));
  EXPECT_EQ(no_magic.code(), HALO_STATUS_INVALID_ARGUMENT);
  EXPECT_NE(no_magic.message().find("magic 0x00000000"), std::string::npos)
      << no_magic.message();
  EXPECT_EQ(imported, nullptr);
  EXPECT_NE(fcntl(memfd, F_GETFD), -1);
  close(memfd);
}

// The page's protocol (external_handle.h), written with nothing of the SDK.
struct ForeignSharer {
  halo_host_timeline_t* page;

  void change(uint64_t value) {
    uint64_t current = __atomic_load_n(&page->payload, __ATOMIC_SEQ_CST);
    while (current < value &&
           !__atomic_compare_exchange_n(&page->payload, &current, value, false,
                                        __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
    }
    __atomic_fetch_add(&page->epoch, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&page->waiters, __ATOMIC_SEQ_CST) != 0) {
      syscall(SYS_futex, &page->epoch, FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
    }
  }
  void sleep_until(uint64_t value) {
    for (;;) {
      __atomic_fetch_add(&page->waiters, 1, __ATOMIC_SEQ_CST);
      const uint32_t epoch = __atomic_load_n(&page->epoch, __ATOMIC_SEQ_CST);
      const bool reached = __atomic_load_n(&page->payload, __ATOMIC_SEQ_CST) >= value;
      if (!reached) {
        syscall(SYS_futex, &page->epoch, FUTEX_WAIT, epoch, nullptr, nullptr, 0);
      }
      __atomic_fetch_sub(&page->waiters, 1, __ATOMIC_SEQ_CST);
      if (reached) return;
    }
  }
};

// The page behind an exported fd, mapped here as another sharer would map
// it (the fd is closed at once: the mapping does not need it).
class MappedPage {
 public:
  explicit MappedPage(int fd)
      : mapping_(mmap(nullptr, sizeof(halo_host_timeline_t), PROT_READ | PROT_WRITE,
                      MAP_SHARED, fd, 0)) {
    close(fd);
  }
  ~MappedPage() {
    if (ok()) munmap(mapping_, sizeof(halo_host_timeline_t));
  }
  MappedPage(const MappedPage&) = delete;
  MappedPage& operator=(const MappedPage&) = delete;

  bool ok() const { return mapping_ != MAP_FAILED; }
  halo_host_timeline_t* page() const { return static_cast<halo_host_timeline_t*>(mapping_); }

 private:
  void* mapping_;
};

// Whether |page|'s waiter count comes to be |count|. (Bounded only so that
// a broken SDK fails the test instead of hanging it.)
bool waiters_reach(halo_host_timeline_t* page, uint32_t count) {
  const halo_time_ns_t give_up = monotonic_now_ns() + 60'000'000'000;
  while (__atomic_load_n(&page->waiters, __ATOMIC_SEQ_CST) != count) {
    if (monotonic_now_ns() > give_up) return false;
    std::this_thread::yield();
  }
  return true;
}

// The watcher sleeps on the page only while its timeline has a timepoint
// pending: then another sharer's change releases the timepoint, and once
// none is pending the watcher leaves the page, so changes nobody here
// awaits wake nobody here (the sharer then makes no futex call at all).
TEST_F(HostSemaphoreSharingTest, TheWatcherSleepsOnThePageOnlyForTimepoints) {
  halo_semaphore_t* semaphore = make_exportable(0);
  MappedPage mapped(export_fd(semaphore));
  ASSERT_TRUE(mapped.ok());
  ForeignSharer sharer{mapped.page()};
  Landing landing;
  halo_timepoint_t timepoint = timepoint_for(1, &landing);
  ASSERT_EQ(HostSemaphore::cast(semaphore)->timeline.acquire(&timepoint), nullptr);
  EXPECT_TRUE(waiters_reach(sharer.page, 1)) << "the watcher never slept on the page";
  sharer.change(1);
  EXPECT_EQ(landing.code.get_future().get(), HALO_STATUS_OK);
  EXPECT_TRUE(waiters_reach(sharer.page, 0)) << "the watcher stayed on the page";
  sharer.change(2);
  EXPECT_EQ(value_of(semaphore), 2u);
  release(semaphore);
}

// A host wait on a shared timeline sleeps on the page as the protocol has
// every sleeper do, counted in its waiters, so that another sharer's change
// wakes it without this process's watcher thread between.
TEST_F(HostSemaphoreSharingTest, AHostWaitSleepsOnThePage) {
  halo_semaphore_t* semaphore = make_exportable(0);
  MappedPage mapped(export_fd(semaphore));
  ASSERT_TRUE(mapped.ok());
  ForeignSharer sharer{mapped.page()};
  std::future<halo_status_code_t> waited = std::async(std::launch::async, [&] {
    StatusHolder status(
        HostSemaphore::cast(semaphore)->timeline.wait(1, HALO_DEADLINE_INFINITE_FUTURE));
    return status.code();
  });
  // With no timepoint pending the watcher sleeps apart, so the one sleeper
  // on the page is the wait.
  EXPECT_TRUE(waiters_reach(sharer.page, 1))
      << "the host wait never counted itself among the page's waiters";
  sharer.change(1);
  EXPECT_EQ(waited.get(), HALO_STATUS_OK);
  release(semaphore);
}

// A child process maps the exported page and signals, waits for this
// process's signal and fails the timeline; this process sees each through
// a timepoint and host waits.
TEST_F(HostSemaphoreSharingTest, AnotherProcessSharesTheTimeline) {
  halo_semaphore_t* semaphore = make_exportable(0);
  const int fd = export_fd(semaphore);
  Landing landing;
  halo_timepoint_t timepoint = timepoint_for(1, &landing);
  ASSERT_EQ(HostSemaphore::cast(semaphore)->timeline.acquire(&timepoint), nullptr);

  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // Only system calls and atomics here: the parent has threads.
    void* mapping = mmap(nullptr, sizeof(halo_host_timeline_t), PROT_READ | PROT_WRITE,
                         MAP_SHARED, fd, 0);
    if (mapping == MAP_FAILED) _exit(2);
    ForeignSharer sharer{static_cast<halo_host_timeline_t*>(mapping)};
    if (sharer.page->magic != HALO_HOST_TIMELINE_MAGIC) _exit(3);
    sharer.change(1);
    sharer.sleep_until(2);
    sharer.change(HALO_SEMAPHORE_FAILURE_VALUE);
    _exit(0);
  }
  close(fd);
  EXPECT_EQ(landing.code.get_future().get(), HALO_STATUS_OK);
  ASSERT_EQ(HostSemaphore::cast(semaphore)->timeline.signal(2), nullptr);
  StatusHolder failure(
      HostSemaphore::cast(semaphore)->timeline.wait(3, HALO_DEADLINE_INFINITE_FUTURE));
  EXPECT_EQ(failure.code(), HALO_STATUS_DATA_LOSS);
  int child_status = 0;
  ASSERT_EQ(waitpid(child, &child_status, 0), child);
  EXPECT_TRUE(WIFEXITED(child_status));
  EXPECT_EQ(WEXITSTATUS(child_status), 0);
  release(semaphore);
}

}  // namespace
}  // namespace halo::sdk
