// The cpu device's queue (DESIGN.md §5): barriers, waits on host-signalled
// and not-yet-signalled values, chains, fan-out, failure propagation,
// lifetimes and wait_idle.
#include <thread>
#include <vector>

#include "cpu_test_util.hpp"

namespace halo_cpu_test {
namespace {

using QueueTest = CpuTest;

halo_status_t wait_forever(halo_semaphore_t* semaphore, uint64_t value) {
  return halo_semaphore_wait(semaphore, value, HALO_DEADLINE_INFINITE_FUTURE);
}

TEST_F(QueueTest, BarrierSignals) {
  SemaphorePtr signal = make_semaphore(0);
  submit({}, {}, {signal.get()}, {3});
  HALO_EXPECT_OK(wait_forever(signal.get(), 3));
  EXPECT_EQ(query(signal.get()), 3u);
}

TEST_F(QueueTest, WaitsOnAHostSignal) {
  SemaphorePtr wait = make_semaphore(0);
  SemaphorePtr signal = make_semaphore(0);
  submit({wait.get()}, {1}, {signal.get()}, {1});
  std::thread host([&] { HALO_EXPECT_OK(halo_semaphore_signal(wait.get(), 1)); });
  HALO_EXPECT_OK(wait_forever(signal.get(), 1));
  host.join();
}

// The wait names a value that is not signalled yet; a lower signal must not
// release it (checked without timing: the submission cannot have run).
TEST_F(QueueTest, WaitBeforeSignal) {
  SemaphorePtr wait = make_semaphore(0);
  SemaphorePtr signal = make_semaphore(0);
  submit({wait.get()}, {5}, {signal.get()}, {1});
  HALO_EXPECT_OK(halo_semaphore_signal(wait.get(), 4));
  HALO_EXPECT_OK(halo_device_queue_flush(device(), HALO_QUEUE_AFFINITY_ANY));
  EXPECT_EQ(query(signal.get()), 0u);
  HALO_EXPECT_OK(halo_semaphore_signal(wait.get(), 5));
  HALO_EXPECT_OK(wait_forever(signal.get(), 1));
}

// Each submission waits for the previous one's signal on one semaphore; the
// host starts the chain. The worker signals outside the timepoint callback,
// so a long chain iterates rather than recursing.
TEST_F(QueueTest, ChainOfAThousandSubmissions) {
  constexpr uint64_t kLength = 1000;
  SemaphorePtr chain = make_semaphore(0);
  for (uint64_t i = 1; i <= kLength; ++i) {
    submit({chain.get()}, {i}, {chain.get()}, {i + 1});
  }
  HALO_EXPECT_OK(halo_semaphore_signal(chain.get(), 1));
  HALO_EXPECT_OK(wait_forever(chain.get(), kLength + 1));
  HALO_EXPECT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_FUTURE));
}

// The same chain over alternating semaphores, submitted last-first so every
// wait names a value nobody has promised yet.
TEST_F(QueueTest, ReverseSubmittedChainAcrossSemaphores) {
  constexpr uint64_t kLength = 200;
  std::vector<SemaphorePtr> semaphores = make_semaphores(2);
  for (uint64_t i = kLength; i >= 1; --i) {
    halo_semaphore_t* from = semaphores[i % 2].get();
    halo_semaphore_t* to = semaphores[(i + 1) % 2].get();
    submit({from}, {i}, {to}, {i + 1});
  }
  HALO_EXPECT_OK(halo_semaphore_signal(semaphores[1].get(), 1));
  HALO_EXPECT_OK(wait_forever(semaphores[(kLength + 1) % 2].get(), kLength + 1));
}

