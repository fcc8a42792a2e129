// submission.*: queue waits and signals (DESIGN.md §5): barriers, host
// signals, wait-before-signal, chains, fan-out, several waits and signals,
// failure propagation, signals that do not move a semaphore forward,
// releasing everything right after submit, wait_idle and semaphores of a
// second device. No case uses command buffers: these are the barrier-only
// rules every queue must keep.
#include <algorithm>
#include <atomic>
#include <numeric>

#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

constexpr char kFailureMessage[] = "cts: failed wait semaphore 9c41";

// Polls that |semaphore| has not reached |value|.
#define ASSERT_NOT_REACHED(semaphore, value)                                   \
  CTS_ASSERT_STATUS(                                                           \
      halo_semaphore_wait((semaphore), (value), HALO_DEADLINE_INFINITE_PAST), \
      HALO_STATUS_DEADLINE_EXCEEDED)

// Waits kNotYetMs for |semaphore| to reach |value| and asserts it does not:
// unlike a poll, this gives work that started too early the time to show.
constexpr int64_t kNotYetMs = 30;
#define ASSERT_STAYS_UNREACHED(semaphore, value)                                 \
  CTS_ASSERT_STATUS(                                                            \
      halo_semaphore_wait((semaphore), (value), deadline_in_ms(kNotYetMs)),     \
      HALO_STATUS_DEADLINE_EXCEEDED)

// Waits, with a generous deadline, until |semaphore| reaches |value|.
#define ASSERT_REACHES(semaphore, value) \
  CTS_ASSERT_OK(halo_semaphore_wait((semaphore), (value), deadline_in_ms(kGenerousMs)))

halo_semaphore_t* create_semaphore(halo_device_t* device, uint64_t initial) {
  halo_semaphore_t* semaphore = nullptr;
  CTS_ASSERT_OK(halo_semaphore_create(device, initial, HALO_SEMAPHORE_FLAG_NONE, &semaphore));
  return semaphore;
}

// --- barriers and host signals ------------------------------------------------

HALO_CTS_CASE("submission.barrier.signals", kNeedQueues,
              "a submission without command buffers or waits signals its semaphore") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {}, {}, {semaphore}, {1}));
  ASSERT_REACHES(semaphore, 1);
  CTS_ASSERT_EQ(value_of(semaphore), 1u);
}

HALO_CTS_CASE("submission.barrier.empty", kNeedQueues,
              "a submission with nothing to wait for or signal is OK, and wait_idle then returns OK") {
  CTS_ASSERT_OK(queue_execute(ctx.device(), {}, {}, {}, {}));
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("submission.barrier.flush", kNeedQueues,
              "queue_flush with any affinity is OK before and after a submission, which still completes") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  CTS_ASSERT_OK(halo_device_queue_flush(ctx.device(), HALO_QUEUE_AFFINITY_ANY));
  CTS_ASSERT_OK(queue_execute(ctx.device(), {}, {}, {semaphore}, {2}));
  CTS_ASSERT_OK(halo_device_queue_flush(ctx.device(), HALO_QUEUE_AFFINITY_ANY));
  ASSERT_REACHES(semaphore, 2);
}

HALO_CTS_CASE("submission.wait.host_signal", kNeedQueues,
              "a submission waiting on s1=1 signals s2=1 once the host signals s1") {
  halo_semaphore_t* s1 = ctx.semaphore(0);
  halo_semaphore_t* s2 = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {s1}, {1}, {s2}, {1}));
  CTS_ASSERT_OK(halo_semaphore_signal(s1, 1));
  ASSERT_REACHES(s2, 1);
}

HALO_CTS_CASE("submission.wait.before_signal", kNeedQueues,
              "a submission made before its wait is signalled does not run early (s2 polls 0), then runs after the signal") {
  halo_semaphore_t* s1 = ctx.semaphore(0);
  halo_semaphore_t* s2 = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {s1}, {5}, {s2}, {1}));
  ASSERT_NOT_REACHED(s2, 1);
  CTS_ASSERT_EQ(value_of(s2), 0u);
  CTS_ASSERT_OK(halo_semaphore_signal(s1, 4));  // Not yet 5.
  ASSERT_NOT_REACHED(s2, 1);
  CTS_ASSERT_OK(halo_semaphore_signal(s1, 5));
  ASSERT_REACHES(s2, 1);
}

