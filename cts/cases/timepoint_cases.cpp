// timepoint.*: asynchronous notifications on semaphores (DESIGN.md §4):
// exactly once, inline when already reached, the failure on failure, and
// race-free cancel. A callback may run on any thread, so cases wait for one
// by polling a counter (spin_until) or use cancel as the barrier it is: once
// cancel returns false the callback has run to completion.
#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "timepoint_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr char kFailureMessage[] = "cts: timepoint failure 3e02";

HALO_CTS_CASE("timepoint.fires_once_on_signal", kNeedSemaphores,
              "a timepoint for 5 does not fire at 3, fires once at 5, and not again at 10") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(5, &probe);
  CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 3));
  CTS_ASSERT_EQ(probe.calls.load(), 0);
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 5));
  CTS_ASSERT(spin_until([&] { return probe.calls.load() >= 1; }));
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 10));
  CTS_ASSERT(!cancel(semaphore, &timepoint));  // It ran: nothing to cancel.
  CTS_ASSERT_EQ(probe.calls.load(), 1);
  CTS_ASSERT_EQ(probe.failures.load(), 0);
}

HALO_CTS_CASE("timepoint.fires_on_signal_beyond", kNeedSemaphores,
              "a timepoint for 5 fires once when the semaphore is signalled straight to 1,000") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(5, &probe);
  CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 1000));
  CTS_ASSERT(spin_until([&] { return probe.calls.load() >= 1; }));
  CTS_ASSERT(!cancel(semaphore, &timepoint));
  CTS_ASSERT_EQ(probe.calls.load(), 1);
}

HALO_CTS_CASE("timepoint.inline_when_reached", kNeedSemaphores,
              "timepoints for 0, 3 and 5 on a semaphore at 5 have run (OK) before acquire returns") {
  halo_semaphore_t* semaphore = ctx.semaphore(5);
  for (uint64_t value : {uint64_t{0}, uint64_t{3}, uint64_t{5}}) {
    Probe probe;
    halo_timepoint_t timepoint = make_timepoint(value, &probe);
    CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
    CTS_ASSERT_EQ(probe.calls.load(), 1);
    CTS_ASSERT(probe.finished.load());
    CTS_ASSERT_EQ(probe.failures.load(), 0);
  }
}

HALO_CTS_CASE("timepoint.inline_when_failed", kNeedSemaphores,
              "a timepoint on an already failed semaphore runs inline with the failure's code and message") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(1, &probe);
  CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
  CTS_ASSERT_EQ(probe.calls.load(), 1);
  CTS_ASSERT_EQ(probe.failures.load(), 1);
  CTS_ASSERT_EQ(probe.code.load(), static_cast<int>(HALO_STATUS_ABORTED));
  CTS_ASSERT_EQ(probe.message, std::string(kFailureMessage));
}

HALO_CTS_CASE("timepoint.on_failure", kNeedSemaphores,
              "pending timepoints get (and free) a status with the failure's code and message when the semaphore fails") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Probe probes[3];
  halo_timepoint_t timepoints[3] = {make_timepoint(1, &probes[0]),
                                    make_timepoint(7, &probes[1]),
                                    make_timepoint(HALO_SEMAPHORE_MAX_VALUE, &probes[2])};
  for (auto& timepoint : timepoints) {
    CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
  }
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_DATA_LOSS, kFailureMessage)));
  for (int i = 0; i < 3; ++i) {
    CTS_ASSERT(spin_until([&] { return probes[i].calls.load() >= 1; }));
    CTS_ASSERT(!cancel(semaphore, &timepoints[i]));
    CTS_ASSERT_EQ(probes[i].calls.load(), 1);
    CTS_ASSERT_EQ(probes[i].failures.load(), 1);
    CTS_ASSERT_EQ(probes[i].code.load(), static_cast<int>(HALO_STATUS_DATA_LOSS));
    CTS_ASSERT_EQ(probes[i].message, std::string(kFailureMessage));
  }
}

HALO_CTS_CASE("timepoint.fired_then_failed", kNeedSemaphores,
              "a timepoint that fired OK is not called again when the semaphore fails later") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(2, &probe);
  CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 2));
  CTS_ASSERT(spin_until([&] { return probe.calls.load() >= 1; }));
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT(!cancel(semaphore, &timepoint));
  CTS_ASSERT_EQ(probe.calls.load(), 1);
  CTS_ASSERT_EQ(probe.failures.load(), 0);
}