TEST_F(QueueTest, FanOut) {
  constexpr size_t kWidth = 50;
  SemaphorePtr start = make_semaphore(0);
  std::vector<SemaphorePtr> outs = make_semaphores(kWidth);
  for (auto& out : outs) submit({start.get()}, {1}, {out.get()}, {7});
  HALO_EXPECT_OK(halo_semaphore_signal(start.get(), 1));
  std::vector<halo_semaphore_t*> handles;
  for (auto& out : outs) handles.push_back(out.get());
  std::vector<uint64_t> values(kWidth, 7);
  HALO_EXPECT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ALL, handles.size(),
                                      handles.data(), values.data(),
                                      HALO_DEADLINE_INFINITE_FUTURE));
}

TEST_F(QueueTest, MultipleWaitAndSignalSemaphores) {
  std::vector<SemaphorePtr> waits = make_semaphores(3);
  std::vector<SemaphorePtr> signals = make_semaphores(3);
  submit({waits[0].get(), waits[1].get(), waits[2].get()}, {1, 2, 3},
         {signals[0].get(), signals[1].get(), signals[2].get()}, {4, 5, 6});
  HALO_EXPECT_OK(halo_semaphore_signal(waits[0].get(), 1));
  HALO_EXPECT_OK(halo_semaphore_signal(waits[2].get(), 3));
  EXPECT_EQ(query(signals[0].get()), 0u);  // waits[1] is still short.
  std::thread host(
      [&] { HALO_EXPECT_OK(halo_semaphore_signal(waits[1].get(), 2)); });
  HALO_EXPECT_OK(wait_forever(signals[0].get(), 4));
  HALO_EXPECT_OK(wait_forever(signals[1].get(), 5));
  HALO_EXPECT_OK(wait_forever(signals[2].get(), 6));
  host.join();
}

TEST_F(QueueTest, WaitFailurePropagatesToEverySignalSemaphore) {
  SemaphorePtr healthy = make_semaphore(0);
  SemaphorePtr doomed = make_semaphore(0);
  std::vector<SemaphorePtr> signals = make_semaphores(2);
  SemaphorePtr downstream = make_semaphore(0);
  submit({healthy.get(), doomed.get()}, {1, 1},
         {signals[0].get(), signals[1].get()}, {1, 1});
  // A second submission waits on the first's signal: the failure travels on.
  submit({signals[1].get()}, {1}, {downstream.get()}, {1});
  HALO_EXPECT_OK(halo_semaphore_fail(
      doomed.get(), halo_status_create(HALO_STATUS_DATA_LOSS, "bad input")));
  for (halo_semaphore_t* semaphore :
       {signals[0].get(), signals[1].get(), downstream.get()}) {
    Status status(wait_forever(semaphore, 1));
    EXPECT_EQ(status.code(), HALO_STATUS_DATA_LOSS);
    EXPECT_EQ(status.message(), "bad input");
  }
  // Nothing hangs: the healthy wait, never reached, was cancelled.
  HALO_EXPECT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_FUTURE));
}

TEST_F(QueueTest, AlreadyFailedWaitFailsTheSignals) {
  SemaphorePtr failed = make_semaphore(0);
  SemaphorePtr signal = make_semaphore(0);
  HALO_EXPECT_OK(halo_semaphore_fail(
      failed.get(), halo_status_create(HALO_STATUS_ABORTED, "before")));
  submit({failed.get()}, {1}, {signal.get()}, {1});
  Status status(wait_forever(signal.get(), 1));
  EXPECT_EQ(status.code(), HALO_STATUS_ABORTED);
  EXPECT_EQ(status.message(), "before");
}

TEST_F(QueueTest, ReleaseEveryHandleRightAfterSubmit) {
  SemaphorePtr observer = make_semaphore(0);
  halo_semaphore_t* wait = nullptr;
  halo_semaphore_t* signal = nullptr;
  HALO_ASSERT_OK(halo_semaphore_create(device(), 0, 0, &wait));
  HALO_ASSERT_OK(halo_semaphore_create(device(), 0, 0, &signal));
  submit({wait}, {1}, {signal, observer.get()}, {1, 1});
  // A second submission keeps the signal semaphore busy after its release.
  submit({signal}, {1}, {}, {});
  halo_semaphore_retain(wait);
  halo_semaphore_release(signal);
  halo_semaphore_release(wait);
  std::thread host([wait] {
    HALO_EXPECT_OK(halo_semaphore_signal(wait, 1));
    halo_semaphore_release(wait);  // The queue holds the last reference.
  });
  HALO_EXPECT_OK(wait_forever(observer.get(), 1));
  host.join();
  HALO_EXPECT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_FUTURE));
}