HALO_CTS_CASE("submission.wait.already_reached", kNeedQueues,
              "a submission whose wait is already reached (and one waiting on 0) completes without a host signal") {
  halo_semaphore_t* s1 = ctx.semaphore(5);
  halo_semaphore_t* s2 = ctx.semaphore(0);
  halo_semaphore_t* s3 = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {s1}, {3}, {s2}, {1}));
  CTS_ASSERT_OK(queue_execute(ctx.device(), {ctx.semaphore(0)}, {0}, {s3}, {1}));
  ASSERT_REACHES(s2, 1);
  ASSERT_REACHES(s3, 1);
}

// --- chains ---------------------------------------------------------------------

HALO_CTS_CASE("submission.chain.one_semaphore", kNeedQueues,
              "1,000 submissions, the i-th waiting on s=i and signalling s=i+1, all made before s=1: s reaches 1,001") {
  constexpr uint64_t kLength = 1000;
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  for (uint64_t i = 1; i <= kLength; ++i) {
    CTS_ASSERT_OK(queue_execute(ctx.device(), {semaphore}, {i}, {semaphore}, {i + 1}));
  }
  CTS_ASSERT_EQ(value_of(semaphore), 0u);
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 1));
  ASSERT_REACHES(semaphore, kLength + 1);
  CTS_ASSERT_EQ(value_of(semaphore), kLength + 1);
}

HALO_CTS_CASE("submission.chain.shuffled_order", kNeedQueues,
              "the same 1,000-link chain submitted in seeded shuffled order completes: order comes only from semaphores") {
  constexpr uint64_t kLength = 1000;
  std::mt19937_64 rng = make_rng(ctx);
  std::vector<uint64_t> order(kLength);
  std::iota(order.begin(), order.end(), uint64_t{1});
  std::shuffle(order.begin(), order.end(), rng);
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  for (uint64_t i : order) {
    CTS_ASSERT_OK(queue_execute(ctx.device(), {semaphore}, {i}, {semaphore}, {i + 1}));
  }
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 1));
  ASSERT_REACHES(semaphore, kLength + 1);
  CTS_ASSERT_EQ(value_of(semaphore), kLength + 1);
}

HALO_CTS_CASE("submission.chain.across_semaphores", kNeedQueues,
              "1,000 submissions chained round-robin across 10 semaphores, released by one host signal, all complete") {
  constexpr uint64_t kLength = 1000, kWidth = 10;
  std::vector<halo_semaphore_t*> semaphores;
  for (uint64_t i = 0; i < kWidth; ++i) semaphores.push_back(ctx.semaphore(0));
  // Step i waits on semaphores[i % kWidth] = i / kWidth + 1 and signals the
  // next semaphore with the value the next step waits for.
  for (uint64_t i = 0; i < kLength; ++i) {
    const uint64_t next = i + 1;
    CTS_ASSERT_OK(queue_execute(ctx.device(), {semaphores[i % kWidth]},
                                {i / kWidth + 1}, {semaphores[next % kWidth]},
                                {next / kWidth + 1}));
  }
  for (halo_semaphore_t* semaphore : semaphores) CTS_ASSERT_EQ(value_of(semaphore), 0u);
  CTS_ASSERT_OK(halo_semaphore_signal(semaphores[0], 1));
  ASSERT_REACHES(semaphores[kLength % kWidth], kLength / kWidth + 1);
  for (uint64_t k = 0; k < kWidth; ++k) {
    CTS_ASSERT_EQ(value_of(semaphores[k]), (kLength - k) / kWidth + 1);
  }
}

// --- fan-out, several waits and signals ----------------------------------------------

