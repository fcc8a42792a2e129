// Submissions without work: a chain of 10,000, one submit-to-wait round
// trip, and a host signal that releases a waiting submission.
//
// Both sides make one submission per call (halo_device_queue_execute with no
// command buffers, a barrier; vkQueueSubmit of one VkSubmitInfo with no
// command buffers) and block in the host wait with no timeout
// (halo_semaphore_wait with HALO_DEADLINE_INFINITE_FUTURE;
// vkWaitSemaphores with UINT64_MAX). Each run starts from fresh semaphores
// and keeps counting values up, so no submission ever waits on a value a
// previous run left behind.
#include "halo_objects.hpp"
#include "raw_objects.hpp"
#include "vulkan_benchmarks.hpp"

namespace halo::bench {

namespace {

// The raw chain; |how|: whether and how each link is also retired as it
// ends (RawRetirer).
void chain_raw(benchmark::State& state, Retiring how) {
  std::unique_ptr<RawRetirer> retirer = retirer_if(how);
  PinTimedThread pin;
  const RawDevice& raw = raw_device();
  RawSemaphore timeline;
  uint64_t value = 0;
  run_timed(state, [&] {
    // Submission k waits for value k - 1 and signals k: each runs only
    // after the one before it.
    for (int i = 0; i < kChainLength; ++i, ++value) {
      raw_submit(raw, timeline.get(), value, timeline.get(), value + 1,
                 VK_NULL_HANDLE, retirer.get());
    }
    raw_wait(raw, timeline.get(), value);
  }, kChainLength);
  raw_finish_run(raw);
  state.SetItemsProcessed(state.iterations() * kChainLength);
}

// The raw submit + wait; |how| as above.
void submit_wait_raw(benchmark::State& state, Retiring how) {
  std::unique_ptr<RawRetirer> retirer = retirer_if(how);
  PinTimedThread pin;
  const RawDevice& raw = raw_device();
  RawSemaphore done;
  uint64_t value = 0;
  run_timed(state, [&] {
    ++value;
    raw_submit(raw, VK_NULL_HANDLE, 0, done.get(), value, VK_NULL_HANDLE,
               retirer.get());
    raw_wait(raw, done.get(), value);
  });
  raw_finish_run(raw);
}

}  // namespace

void chain_native(benchmark::State& state) { chain_raw(state, Retiring::kNo); }

void chain_native_retiring(benchmark::State& state) {
  chain_raw(state, Retiring::kWaiting);
}

void chain_halo(benchmark::State& state) {
  HaloDeviceScope device;
  PinTimedThread pin;
  HaloSemaphore timeline(device.get());
  uint64_t value = 0;
  run_timed(state, [&] {
    for (int i = 0; i < kChainLength; ++i, ++value) {
      halo_submit(device.get(), timeline.get(), value, timeline.get(),
                  value + 1, nullptr);
    }
    halo_wait(timeline.get(), value);
  }, kChainLength);
  state.SetItemsProcessed(state.iterations() * kChainLength);
}

void submit_wait_native(benchmark::State& state) {
  submit_wait_raw(state, Retiring::kNo);
}

void submit_wait_native_retiring(benchmark::State& state) {
  submit_wait_raw(state, Retiring::kWaiting);
}

void submit_wait_native_retiring_polling(benchmark::State& state) {
  submit_wait_raw(state, Retiring::kPolling);
}

void submit_wait_halo(benchmark::State& state) {
  HaloDeviceScope device;
  PinTimedThread pin;
  HaloSemaphore done(device.get());
  uint64_t value = 0;
  run_timed(state, [&] {
    ++value;
    halo_submit(device.get(), nullptr, 0, done.get(), value, nullptr);
    halo_wait(done.get(), value);
  });
}

namespace {

// The raw host-signalled wait. |on_signal| false: submit first (a wait
// before its signal, which timeline semaphores allow), then signal from the
// host. True: the same promise as halo's (DESIGN.md §5: work behind a
// failed wait never runs): the batch is queued only once the host has
// signalled its gate, so it waits on a value already reached; halo may not
// queue it first, and the two figures show the promise's price. Then, in
// both, wait for the submission's own signal. |how| as above: raw Vulkan
// that also retires each submission as it ends keeps both of halo's
// promises.
void host_signal_wake_raw(benchmark::State& state, bool on_signal,
                          Retiring how) {
  std::unique_ptr<RawRetirer> retirer = retirer_if(how);
  PinTimedThread pin;
  const RawDevice& raw = raw_device();
  RawSemaphore gate;
  RawSemaphore done;
  uint64_t value = 0;
  run_timed(state, [&] {
    ++value;
    if (!on_signal) {
      raw_submit(raw, gate.get(), value, done.get(), value, VK_NULL_HANDLE,
                 retirer.get());
    }
    raw_signal(raw, gate.get(), value);
    if (on_signal) {
      raw_submit(raw, gate.get(), value, done.get(), value, VK_NULL_HANDLE,
                 retirer.get());
    }
    raw_wait(raw, done.get(), value);
  });
  raw_finish_run(raw);
}

}  // namespace

void host_signal_wake_native(benchmark::State& state) {
  host_signal_wake_raw(state, /*on_signal=*/false, Retiring::kNo);
}

void host_signal_wake_native_on_signal(benchmark::State& state) {
  host_signal_wake_raw(state, /*on_signal=*/true, Retiring::kNo);
}

void host_signal_wake_native_on_signal_retiring_polling(
    benchmark::State& state) {
  host_signal_wake_raw(state, /*on_signal=*/true, Retiring::kPolling);
}

void host_signal_wake_halo(benchmark::State& state) {
  HaloDeviceScope device;
  PinTimedThread pin;
  HaloSemaphore gate(device.get());
  HaloSemaphore done(device.get());
  uint64_t value = 0;
  run_timed(state, [&] {
    ++value;
    halo_submit(device.get(), gate.get(), value, done.get(), value, nullptr);
    check_halo(halo_semaphore_signal(gate.get(), value),
               "halo_semaphore_signal");
    halo_wait(done.get(), value);
  });
}

}  // namespace halo::bench