// A device released right after submitting lives on until its submissions
// complete, and may then die on its own worker thread.
TEST_F(QueueTest, ReleaseTheDeviceRightAfterSubmit) {
  for (int i = 0; i < 20; ++i) {
    SemaphorePtr wait = make_semaphore(0);
    SemaphorePtr observer = make_semaphore(0);
    {
      DevicePtr other = make_device();
      halo_semaphore_t* local = nullptr;
      HALO_ASSERT_OK(halo_semaphore_create(other.get(), 0, 0, &local));
      submit({wait.get()}, {1}, {local, observer.get()}, {1, 1}, other.get());
      halo_semaphore_release(local);
    }
    HALO_EXPECT_OK(halo_semaphore_signal(wait.get(), 1));
    HALO_EXPECT_OK(wait_forever(observer.get(), 1));
  }
}

TEST_F(QueueTest, SubmissionsAcrossDevices) {
  DevicePtr other = make_device();
  SemaphorePtr first = make_semaphore(0);
  SemaphorePtr second = make_semaphore(0);
  SemaphorePtr third = make_semaphore(0);
  submit({first.get()}, {1}, {second.get()}, {1}, other.get());
  submit({second.get()}, {1}, {third.get()}, {1});
  HALO_EXPECT_OK(halo_semaphore_signal(first.get(), 1));
  HALO_EXPECT_OK(wait_forever(third.get(), 1));
}

TEST_F(QueueTest, WaitIdle) {
  HALO_EXPECT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_PAST));
  SemaphorePtr gate = make_semaphore(0);
  std::vector<SemaphorePtr> outs = make_semaphores(4);
  for (auto& out : outs) submit({gate.get()}, {1}, {out.get()}, {1});
  Status polled(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_PAST));
  EXPECT_EQ(polled.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  Status timed(halo_device_wait_idle(device(), deadline_in_ms(1)));
  EXPECT_EQ(timed.code(), HALO_STATUS_DEADLINE_EXCEEDED);
  std::thread host([&] { HALO_EXPECT_OK(halo_semaphore_signal(gate.get(), 1)); });
  HALO_EXPECT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_FUTURE));
  host.join();
  // Idle means every submission completed: all signals are visible.
  for (auto& out : outs) EXPECT_EQ(query(out.get()), 1u);
  HALO_EXPECT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_PAST));
}

TEST_F(QueueTest, AffinityWithoutQueueZeroIsRejected) {
  SemaphorePtr signal = make_semaphore(0);
  halo_semaphore_t* handle = signal.get();
  uint64_t value = 1;
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = 2;
  info.signal_count = 1;
  info.signal_semaphores = &handle;
  info.signal_values = &value;
  Status status(halo_device_queue_execute(device(), &info));
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT);
}

TEST_F(QueueTest, ConcurrentSubmittersAndSignallers) {
  constexpr int kThreads = 3;
  constexpr uint64_t kPerThread = 100;
  std::vector<SemaphorePtr> gates = make_semaphores(kThreads);
  std::vector<SemaphorePtr> outs = make_semaphores(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (uint64_t v = 1; v <= kPerThread; ++v) {
        submit({gates[t].get()}, {v}, {outs[t].get()}, {v});
        HALO_EXPECT_OK(halo_semaphore_signal(gates[t].get(), v));
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (auto& out : outs) HALO_EXPECT_OK(wait_forever(out.get(), kPerThread));
  HALO_EXPECT_OK(halo_device_wait_idle(device(), HALO_DEADLINE_INFINITE_FUTURE));
}

}  // namespace
}  // namespace halo_cpu_test