HALO_CTS_CASE("submission.fan_out.one_signal", kNeedQueues,
              "two submissions waiting on values 1 and 2 of one semaphore both run after one host signal of 3") {
  halo_semaphore_t* source = ctx.semaphore(0);
  halo_semaphore_t* a = ctx.semaphore(0);
  halo_semaphore_t* b = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {source}, {1}, {a}, {1}));
  CTS_ASSERT_OK(queue_execute(ctx.device(), {source}, {2}, {b}, {1}));
  ASSERT_NOT_REACHED(a, 1);
  ASSERT_NOT_REACHED(b, 1);
  CTS_ASSERT_OK(halo_semaphore_signal(source, 3));
  ASSERT_REACHES(a, 1);
  ASSERT_REACHES(b, 1);
}

HALO_CTS_CASE("submission.fan_out.partial_signal", kNeedQueues,
              "of submissions waiting on 1 and 2, a host signal of 1 releases only the first") {
  halo_semaphore_t* source = ctx.semaphore(0);
  halo_semaphore_t* a = ctx.semaphore(0);
  halo_semaphore_t* b = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {source}, {2}, {b}, {1}));
  CTS_ASSERT_OK(queue_execute(ctx.device(), {source}, {1}, {a}, {1}));
  CTS_ASSERT_OK(halo_semaphore_signal(source, 1));
  ASSERT_REACHES(a, 1);
  ASSERT_NOT_REACHED(b, 1);
  CTS_ASSERT_OK(halo_semaphore_signal(source, 2));
  ASSERT_REACHES(b, 1);
}

HALO_CTS_CASE("submission.multiple.waits_and_signals", kNeedQueues,
              "one submission waits on 3 semaphores and signals 3: nothing until the last wait is reached, then every value") {
  halo_semaphore_t* w1 = ctx.semaphore(0);
  halo_semaphore_t* w2 = ctx.semaphore(0);
  halo_semaphore_t* w3 = ctx.semaphore(0);
  halo_semaphore_t* t1 = ctx.semaphore(0);
  halo_semaphore_t* t2 = ctx.semaphore(0);
  halo_semaphore_t* t3 = ctx.semaphore(4);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {w1, w2, w3}, {1, 2, 3}, {t1, t2, t3}, {1, 5, 7}));
  CTS_ASSERT_OK(halo_semaphore_signal(w1, 1));
  CTS_ASSERT_OK(halo_semaphore_signal(w3, 3));
  CTS_ASSERT_OK(halo_semaphore_signal(w2, 1));  // Still short of 2.
  ASSERT_STAYS_UNREACHED(t1, 1);
  CTS_ASSERT_EQ(value_of(t3), 4u);
  CTS_ASSERT_OK(halo_semaphore_signal(w2, 2));
  ASSERT_REACHES(t1, 1);
  ASSERT_REACHES(t2, 5);
  ASSERT_REACHES(t3, 7);
  CTS_ASSERT_EQ(value_of(t2), 5u);
  CTS_ASSERT_EQ(value_of(t3), 7u);
}

HALO_CTS_CASE("submission.wait.all_but_one_reached", kNeedQueues,
              "a submission waiting on 3 semaphores does not run while any one of them is short: its signal stays unreached for 30 ms, then comes once the last is signalled") {
  for (size_t last = 0; last < 3; ++last) {
    const std::vector<halo_semaphore_t*> waits = {ctx.semaphore(0), ctx.semaphore(0),
                                                  ctx.semaphore(0)};
    halo_semaphore_t* out = ctx.semaphore(0);
    CTS_ASSERT_OK(queue_execute(ctx.device(), waits, {1, 2, 3}, {out}, {1}));
    for (size_t i = 0; i < waits.size(); ++i) {
      if (i != last) CTS_ASSERT_OK(halo_semaphore_signal(waits[i], i + 1));
    }
    if (last > 0) CTS_ASSERT_OK(halo_semaphore_signal(waits[last], last));  // One short.
    ASSERT_STAYS_UNREACHED(out, 1);
    CTS_ASSERT_OK(halo_semaphore_signal(waits[last], last + 1));
    ASSERT_REACHES(out, 1);
  }
}

// --- failure propagation ------------------------------------------------------------

