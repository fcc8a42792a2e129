// timepoint.storage_reused_*: the semaphore does not touch a timepoint
// after its callback started (semaphore.h), so the callback may free the
// storage or use it for something else. timepoint.callback_frees_storage
// frees it, which only a sanitizer run sees misused; here each callback
// fills its storage with a canary instead, as the next owner of that memory
// would, and the case checks that every canary byte survives, in any build.
#include <cstring>
#include <vector>

#include "timepoint_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr char kFailureMessage[] = "cts: failure with reused storage 2b9e";
constexpr unsigned char kCanary = 0x5c;

// One registration whose callback takes its storage back: it overwrites the
// whole halo_timepoint_t with kCanary, then counts the call.
struct Reused {
  halo_timepoint_t timepoint;
  std::atomic<int> calls{0};
  std::atomic<int> failures{0};

  static void callback(void* user_data, halo_timepoint_t* timepoint, halo_status_t status) {
    auto* self = static_cast<Reused*>(user_data);
    if (status != nullptr) self->failures.fetch_add(1);
    halo_status_free(status);
    std::memset(static_cast<void*>(timepoint), kCanary, sizeof(*timepoint));
    self->calls.fetch_add(1);  // Publishes the canary to the case's thread.
  }

  halo_status_t acquire(halo_semaphore_t* semaphore, uint64_t value) {
    timepoint = make_timepoint(value, &Reused::callback, this);
    return halo_semaphore_acquire_timepoint(semaphore, &timepoint);
  }

  // Returns the offset of the first byte that is no longer kCanary, or -1.
  int first_changed_byte() const {
    const auto* bytes = reinterpret_cast<const unsigned char*>(&timepoint);
    for (size_t i = 0; i < sizeof(timepoint); ++i) {
      if (bytes[i] != kCanary) return static_cast<int>(i);
    }
    return -1;
  }
};

// Fails the case naming the first registration of |registrations| that was
// not called back exactly once, or whose storage was written after its
// callback started.
void check_untouched(const std::vector<Reused>& registrations, const char* what) {
  for (size_t i = 0; i < registrations.size(); ++i) {
    CTS_ASSERT_MSG(registrations[i].calls.load() == 1,
                   std::string(what) + ": registration " + to_text(i) + " was called " +
                       to_text(registrations[i].calls.load()) + " time(s)");
    const int changed = registrations[i].first_changed_byte();
    CTS_ASSERT_MSG(changed < 0, std::string(what) + ": registration " + to_text(i) +
                                    " was written after its callback started (byte " +
                                    to_text(changed) + " of its halo_timepoint_t)");
  }
}

HALO_CTS_CASE("timepoint.storage_reused_after_callback", kNeedSemaphores,
              "callbacks that overwrite their own timepoint (released by two signals and a failure) find it untouched afterwards: the semaphore wrote nothing after they started") {
  constexpr uint64_t kCount = 60;
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  std::vector<Reused> registrations(kCount);
  for (uint64_t i = 0; i < kCount; ++i) {
    CTS_ASSERT_OK(registrations[i].acquire(semaphore, i + 1));
  }
  auto called = [&] {
    int total = 0;
    for (const Reused& registration : registrations) total += registration.calls.load();
    return total;
  };
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 20));
  CTS_ASSERT(spin_until([&] { return called() == 20; }));
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 40));
  CTS_ASSERT(spin_until([&] { return called() == 40; }));
  CTS_ASSERT_OK(halo_semaphore_fail(semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT(spin_until([&] { return called() == static_cast<int>(kCount); }));
  check_untouched(registrations, "signalled or failed");
  int failures = 0;
  for (const Reused& registration : registrations) failures += registration.failures.load();
  CTS_ASSERT_EQ(failures, 20);
}

HALO_CTS_CASE("timepoint.storage_reused_inline", kNeedSemaphores,
              "callbacks run inline on a reached and on a failed semaphore overwrite their own timepoint: it is untouched when acquire returns") {
  halo_semaphore_t* reached = ctx.semaphore(10);
  halo_semaphore_t* failed = ctx.semaphore(0);
  CTS_ASSERT_OK(halo_semaphore_fail(failed, make_status(HALO_STATUS_DATA_LOSS, kFailureMessage)));
  std::vector<Reused> on_reached(10), on_failed(10);
  for (uint64_t i = 0; i < 10; ++i) {
    CTS_ASSERT_OK(on_reached[i].acquire(reached, i + 1));
    CTS_ASSERT_OK(on_failed[i].acquire(failed, i + 1));
  }
  // Inline: every callback has run before its acquire returned.
  check_untouched(on_reached, "inline on a reached semaphore");
  check_untouched(on_failed, "inline on a failed semaphore");
  for (const Reused& registration : on_failed) CTS_ASSERT_EQ(registration.failures.load(), 1);
}

}  // namespace