HALO_CTS_CASE("timepoint.same_value_many", kNeedSemaphores,
              "100 timepoints on one value each fire exactly once on one signal") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  std::vector<Probe> probes(100);
  std::vector<halo_timepoint_t> timepoints;
  for (Probe& probe : probes) timepoints.push_back(make_timepoint(4, &probe));
  for (auto& timepoint : timepoints) {
    CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
  }
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 4));
  for (size_t i = 0; i < probes.size(); ++i) {
    CTS_ASSERT(!cancel(semaphore, &timepoints[i]));
    CTS_ASSERT_EQ(probes[i].calls.load(), 1);
  }
}

HALO_CTS_CASE("timepoint.cancel_before_signal", kNeedSemaphores,
              "cancel before the signal reports cancelled and the callback never runs, even after the signal") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Probe cancelled_probe, witness_probe;
  halo_timepoint_t cancelled = make_timepoint(5, &cancelled_probe);
  // A second timepoint on the same value proves the signal's callbacks ran.
  halo_timepoint_t witness = make_timepoint(5, &witness_probe);
  CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &cancelled));
  CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &witness));
  CTS_ASSERT(cancel(semaphore, &cancelled));
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 5));
  CTS_ASSERT(spin_until([&] { return witness_probe.calls.load() >= 1; }));
  CTS_ASSERT(!cancel(semaphore, &witness));
  CTS_ASSERT_EQ(cancelled_probe.calls.load(), 0);
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT_EQ(cancelled_probe.calls.load(), 0);
}

HALO_CTS_CASE("timepoint.cancel_then_reuse", kNeedSemaphores,
              "storage whose timepoint was cancelled can be registered again and then fires once") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(3, &probe);
  for (int round = 0; round < 10; ++round) {
    CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
    CTS_ASSERT(cancel(semaphore, &timepoint));
  }
  CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoint));
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 3));
  CTS_ASSERT(spin_until([&] { return probe.calls.load() >= 1; }));
  CTS_ASSERT(!cancel(semaphore, &timepoint));
  CTS_ASSERT_EQ(probe.calls.load(), 1);
}

HALO_CTS_CASE("timepoint.cancel_races_signal", kNeedSemaphores,
              "~2,000 cancels racing signals from another thread: cancelled ones never run, the others ran exactly once and had finished") {
  std::mt19937_64 rng = make_rng(ctx);
  const uint64_t rounds = 2000 + rng() % 500;
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  // Every registration keeps its own storage until the end, so a callback
  // that runs after a cancel said "never" is counted, not a use-after-free.
  std::vector<Probe> probes(rounds + 1);
  std::vector<halo_timepoint_t> timepoints(rounds + 1);
  std::vector<bool> cancelled(rounds + 1, false);
  std::atomic<uint64_t> requested{0}, signalled{0};
  std::atomic<bool> stop{false};
  std::atomic<int> signal_errors{0};
  {
    ThreadGroup threads;
    threads.start([&] {
      for (uint64_t value = 1; value <= rounds && !stop.load(); ++value) {
        while (requested.load() < value && !stop.load()) std::this_thread::yield();
        if (halo_semaphore_signal(semaphore, value) != nullptr) signal_errors.fetch_add(1);
        signalled.store(value);
      }
    });
    struct Stop {  // Releases the signaller when an assertion throws.
      std::atomic<bool>& flag;
      ~Stop() { flag.store(true); }
    } stop_on_exit{stop};
    for (uint64_t value = 1; value <= rounds; ++value) {
      timepoints[value] = make_timepoint(value, &probes[value]);
      CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &timepoints[value]));
      requested.store(value);
      for (uint64_t spin = rng() % 64; spin > 0; --spin) std::this_thread::yield();
      cancelled[value] = cancel(semaphore, &timepoints[value]);
      if (!cancelled[value]) {
        CTS_ASSERT_MSG(probes[value].finished.load() && probes[value].calls.load() == 1,
                       "round " + to_text(value) + ": cancel returned false but the callback ran " +
                           to_text(probes[value].calls.load()) + " time(s), finished=" +
                           to_text(probes[value].finished.load()));
      }
      CTS_ASSERT(spin_until([&] { return signalled.load() >= value; }));
    }
  }
  CTS_ASSERT_EQ(signal_errors.load(), 0);
  size_t cancelled_count = 0;
  for (uint64_t value = 1; value <= rounds; ++value) {
    const int calls = probes[value].calls.load();
    if (cancelled[value]) {
      ++cancelled_count;
      CTS_ASSERT_MSG(calls == 0, "round " + to_text(value) +
                                     ": cancelled, yet the callback ran " +
                                     to_text(calls) + " time(s)");
    } else {
      CTS_ASSERT_EQ(calls, 1);
    }
  }
  std::printf("%zu of %llu rounds cancelled before the signal\n", cancelled_count,
              static_cast<unsigned long long>(rounds));
}