HALO_CTS_CASE("submission.fail.propagates", kNeedQueues,
              "failing a wait semaphore fails every signal semaphore of the submission and of one chained after it, same code and message") {
  halo_semaphore_t* gate = ctx.semaphore(0);
  halo_semaphore_t* a = ctx.semaphore(0);
  halo_semaphore_t* b = ctx.semaphore(3);
  halo_semaphore_t* c = ctx.semaphore(0);
  halo_semaphore_t* unrelated = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {gate, unrelated}, {1, 1}, {a, b}, {1, 4}));
  CTS_ASSERT_OK(queue_execute(ctx.device(), {a}, {1}, {c}, {1}));
  CTS_ASSERT_OK(halo_semaphore_fail(gate, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  const std::pair<halo_semaphore_t*, uint64_t> signals[] = {{a, 1}, {b, 4}, {c, 1}};
  for (const auto& [semaphore, signal_value] : signals) {
    CTS_ASSERT_FAILURE(halo_semaphore_wait(semaphore, signal_value, deadline_in_ms(kGenerousMs)),
                       HALO_STATUS_ABORTED, kFailureMessage);
    uint64_t value = 0;
    CTS_ASSERT_FAILURE(halo_semaphore_query(semaphore, &value), HALO_STATUS_ABORTED,
                       kFailureMessage);
    CTS_ASSERT(value >= HALO_SEMAPHORE_FAILURE_VALUE);
  }
  CTS_ASSERT_EQ(value_of(unrelated), 0u);  // Waits are never failed by it.
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
}

HALO_CTS_CASE("submission.fail.already_failed", kNeedQueues,
              "a submission waiting on an already failed semaphore fails its signal semaphores with that failure") {
  halo_semaphore_t* gate = ctx.semaphore(0);
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(halo_semaphore_fail(gate, make_status(HALO_STATUS_DATA_LOSS, kFailureMessage)));
  CTS_ASSERT_OK(queue_execute(ctx.device(), {gate}, {1}, {out}, {1}));
  CTS_ASSERT_FAILURE(halo_semaphore_wait(out, 1, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_DATA_LOSS, kFailureMessage);
}

HALO_CTS_CASE("submission.fail.long_chain", kNeedQueues,
              "a failure at the head of a 100-link chain reaches its end with the same code and message") {
  std::vector<halo_semaphore_t*> links;
  for (int i = 0; i <= 100; ++i) links.push_back(ctx.semaphore(0));
  for (int i = 0; i < 100; ++i) {
    CTS_ASSERT_OK(queue_execute(ctx.device(), {links[i]}, {1}, {links[i + 1]}, {1}));
  }
  CTS_ASSERT_OK(halo_semaphore_fail(links[0], make_status(HALO_STATUS_UNAVAILABLE, kFailureMessage)));
  CTS_ASSERT_FAILURE(halo_semaphore_wait(links[100], 1, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_UNAVAILABLE, kFailureMessage);
}

// --- lifetime: release right after submit --------------------------------------------

HALO_CTS_CASE("submission.release.everything_after_submit", kNeedQueues,
              "a device and its semaphores released right after submitting a 10-link chain: the work still completes") {
  halo_semaphore_t* gate = ctx.semaphore(0);  // Host-signalled; lives on.
  halo_device_t* device = create_case_device(ctx).take();
  std::vector<halo_semaphore_t*> links;
  for (int i = 0; i < 10; ++i) links.push_back(create_semaphore(device, 0));
  halo_semaphore_t* observed = links.back();
  halo_semaphore_retain(observed);  // The only reference kept.
  halo_status_t status = queue_execute(device, {gate}, {1}, {links[0]}, {1});
  for (int i = 0; status == nullptr && i < 9; ++i) {
    status = queue_execute(device, {links[i]}, {1}, {links[i + 1]}, {1});
  }
  for (halo_semaphore_t* link : links) halo_semaphore_release(link);
  halo_device_release(device);
  if (status != nullptr) halo_semaphore_release(observed);
  CTS_ASSERT_OK(status);
  CTS_ASSERT_OK(halo_semaphore_signal(gate, 1));
  status = halo_semaphore_wait(observed, 1, deadline_in_ms(kGenerousMs));
  halo_semaphore_release(observed);
  CTS_ASSERT_OK(status);
}

HALO_CTS_CASE("submission.release.observed_from_second_device", kNeedQueues,
              "a device released right after submitting still signals a semaphore of another device") {
  halo_semaphore_t* gate = ctx.semaphore(0);
  halo_semaphore_t* observer = ctx.semaphore(0);
  halo_device_t* device = create_case_device(ctx).take();
  halo_semaphore_t* middle = nullptr;
  halo_status_t status =
      halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE, &middle);
  if (status == nullptr) status = queue_execute(device, {gate}, {1}, {middle}, {1});
  if (status == nullptr) status = queue_execute(device, {middle}, {1}, {observer}, {1});
  halo_semaphore_release(middle);
  halo_device_release(device);
  CTS_ASSERT_OK(status);
  CTS_ASSERT_OK(halo_semaphore_signal(gate, 1));
  ASSERT_REACHES(observer, 1);
}

HALO_CTS_CASE("submission.release.failure_after_release", kNeedQueues,
              "a released device's submission still fails its (only externally held) signal semaphore when its wait fails") {
  halo_semaphore_t* gate = ctx.semaphore(0);
  halo_device_t* device = create_case_device(ctx).take();
  halo_semaphore_t* out = create_semaphore(device, 0);
  halo_status_t status = queue_execute(device, {gate}, {1}, {out}, {1});
  halo_device_release(device);
  if (status != nullptr) halo_semaphore_release(out);
  CTS_ASSERT_OK(status);
  halo_status_t failed =
      halo_semaphore_fail(gate, make_status(HALO_STATUS_ABORTED, kFailureMessage));
  status = failed != nullptr ? nullptr
                             : halo_semaphore_wait(out, 1, deadline_in_ms(kGenerousMs));
  halo_semaphore_release(out);
  CTS_ASSERT_OK(failed);
  CTS_ASSERT_FAILURE(status, HALO_STATUS_ABORTED, kFailureMessage);
}

// Semaphores the caller gave up right after a gated submit: only the
// submission holds them (DESIGN.md §5: everything a submission names is
// retained until it completes). The case cannot see them any more, but a
// plugin that did not retain them signals (or fails) freed memory when the
// gate opens. Semaphores created after the release are likely to reuse that
// memory, so they must stay at 0, unfailed; a sanitizer run sees the rest.
void check_released_signals(Context& ctx, bool fail_gate) {
  constexpr int kReleased = 4;
  Gate gate(ctx.device());
  halo_semaphore_t* done = ctx.semaphore(0);  // Signalled last; kept.
  std::vector<halo_semaphore_t*> signals;
  for (int i = 0; i < kReleased; ++i) signals.push_back(create_semaphore(ctx.device(), 0));
  signals.push_back(done);
  std::vector<uint64_t> values(signals.size(), 1);
  halo_status_t status = queue_execute(ctx.device(), {gate.get()}, {1}, signals, values);
  for (int i = 0; i < kReleased; ++i) halo_semaphore_release(signals[i]);
  CTS_ASSERT_OK(status);
  std::vector<halo_semaphore_t*> later;
  for (int i = 0; i < kReleased; ++i) later.push_back(ctx.semaphore(0));
  if (fail_gate) {
    gate.fail(HALO_STATUS_ABORTED, kFailureMessage);
    CTS_ASSERT_FAILURE(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)),
                       HALO_STATUS_ABORTED, kFailureMessage);
  } else {
    gate.open();
    ASSERT_REACHES(done, 1);
  }
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  for (halo_semaphore_t* semaphore : later) {
    uint64_t value = 0;
    halo_status_t state = halo_semaphore_query(semaphore, &value);
    const std::string seen = state == nullptr ? "reads " + to_text(value)
                                              : "failed: " + take_status_text(state);
    CTS_ASSERT_MSG(seen == "reads 0", "a semaphore created after the release " + seen +
                                          "; the submission " +
                                          (fail_gate ? "failed" : "signalled") +
                                          " memory it had not retained");
  }
}

