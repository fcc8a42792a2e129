// timepoint.cancel_*: the corners of a race-free cancel (DESIGN.md §4,
// semaphore.h): on a semaphore the timepoint is not registered on, from
// inside a callback of the same dispatch, and while another thread (or the
// device's queue) runs the dispatch. Whatever cancel returns must be true:
// true, and the callback never runs; false, and it has run to completion.
#include <mutex>
#include <vector>

#include "timepoint_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr char kFailureMessage[] = "cts: failure cancelled around 7d20";

// --- on another semaphore --------------------------------------------------------

HALO_CTS_CASE("timepoint.cancel_on_other_semaphore", kNeedSemaphores,
              "cancelling a pending timepoint on a semaphore it is not registered on returns false and changes nothing: it still fires once on its own") {
  halo_semaphore_t* owner = ctx.semaphore(0);
  halo_semaphore_t* other = ctx.semaphore(0);
  Probe probe;
  halo_timepoint_t timepoint = make_timepoint(5, &probe);
  CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(owner, &timepoint));
  CTS_ASSERT(!cancel(other, &timepoint));
  CTS_ASSERT_OK(halo_semaphore_signal(other, 5));  // Not its semaphore.
  CTS_ASSERT_EQ(probe.calls.load(), 0);
  CTS_ASSERT_OK(halo_semaphore_signal(owner, 5));
  CTS_ASSERT(spin_until([&] { return probe.calls.load() >= 1; }));
  CTS_ASSERT(!cancel(owner, &timepoint));  // It ran: nothing to cancel.
  CTS_ASSERT(!cancel(other, &timepoint));
  CTS_ASSERT_EQ(probe.calls.load(), 1);
}

HALO_CTS_CASE("timepoint.cancel_on_other_semaphore_with_pending", kNeedSemaphores,
              "timepoints of two semaphores (two devices) each cancelled on the other's semaphore: every cancel returns false and every timepoint fires once") {
  halo_semaphore_t* semaphores[2] = {ctx.semaphore(0), ctx.semaphore(0, ctx.second_device())};
  constexpr int kEach = 3;
  Probe probes[2][kEach];
  halo_timepoint_t timepoints[2][kEach];
  for (int s = 0; s < 2; ++s) {
    for (int i = 0; i < kEach; ++i) {
      timepoints[s][i] = make_timepoint(static_cast<uint64_t>(i + 1), &probes[s][i]);
      CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(semaphores[s], &timepoints[s][i]));
    }
  }
  for (int s = 0; s < 2; ++s) {
    for (int i = 0; i < kEach; ++i) {
      CTS_ASSERT_MSG(!cancel(semaphores[1 - s], &timepoints[s][i]),
                     "semaphore " + to_text(s) + "'s timepoint " + to_text(i) +
                         " was cancelled through the other semaphore");
    }
  }
  for (int s = 0; s < 2; ++s) {
    CTS_ASSERT_OK(halo_semaphore_signal(semaphores[s], kEach));
    for (int i = 0; i < kEach; ++i) {
      Probe& probe = probes[s][i];
      CTS_ASSERT_MSG(spin_until([&] { return probe.calls.load() >= 1; }),
                     "semaphore " + to_text(s) + "'s timepoint " + to_text(i) + " never fired");
      CTS_ASSERT(!cancel(semaphores[s], &timepoints[s][i]));
      CTS_ASSERT_EQ(probe.calls.load(), 1);
    }
  }
}

// --- from inside a callback of the same dispatch ----------------------------------

// Timepoints on one value whose callbacks each cancel all the others. One
// signal or fail releases them in one dispatch, so the first callback to
// run finds the others not started and drops them (semaphore.h: a callback
// may always cancel timepoints of its own dispatch): exactly one runs.
struct MutualCancel {
  static constexpr int kCount = 4;
  halo_semaphore_t* semaphore = nullptr;
  halo_timepoint_t timepoints[kCount];
  std::atomic<int> calls[kCount] = {};
  std::atomic<int> failures{0};
  std::atomic<int> finished{0};
  std::atomic<bool> done[kCount] = {};
  std::mutex mutex;
  std::string error;  // The first thing a callback saw wrong.