// One timepoint per value 1..count, registered in shuffled order.
HALO_CTS_CASE("timepoint.many_shuffled", kNeedSemaphores,
              "10,000 timepoints on values 1..10,000 in seeded shuffled order each fire once, and only once reached") {
  constexpr uint64_t kCount = 10000;
  std::mt19937_64 rng = make_rng(ctx);
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  // The value whose signal has begun; a callback for k may only run once it
  // is >= k.
  static std::atomic<uint64_t> signal_started{0};
  static std::atomic<uint64_t> early{0};
  struct Entry {
    halo_timepoint_t timepoint;
    std::atomic<int> calls{0};
  };
  auto callback = [](void* user_data, halo_timepoint_t* timepoint, halo_status_t status) {
    auto* entry = static_cast<Entry*>(user_data);
    if (status != nullptr || signal_started.load() < timepoint->value) early.fetch_add(1);
    halo_status_free(status);
    entry->calls.fetch_add(1);
  };
  signal_started.store(0);
  early.store(0);
  std::vector<Entry> entries(kCount + 1);
  std::vector<uint64_t> order;
  for (uint64_t value = 1; value <= kCount; ++value) order.push_back(value);
  std::shuffle(order.begin(), order.end(), rng);
  for (uint64_t value : order) {
    Entry& entry = entries[value];
    entry.timepoint.struct_size = sizeof(halo_timepoint_t);
    entry.timepoint.value = value;
    entry.timepoint.callback = callback;
    entry.timepoint.user_data = &entry;
    CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphore, &entry.timepoint));
  }
  auto fired_count = [&] {
    uint64_t total = 0;
    for (uint64_t value = 1; value <= kCount; ++value) total += entries[value].calls.load();
    return total;
  };
  CTS_ASSERT_EQ(fired_count(), 0u);
  uint64_t current = 0;
  while (current < kCount) {
    current = std::min(kCount, current + 1 + rng() % 500);
    signal_started.store(current);
    CTS_ASSERT_OK(halo_semaphore_signal(semaphore, current));
    CTS_ASSERT_MSG(spin_until([&] { return fired_count() >= current; }),
                   "after signalling " + to_text(current) + " only " +
                       to_text(fired_count()) + " fired");
    CTS_ASSERT_EQ(early.load(), 0u);
  }
  for (uint64_t value = 1; value <= kCount; ++value) {
    CTS_ASSERT(!cancel(semaphore, &entries[value].timepoint));
    CTS_ASSERT_EQ(entries[value].calls.load(), 1);
  }
}

// A heap registration whose callback deletes it.
struct SelfFreeing {
  halo_timepoint_t timepoint = {};
  std::atomic<int>* calls = nullptr;
  std::atomic<int>* failures = nullptr;

  static void callback(void* user_data, halo_timepoint_t* timepoint,
                       halo_status_t status) {
    auto* self = static_cast<SelfFreeing*>(user_data);
    if (&self->timepoint != timepoint) std::abort();  // Wrong storage passed.
    if (status != nullptr) self->failures->fetch_add(1);
    halo_status_free(status);
    std::atomic<int>* calls = self->calls;
    delete self;  // The semaphore must not touch |timepoint| from now on.
    calls->fetch_add(1);
  }
};

HALO_CTS_CASE("timepoint.callback_frees_storage", kNeedSemaphores,
              "callbacks that delete their own heap timepoint (inline, on signal, on failure) do not crash; run under ASan") {
  halo_semaphore_t* semaphore = ctx.semaphore(10);
  std::atomic<int> calls{0}, failures{0};
  auto add = [&](uint64_t value) -> halo_status_t {
    auto* registration = new SelfFreeing;
    registration->timepoint.struct_size = sizeof(halo_timepoint_t);
    registration->timepoint.value = value;
    registration->timepoint.callback = &SelfFreeing::callback;
    registration->timepoint.user_data = registration;
    registration->calls = &calls;
    registration->failures = &failures;
    return halo_semaphore_acquire_timepoint(semaphore, &registration->timepoint);
  };
  for (uint64_t value = 1; value <= 200; ++value) CTS_ASSERT_OK(add(value));
  CTS_ASSERT_EQ(calls.load(), 10);  // 1..10 were reached: inline.
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 100));
  CTS_ASSERT(spin_until([&] { return calls.load() == 100; }));
  CTS_ASSERT_OK(halo_semaphore_fail(
      semaphore, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT(spin_until([&] { return calls.load() == 200; }));
  CTS_ASSERT_EQ(failures.load(), 100);
  CTS_ASSERT_OK(add(300));  // Inline on the failed semaphore.
  CTS_ASSERT_EQ(calls.load(), 201);
  CTS_ASSERT_EQ(failures.load(), 101);
}

}  // namespace