HALO_CTS_CASE("submission.release.signals_after_submit", kNeedQueues,
              "signal semaphores released right after a gated submit are the submission's own: opening the gate touches no semaphore made after the release") {
  check_released_signals(ctx, false);
}

HALO_CTS_CASE("submission.release.signals_then_fail", kNeedQueues,
              "signal semaphores released right after a gated submit whose gate then fails: the failure reaches the kept one and no semaphore made after the release") {
  check_released_signals(ctx, true);
}

// --- wait_idle ---------------------------------------------------------------------------

HALO_CTS_CASE("submission.wait_idle.after_submissions", kNeedQueues,
              "wait_idle after 100 chained submissions returns OK and every signal has then happened") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {}, {}, {semaphore}, {1}));
  for (uint64_t i = 1; i < 100; ++i) {
    CTS_ASSERT_OK(queue_execute(ctx.device(), {semaphore}, {i}, {semaphore}, {i + 1}));
  }
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_EQ(value_of(semaphore), 100u);
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), HALO_DEADLINE_INFINITE_PAST));
}

HALO_CTS_CASE("submission.wait_idle.lets_go_of_the_device", kNeedQueues,
              "after wait_idle, 50 done submissions hold no reference to the device: its count is what it was before them") {
  // The count is the object header's (halo/object.h), read atomically as
  // the ABI asks. A plugin that drops a submission's device reference after
  // wait_idle returned leaves the device to be torn down on its own thread,
  // racing the application's exit.
  auto reference_count = [](halo_device_t* device) {
    auto* header = reinterpret_cast<halo_object_t*>(device);
    return std::atomic_ref<uint32_t>(header->ref_count).load(std::memory_order_acquire);
  };
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  // One round first: a plugin may set up per-device state on first use.
  CTS_ASSERT_OK(queue_execute(ctx.device(), {}, {}, {semaphore}, {1}));
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  const uint32_t before = reference_count(ctx.device());
  for (uint64_t i = 1; i <= 50; ++i) {
    CTS_ASSERT_OK(queue_execute(ctx.device(), {semaphore}, {i}, {semaphore}, {i + 1}));
  }
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_EQ(reference_count(ctx.device()), before);
}

