// Host-released work and long dependency chains: what halo's semaphores
// cost on top of the OpenCL events they are built on.
//
// The dependent work is one 4-byte fill on both sides. A halo barrier (a
// submission without command buffers) enqueues nothing at all: its
// completion event is the submission's gate itself (a user event), or,
// with nothing to wait for, an event that is already complete. A raw side
// doing "nothing" would have no command to wait on, so both sides do the
// smallest command the device runs: halo submits a command buffer recorded
// once with one 4-byte fill of a word, the raw side enqueues the same
// clEnqueueFillBuffer on its own word (word_fill.hpp).
#include "fixture.hpp"
#include "opencl_benchmarks.hpp"
#include "raw_holder.hpp"
#include "raw_poller.hpp"
#include "raw_retirer.hpp"
#include "word_fill.hpp"

namespace halo::bench {

void user_event_release_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  RawOpenCl& raw = fixture().raw();
  cl_mem word = fixture().raw_resources().word.get();
  InstructionCount count(state, 1);
  for (auto _ : state) {
    cl_int code = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(raw.context(), &code);
    check_cl(code, "clCreateUserEvent");
    cl_event done = enqueue_word_fill(raw.queue(), word, 1, &gate);
    check_cl(clSetUserEventStatus(gate, CL_COMPLETE), "clSetUserEventStatus");
    wait_and_release(done);
    check_cl(clReleaseEvent(gate), "clReleaseEvent");
  }
  check_cl(clFinish(raw.queue()), "clFinish");
}

void user_event_release_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  CommandBufferPtr fill =
      record_word_fill(device, fixture().halo_resources().word.get());
  SemaphorePtr release = make_semaphore(device, 0);
  SemaphorePtr done = make_semaphore(device, 0);
  uint64_t value = 0;
  InstructionCount count(state, 1);
  for (auto _ : state) {
    ++value;
    // Submitted before the host signal: the wait is on a value nobody has
    // signalled yet, so the plugin gates the fill on a user event, as the
    // raw side does by hand.
    submit(device, {release.get(), value}, {done.get(), value}, fill.get());
    check(halo_semaphore_signal(release.get(), value), "halo_semaphore_signal");
    wait({done.get(), value});
  }
  check(halo_device_wait_idle(device, HALO_DEADLINE_INFINITE_FUTURE),
        "halo_device_wait_idle");
}

namespace {

// The raw chain; with a |retirer| (RawRetirer, RawPoller, RawHolder), each
// link's event goes to it instead of being released at once.
template <typename Retirer>
void chain_raw(benchmark::State& state, Retirer* retirer) {
  PinnedTimedThread pinned;
  cl_command_queue queue = fixture().raw().queue();
  cl_mem word = fixture().raw_resources().word.get();
  auto let_go = [retirer](cl_event event) {
    if (retirer != nullptr) {
      retirer->retire(event);
    } else {
      check_cl(clReleaseEvent(event), "clReleaseEvent");
    }
  };
  InstructionCount count(state, kChainLength);
  for (auto _ : state) {
    cl_event previous = enqueue_word_fill(queue, word, 0, nullptr);
    for (int link = 1; link < kChainLength; ++link) {
      cl_event next = enqueue_word_fill(queue, word, 1, &previous);
      let_go(previous);
      previous = next;
    }
    check_cl(clWaitForEvents(1, &previous), "clWaitForEvents");
    let_go(previous);
  }
  state.counters["links"] = benchmark::Counter(
      kChainLength, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

void chain_native(benchmark::State& state) {
  chain_raw<RawRetirer>(state, nullptr);
}

void chain_native_retiring(benchmark::State& state) {
  RawRetirer retirer;
  chain_raw(state, &retirer);
}

void chain_native_polling(benchmark::State& state) {
  RawPoller poller;
  chain_raw(state, &poller);
}

void chain_native_holding(benchmark::State& state) {
  RawHolder holder;
  chain_raw(state, &holder);
}

void chain_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  CommandBufferPtr fill =
      record_word_fill(device, fixture().halo_resources().word.get());
  SemaphorePtr chain = make_semaphore(device, 0);
  uint64_t value = 0;
  InstructionCount count(state, kChainLength);
  for (auto _ : state) {
    // The first link's wait is already reached, as the raw side's first
    // fill waits on nothing; every later one is on the value the link
    // before signals, which the plugin chains on that link's event.
    for (int link = 0; link < kChainLength; ++link) {
      submit(device, {chain.get(), value}, {chain.get(), value + 1},
             fill.get());
      ++value;
    }
    wait({chain.get(), value});
  }
  check(halo_device_wait_idle(device, HALO_DEADLINE_INFINITE_FUTURE),
        "halo_device_wait_idle");
  state.counters["links"] = benchmark::Counter(
      kChainLength, benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace halo::bench
