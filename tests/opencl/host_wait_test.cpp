// Host waits without a deadline on values that issued submissions signal:
// the waiting thread may land such a submission's signal itself, on its
// completion event, before OpenCL's callback does (plugins/opencl/README.md,
// "Semaphores and submissions"). Whichever lands it, every value is reached
// once, in order, with nothing signalled twice or lost.
#include <thread>
#include <vector>

#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

class HostWaitTest : public OpenClTest {
 protected:
  // Submits link |value| of a chain on |step|: it waits for value - 1
  // (nothing for the first link) and raises every one of |signals| to
  // |value|.
  halo_status_t submit_link(halo_command_buffer_t* command_buffer,
                            halo_semaphore_t* step, uint64_t value,
                            const std::vector<halo_semaphore_t*>& signals) {
    std::vector<halo_semaphore_t*> waits;
    std::vector<uint64_t> wait_values;
    if (value > 1) {
      waits = {step};
      wait_values = {value - 1};
    }
    return submit(command_buffer, waits, wait_values, signals,
                  std::vector<uint64_t>(signals.size(), value));
  }
};

constexpr uint64_t kLinks = 300;

uint64_t value_of(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  HALO_EXPECT_OK(halo_semaphore_query(semaphore, &value));
  return value;
}

TEST_F(HostWaitTest, WaitsOnEveryLinkOfAChainSeeItReached) {
  SemaphorePtr step = make_semaphore(), mirror = make_semaphore();
  for (uint64_t value = 1; value <= kLinks; ++value) {
    HALO_ASSERT_OK(
        submit_link(nullptr, step.get(), value, {step.get(), mirror.get()}));
  }
  // The last link first, then every earlier one, which must be reached.
  for (uint64_t value = kLinks; value >= 1; --value) {
    HALO_ASSERT_OK(
        halo_semaphore_wait(step.get(), value, HALO_DEADLINE_INFINITE_FUTURE));
    ASSERT_GE(value_of(step.get()), value);
  }
  halo_semaphore_t* both[] = {step.get(), mirror.get()};
  const uint64_t values[] = {kLinks, kLinks};
  HALO_ASSERT_OK(halo_semaphores_wait(HALO_WAIT_MODE_ALL, 2, both, values,
                                      HALO_DEADLINE_INFINITE_FUTURE));
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  EXPECT_EQ(value_of(step.get()), kLinks);
  EXPECT_EQ(value_of(mirror.get()), kLinks);
  // The semaphores go on: a later submission raises them again.
  HALO_ASSERT_OK(submit(nullptr, {step.get()}, {kLinks},
                        {step.get(), mirror.get()}, {kLinks + 1, kLinks + 1}));
  HALO_ASSERT_OK(halo_semaphore_wait(mirror.get(), kLinks + 1,
                                     HALO_DEADLINE_INFINITE_FUTURE));
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
  EXPECT_EQ(value_of(step.get()), kLinks + 1);
}

// Work waited on from several host threads at once: each signal lands
// exactly once, by whichever thread gets there first.
TEST_F(HostWaitTest, ManyThreadsWaitingOnTheSameSubmissions) {
  SemaphorePtr step = make_semaphore();
  BufferPtr buffer = make_buffer(1 << 20);
  CommandBufferPtr fill = begin_command_buffer();
  const uint32_t pattern = 0x11223344;
  HALO_ASSERT_OK(halo_command_buffer_fill(fill.get(), buffer.get(), 0,
                                          HALO_WHOLE_BUFFER, &pattern, 4));
  HALO_ASSERT_OK(halo_command_buffer_end(fill.get()));
  constexpr uint64_t kRounds = 50;
  for (uint64_t round = 1; round <= kRounds; ++round) {
    HALO_ASSERT_OK(submit_link(fill.get(), step.get(), round, {step.get()}));
    std::vector<std::thread> waiters;
    std::vector<int> results(4, -1);
    for (int i = 0; i < 4; ++i) {
      waiters.emplace_back([&, i] {
        halo_status_t status = halo_semaphore_wait(
            step.get(), round, HALO_DEADLINE_INFINITE_FUTURE);
        results[i] = halo_status_code(status);
        halo_status_free(status);
      });
    }
    for (std::thread& waiter : waiters) waiter.join();
    for (int i = 0; i < 4; ++i) {
      ASSERT_EQ(results[i], HALO_STATUS_OK) << "round " << round;
    }
    ASSERT_EQ(value_of(step.get()), round);
  }
  HALO_ASSERT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
}

}  // namespace
}  // namespace halo_opencl_test
