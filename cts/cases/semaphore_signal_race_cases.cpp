// semaphore.threads.racing_*: signals that race for the same next value
// (DESIGN.md §4: a signal must be above the payload, else INVALID_ARGUMENT
// and the value is unchanged). The check and the store of a signal must be
// one step; a plugin that checks, then stores, lets two signals both pass
// the check only when they arrive together. So the threads here meet at a
// spinning barrier before every round, and signal within a few instructions
// of each other, round after round; --repeat soaks them further.
#include <vector>

#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr uint64_t kRounds = 300;

// Lets |count| threads leave arrive() together, round after round. Spins
// (yielding, which returns at once when nothing else waits for the core)
// instead of sleeping, as a wake-up from a sleep would spread the threads
// apart by far more than the window being tested.
class SpinBarrier {
 public:
  explicit SpinBarrier(int count) : count_(count) {}

  // Returns false when the other threads did not arrive within kGenerousMs
  // (one of them stopped), so that no thread waits for ever.
  bool arrive() {
    const uint64_t generation = generation_.load(std::memory_order_acquire);
    if (arrived_.fetch_add(1, std::memory_order_acq_rel) + 1 == count_) {
      arrived_.store(0, std::memory_order_relaxed);
      generation_.fetch_add(1, std::memory_order_acq_rel);
      return true;
    }
    return spin_until(
        [&] { return generation_.load(std::memory_order_acquire) != generation; });
  }

 private:
  const int count_;
  std::atomic<int> arrived_{0};
  std::atomic<uint64_t> generation_{0};
};

// What one signal of a round returned: OK, INVALID_ARGUMENT, or anything
// else (a failure of the case on its own).
enum class Outcome : uint8_t { kNotRun, kOk, kInvalid, kOther };

Outcome outcome_of(halo_status_t status) {
  const halo_status_code_t code = halo_status_code(status);
  halo_status_free(status);
  if (code == HALO_STATUS_OK) return Outcome::kOk;
  return code == HALO_STATUS_INVALID_ARGUMENT ? Outcome::kInvalid : Outcome::kOther;
}

// What a race saw: each thread's outcome per round, [t][r], and the payload
// after each round, [r] (rounds count from 1).
struct Rounds {
  std::vector<Outcome> outcomes[2];
  std::vector<uint64_t> payloads;
};

// Runs kRounds rounds on two threads. In round r thread t signals
// value(r, t) once both have arrived; once both have signalled, thread 0
// reads the payload. Fails the case when a thread lost the other.

template <typename ValueOf>
Rounds race(halo_semaphore_t* semaphore, ValueOf value) {
  Rounds rounds;
  for (auto& outcomes : rounds.outcomes) outcomes.assign(kRounds + 1, Outcome::kNotRun);
  rounds.payloads.assign(kRounds + 1, 0);
  SpinBarrier barrier(2);
  std::atomic<bool> lost{false};
  {
    ThreadGroup threads;
    for (int t = 0; t < 2; ++t) {
      threads.start([&, t] {
        for (uint64_t r = 1; r <= kRounds; ++r) {
          if (!barrier.arrive()) return lost.store(true);
          rounds.outcomes[t][r] = outcome_of(halo_semaphore_signal(semaphore, value(r, t)));
          if (!barrier.arrive()) return lost.store(true);
          if (t == 0) {
            uint64_t payload = 0;
            halo_status_free(halo_semaphore_query(semaphore, &payload));
            rounds.payloads[r] = payload;
          }
        }
      });
    }
  }
  CTS_ASSERT_MSG(!lost.load(), "a signalling thread stopped arriving at the barrier");
  return rounds;
}

std::string round_text(uint64_t r, const Rounds& rounds) {
  auto name = [](Outcome outcome) {
    switch (outcome) {
      case Outcome::kOk: return "OK";
      case Outcome::kInvalid: return "INVALID_ARGUMENT";
      case Outcome::kOther: return "another code";
      case Outcome::kNotRun: break;
    }
    return "nothing";
  };
  return "round " + to_text(r) + ": thread 0 got " + name(rounds.outcomes[0][r]) +
         ", thread 1 got " + name(rounds.outcomes[1][r]) + ", payload then " +
         to_text(rounds.payloads[r]);
}

HALO_CTS_CASE("semaphore.threads.racing_same_value", kNeedSemaphores,
              "2 threads released together signal the same next value, 300 rounds: exactly one gets OK, the other INVALID_ARGUMENT") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  const Rounds rounds = race(semaphore, [](uint64_t r, int) { return r; });
  for (uint64_t r = 1; r <= kRounds; ++r) {
    const Outcome a = rounds.outcomes[0][r], b = rounds.outcomes[1][r];
    const bool one_won = (a == Outcome::kOk && b == Outcome::kInvalid) ||
                         (a == Outcome::kInvalid && b == Outcome::kOk);
    CTS_ASSERT_MSG(one_won && rounds.payloads[r] == r, round_text(r, rounds));
  }
  CTS_ASSERT_EQ(value_of(semaphore), kRounds);
}

HALO_CTS_CASE("semaphore.threads.racing_two_values", kNeedSemaphores,
              "2 threads released together signal 2r+1 and 2r+2 over a payload of 2r, 300 rounds: 2r+2 gets OK and the payload ends at 2r+2, never lower") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  // The threads swap values every round, so each is the lower one as often.
  const Rounds rounds = race(semaphore, [](uint64_t r, int t) {
    return 2 * (r - 1) + 1 + ((r + static_cast<uint64_t>(t)) % 2);
  });
  for (uint64_t r = 1; r <= kRounds; ++r) {
    const int higher = static_cast<int>(r % 2 == 0);  // The thread of 2r.
    const Outcome high = rounds.outcomes[higher][r], low = rounds.outcomes[1 - higher][r];
    // The lower value lands only before the higher one: OK or refused.
    const bool ordered = high == Outcome::kOk &&
                         (low == Outcome::kOk || low == Outcome::kInvalid);
    CTS_ASSERT_MSG(ordered && rounds.payloads[r] == 2 * r, round_text(r, rounds));
  }
  CTS_ASSERT_EQ(value_of(semaphore), 2 * kRounds);
}

}  // namespace