HALO_CTS_CASE("submission.wait_idle.fresh_device", kNeedQueues,
              "wait_idle on a device with no submissions is OK, even as a poll") {
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), HALO_DEADLINE_INFINITE_PAST));
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), HALO_DEADLINE_INFINITE_FUTURE));
}

HALO_CTS_CASE("submission.wait_idle.pending", kNeedQueues,
              "wait_idle with a blocked submission is DEADLINE_EXCEEDED (poll and 5 ms), then OK once released") {
  halo_semaphore_t* gate = ctx.semaphore(0);
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {gate}, {1}, {out}, {1}));
  CTS_ASSERT_STATUS(halo_device_wait_idle(ctx.device(), HALO_DEADLINE_INFINITE_PAST),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_STATUS(halo_device_wait_idle(ctx.device(), deadline_in_ms(5)),
                    HALO_STATUS_DEADLINE_EXCEEDED);
  CTS_ASSERT_OK(halo_semaphore_signal(gate, 1));
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  CTS_ASSERT_EQ(value_of(out), 1u);
}

// --- signals that do not move the semaphore forward ------------------------------------

HALO_CTS_CASE("submission.signal.not_above_payload", kNeedQueues,
              "queue_execute refuses a signal at or below the payload with INVALID_ARGUMENT and submits nothing") {
  halo_semaphore_t* semaphore = ctx.semaphore(5);
  halo_semaphore_t* other = ctx.semaphore(0);
  CTS_ASSERT_INVALID(queue_execute(ctx.device(), {}, {}, {other, semaphore}, {1, 5}),
                     "halo_device_queue_execute");
  CTS_ASSERT_INVALID(queue_execute(ctx.device(), {}, {}, {other, semaphore}, {1, 3}),
                     "halo_device_queue_execute");
  CTS_ASSERT_OK(halo_device_wait_idle(ctx.device(), deadline_in_ms(kGenerousMs)));
  // Nothing of the refused submissions ran: neither signal landed.
  CTS_ASSERT_EQ(value_of(semaphore), 5u);
  CTS_ASSERT_EQ(value_of(other), 0u);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {}, {}, {semaphore}, {6}));
  ASSERT_REACHES(semaphore, 6);
}