  void record(const std::string& what) {
    std::lock_guard<std::mutex> lock(mutex);
    if (error.empty()) error = what;
  }

  static void callback(void* user_data, halo_timepoint_t* timepoint, halo_status_t status) {
    auto* self = static_cast<MutualCancel*>(user_data);
    const int index = static_cast<int>(timepoint - self->timepoints);
    if (status != nullptr) self->failures.fetch_add(1);
    halo_status_free(status);
    self->calls[index].fetch_add(1);
    for (int other = 0; other < kCount; ++other) {
      if (other == index) continue;
      bool cancelled = false;
      halo_status_t result = halo_semaphore_cancel_timepoint(
          self->semaphore, &self->timepoints[other], &cancelled);
      if (result != nullptr) {
        self->record("callback " + to_text(index) + ": cancel returned " +
                     take_status_text(result));
      } else if (!cancelled && !self->done[other].load()) {
        self->record("callback " + to_text(index) + ": cancelling timepoint " +
                     to_text(other) +
                     " of its own dispatch returned false, yet its callback had not run");
      }
    }
    self->done[index].store(true);
    self->finished.fetch_add(1);
  }
};

// Registers MutualCancel's timepoints, then signals or fails the semaphore.
void check_mutual_cancel(Context& ctx, bool by_failure) {
  MutualCancel state;
  state.semaphore = ctx.semaphore(0);
  for (halo_timepoint_t& timepoint : state.timepoints) {
    timepoint = make_timepoint(3, &MutualCancel::callback, &state);
    CTS_ASSERT_OK(halo_semaphore_acquire_timepoint(state.semaphore, &timepoint));
  }
  if (by_failure) {
    CTS_ASSERT_OK(halo_semaphore_fail(state.semaphore,
                                      make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  } else {
    CTS_ASSERT_OK(halo_semaphore_signal(state.semaphore, 3));
  }
  // The dispatch may run on another thread: once a callback has finished its
  // cancels, cancelling from here waits for whatever still runs.
  CTS_ASSERT(spin_until([&] { return state.finished.load() >= 1; }));
  for (halo_timepoint_t& timepoint : state.timepoints) cancel(state.semaphore, &timepoint);
  int ran = 0;
  for (int i = 0; i < MutualCancel::kCount; ++i) ran += state.calls[i].load();
  std::lock_guard<std::mutex> lock(state.mutex);
  CTS_ASSERT_MSG(state.error.empty(), state.error);
  CTS_ASSERT_MSG(ran == 1, to_text(ran) + " of the " + to_text(MutualCancel::kCount) +
                               " callbacks ran; the first should have cancelled the rest");
  CTS_ASSERT_EQ(state.failures.load(), by_failure ? 1 : 0);
}

HALO_CTS_CASE("timepoint.cancel_within_dispatch", kNeedSemaphores,
              "4 timepoints released by one signal each cancel the others from their callbacks: exactly one runs, and its cancels return true") {
  check_mutual_cancel(ctx, false);
}

HALO_CTS_CASE("timepoint.cancel_within_failure_dispatch", kNeedSemaphores,
              "4 timepoints released by one fail each cancel the others from their callbacks: exactly one runs, with the failure, and its cancels return true") {
  check_mutual_cancel(ctx, true);
}

// --- while another thread dispatches ------------------------------------------------

constexpr int kSlowPerRound = 8;

// One round of timepoints, all on the round's value. The first callback to
// start takes a while and, before that, waits (for at most a second) until
// the canceller has begun cancelling: the canceller needs nothing but that
// callback's start to get there, so no plugin can deadlock on it, and
// whatever the scheduler does, the cancels land while that callback runs.
// The other callbacks return at once.
struct SlowRound {
  halo_timepoint_t timepoints[kSlowPerRound];
  std::atomic<int> calls[kSlowPerRound] = {};
  std::atomic<bool> finished[kSlowPerRound] = {};
  std::atomic<int> first{-1};  // The index of the first callback to start.
  std::atomic<bool> cancelling{false};
  bool cancelled[kSlowPerRound] = {};
  bool released = false;  // Its value was made to arrive.

  static void callback(void* user_data, halo_timepoint_t* timepoint, halo_status_t status) {
    auto* self = static_cast<SlowRound*>(user_data);
    const int index = static_cast<int>(timepoint - self->timepoints);
    halo_status_free(status);
    self->calls[index].fetch_add(1);
    int none = -1;
    if (self->first.compare_exchange_strong(none, index)) {
      const halo_time_ns_t give_up = deadline_in_ms(1000);
      while (!self->cancelling.load() && halo_time_now_ns() < give_up) {
        std::this_thread::yield();  // The canceller may share this core.
      }
      std::atomic<uint32_t> work{0};
      for (int i = 0; i < 5000; ++i) work.fetch_add(1, std::memory_order_relaxed);
    }
    self->finished[index].store(true);
  }
};

// Records what cancelling timepoint |index| of |state| returned. Returns
// what it got wrong, or "". Never throws.
std::string cancel_one(halo_semaphore_t* semaphore, uint64_t round, SlowRound& state,
                       int index) {
  bool cancelled = false;
  halo_status_t status =
      halo_semaphore_cancel_timepoint(semaphore, &state.timepoints[index], &cancelled);
  if (status != nullptr) return "cancel returned " + take_status_text(status);
  state.cancelled[index] = cancelled;
  if (!cancelled && !state.finished[index].load()) {
    return "round " + to_text(round) + ": cancel of timepoint " + to_text(index) +
           " returned false while its callback had not run to completion";
  }
  return "";
}

// On the canceller's thread: once the first callback of |state| has
// started, cancels every other timepoint of it, the last registered first
// (those may still wait in the dispatch), then the first one, which is
// running. Returns what went wrong, or "" (also when |stop| comes first).
// Never throws.
std::string cancel_round(halo_semaphore_t* semaphore, uint64_t round, SlowRound& state,
                         const std::atomic<bool>& stop) {
  if (!spin_until([&] { return state.first.load() >= 0 || stop.load(); })) {
    return "round " + to_text(round) + ": no callback started";
  }
  const int first = state.first.load();
  if (first < 0) return "";
  state.cancelling.store(true);
  std::string error;
  for (int i = kSlowPerRound - 1; i >= 0 && error.empty(); --i) {
    if (i != first) error = cancel_one(semaphore, round, state, i);
  }
  return error.empty() ? cancel_one(semaphore, round, state, first) : error;
}

// Runs |rounds| (from index 1): the case's thread registers a round's
// timepoints on |semaphore|, on the round's value, and calls |release| to
// make that value arrive (it returns what went wrong, or ""); a canceller
// thread cancels them while the first callback runs, wherever the semaphore
// runs it. Returns what went wrong, or "".
std::string run_cancel_rounds(halo_semaphore_t* semaphore, std::vector<SlowRound>& rounds,
                              const std::function<std::string(uint64_t)>& release) {
  std::atomic<uint64_t> released{0}, done{0};
  std::atomic<bool> stop{false};
  std::string canceller_error, error;
  {
    ThreadGroup threads;
    threads.start([&] {
      for (uint64_t round = 1; round < rounds.size(); ++round) {
        spin_until([&] { return released.load() >= round || stop.load(); });
        if (stop.load()) return;
        canceller_error = cancel_round(semaphore, round, rounds[round], stop);
        done.store(round);
        if (!canceller_error.empty()) return;
      }
    });
    struct Stop {  // Releases the canceller however this block is left.
      std::atomic<bool>& flag;
      ~Stop() { flag.store(true); }
    } stop_on_exit{stop};
    for (uint64_t round = 1; round < rounds.size() && error.empty(); ++round) {
      SlowRound& state = rounds[round];
      for (int i = 0; i < kSlowPerRound && error.empty(); ++i) {
        state.timepoints[i] = make_timepoint(round, &SlowRound::callback, &state);
        halo_status_t status =
            halo_semaphore_acquire_timepoint(semaphore, &state.timepoints[i]);
        if (status != nullptr) {
          error = "acquire returned " + take_status_text(status);
          while (i-- > 0) state.cancelled[i] = cancel(semaphore, &state.timepoints[i]);
        }
      }
      if (!error.empty()) break;
      // Before the release: the callbacks may run inside it, on this thread.
      released.store(round);
      error = release(round);
      if (!error.empty()) break;
      state.released = true;
      // Yields, so that a dispatch on this core can run.
      if (!spin_until([&] { return done.load() >= round; })) {
        error = "round " + to_text(round) + ": the canceller never finished";
      } else if (!canceller_error.empty()) {
        error = canceller_error;
      }
    }
  }
  return error;
}

// Waits until every callback of a released round that was not cancelled
// has finished, so that none runs on storage the case is about to free.
bool settle(const std::vector<SlowRound>& rounds) {
  return spin_until([&] {
    for (const SlowRound& round : rounds) {
      for (int i = 0; round.released && i < kSlowPerRound; ++i) {
        if (!round.cancelled[i] && !round.finished[i].load()) return false;
      }
    }
    return true;
  });
}

// Checks, once every dispatch is over, that no cancelled callback ran and
// every other ran once.
void check_slow_rounds(const std::vector<SlowRound>& rounds) {
  for (size_t r = 0; r < rounds.size(); ++r) {
    for (int i = 0; rounds[r].released && i < kSlowPerRound; ++i) {
      const int calls = rounds[r].calls[i].load();
      CTS_ASSERT_MSG(calls == (rounds[r].cancelled[i] ? 0 : 1),
                     "round " + to_text(r) + ", timepoint " + to_text(i) + ": " +
                         (rounds[r].cancelled[i] ? "cancelled" : "not cancelled") +
                         ", and its callback ran " + to_text(calls) + " time(s)");
    }
  }
}

HALO_CTS_CASE("timepoint.cancel_during_other_thread_dispatch", kNeedSemaphores,
              "40 rounds: 8 timepoints released by a host signal are cancelled from another thread while the first callback runs: true ones never run, false ones had finished") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  // Every round keeps its storage until the end, so a callback that runs
  // after a cancel said "never" is counted, not a use-after-free.
  std::vector<SlowRound> rounds(40 + 1);
  const std::string error = run_cancel_rounds(semaphore, rounds, [&](uint64_t round) {
    halo_status_t status = halo_semaphore_signal(semaphore, round);
    return status == nullptr ? std::string()
                             : "signal returned " + take_status_text(status);
  });
  CTS_ASSERT(settle(rounds));
  CTS_ASSERT_MSG(error.empty(), error);
  check_slow_rounds(rounds);
}

HALO_CTS_CASE("timepoint.cancel_during_queue_dispatch", kNeedQueues,
              "20 rounds: 8 timepoints released by a queue signal are cancelled from a host thread while the first callback runs: true ones never run, false ones had finished") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  std::vector<SlowRound> rounds(20 + 1);
  const std::string error = run_cancel_rounds(semaphore, rounds, [&](uint64_t round) {
    halo_status_t status = queue_execute(ctx.device(), {}, {}, {semaphore}, {round});
    return status == nullptr ? std::string()
                             : "queue_execute returned " + take_status_text(status);
  });
  CTS_ASSERT(settle(rounds));
  CTS_ASSERT_MSG(error.empty(), error);
  check_slow_rounds(rounds);
}

}  // namespace