HALO_CTS_CASE("submission.signal.passed_while_pending", kNeedQueues,
              "a queue signal that finds the payload already past its value fails the semaphore with INVALID_ARGUMENT naming both values") {
  // The signalled semaphore belongs to a second device, so every plugin
  // signals it from the host side and can see the payload it meets.
  halo_semaphore_t* target = ctx.semaphore(0, ctx.second_device());
  halo_semaphore_t* gate = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {gate}, {1}, {target}, {1000}));
  CTS_ASSERT_OK(halo_semaphore_signal(target, 1001));
  CTS_ASSERT_OK(halo_semaphore_signal(gate, 1));
  halo_status_t status = halo_semaphore_wait(target, 1002, deadline_in_ms(kGenerousMs));
  const halo_status_code_t code = halo_status_code(status);
  const std::string message = halo_status_message(status);
  const std::string text = take_status_text(status);
  if (code != HALO_STATUS_INVALID_ARGUMENT ||
      message.find("1000") == std::string::npos ||
      message.find("1001") == std::string::npos) {
    fail(__FILE__, __LINE__,
         "waiting on the passed semaphore returned " + text +
             ", expected INVALID_ARGUMENT naming the values 1000 and 1001");
  }
}

// --- semaphores of a second device -------------------------------------------------------

HALO_CTS_CASE("submission.second_device.wait", kNeedQueues,
              "a submission waits on a host-signalled semaphore of a second device of the plugin") {
  halo_semaphore_t* remote = ctx.semaphore(0, ctx.second_device());
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {remote}, {2}, {out}, {1}));
  CTS_ASSERT_OK(halo_semaphore_signal(remote, 1));
  ASSERT_NOT_REACHED(out, 1);
  CTS_ASSERT_OK(halo_semaphore_signal(remote, 2));
  ASSERT_REACHES(out, 1);
}

HALO_CTS_CASE("submission.second_device.signal", kNeedQueues,
              "a submission signals a semaphore of a second device of the plugin") {
  halo_semaphore_t* remote = ctx.semaphore(0, ctx.second_device());
  CTS_ASSERT_OK(queue_execute(ctx.device(), {}, {}, {remote}, {3}));
  ASSERT_REACHES(remote, 3);
}

HALO_CTS_CASE("submission.second_device.ping_pong", kNeedQueues,
              "two devices' queues hand a value back and forth 200 times through each other's semaphores") {
  constexpr uint64_t kRounds = 200;
  halo_device_t* first = ctx.device();
  halo_device_t* second = ctx.second_device();
  halo_semaphore_t* on_first = ctx.semaphore(0, first);
  halo_semaphore_t* on_second = ctx.semaphore(0, second);
  // Round i: the first device waits on_first = i and signals on_second = i;
  // the second waits on_second = i and signals on_first = i + 1.
  for (uint64_t i = 1; i <= kRounds; ++i) {
    CTS_ASSERT_OK(queue_execute(first, {on_first}, {i}, {on_second}, {i}));
    CTS_ASSERT_OK(queue_execute(second, {on_second}, {i}, {on_first}, {i + 1}));
  }
  CTS_ASSERT_OK(halo_semaphore_signal(on_first, 1));
  ASSERT_REACHES(on_first, kRounds + 1);
  CTS_ASSERT_EQ(value_of(on_second), kRounds);
}

HALO_CTS_CASE("submission.second_device.fail", kNeedQueues,
              "a failed semaphore of a second device fails the signal semaphores of a submission waiting on it") {
  halo_semaphore_t* remote = ctx.semaphore(0, ctx.second_device());
  halo_semaphore_t* out = ctx.semaphore(0);
  CTS_ASSERT_OK(queue_execute(ctx.device(), {remote}, {1}, {out}, {1}));
  CTS_ASSERT_OK(halo_semaphore_fail(remote, make_status(HALO_STATUS_ABORTED, kFailureMessage)));
  CTS_ASSERT_FAILURE(halo_semaphore_wait(out, 1, deadline_in_ms(kGenerousMs)),
                     HALO_STATUS_ABORTED, kFailureMessage);
}

}  // namespace
