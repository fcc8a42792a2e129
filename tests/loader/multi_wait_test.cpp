// halo_semaphores_wait over semaphores of different devices, which libhalo
// itself serves (through polls and timepoints) rather than one device's
// native wait: a failed semaphore anywhere in the list wins, in ANY mode too
// (DESIGN.md §4). Two devices of the cpu plugin make such a mix.
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

#if defined(HALO_TEST_HAVE_CPU_PLUGIN)

class MultiWaitTest : public LoaderTest {
 protected:
  void SetUp() override {
    registry_ = scan({HALO_TEST_CPU_MANIFEST});
    ASSERT_EQ(registry_.driver_count(), 1u) << describe(registry_.plugins());
    first_ = registry_.create_device(0);
    second_ = registry_.create_device(0);
    ASSERT_NE(first_.get(), second_.get()) << "two devices are needed for a mix";
    reached_ = first_.create_semaphore(5);
    pending_ = first_.create_semaphore(0);
    failed_ = second_.create_semaphore(0);
    failed_.fail(HALO_STATUS_DATA_LOSS, "the result was lost");
  }

  // Waits on |semaphores| for value 1 each, with |mode| and |deadline|.
  halo_status_t wait(halo_wait_mode_t mode, const std::vector<halo::Semaphore>& semaphores,
                     halo_time_ns_t deadline) {
    std::vector<halo_semaphore_t*> handles;
    for (const auto& semaphore : semaphores) handles.push_back(semaphore.get());
    const std::vector<uint64_t> values(handles.size(), 1);
    return halo_semaphores_wait(mode, handles.size(), handles.data(), values.data(),
                                deadline);
  }

  halo::Registry registry_;
  halo::Device first_;
  halo::Device second_;
  halo::Semaphore reached_;
  halo::Semaphore pending_;
  halo::Semaphore failed_;
};

// The case that used to return OK: ANY met by the first pair, with a failed
// semaphore after it.
TEST_F(MultiWaitTest, AnyReportsAFailureListedAfterAReachedSemaphore) {
  for (halo_time_ns_t deadline :
       {HALO_DEADLINE_INFINITE_PAST, HALO_DEADLINE_INFINITE_FUTURE}) {
    expect_status(wait(HALO_WAIT_MODE_ANY, {reached_, failed_}, deadline),
                  HALO_STATUS_DATA_LOSS, "the result was lost");
  }
}

TEST_F(MultiWaitTest, AnyReportsAFailureListedBeforeAReachedSemaphore) {
  expect_status(wait(HALO_WAIT_MODE_ANY, {failed_, reached_}, HALO_DEADLINE_INFINITE_PAST),
                HALO_STATUS_DATA_LOSS, "the result was lost");
}

TEST_F(MultiWaitTest, AllReportsAFailureAmongReachedSemaphores) {
  expect_status(wait(HALO_WAIT_MODE_ALL, {reached_, failed_}, HALO_DEADLINE_INFINITE_PAST),
                HALO_STATUS_DATA_LOSS, "the result was lost");
}

// Without a failure, ANY is met by one reached pair and a poll of an unmet
// list says DEADLINE_EXCEEDED.
TEST_F(MultiWaitTest, AnyWithoutFailureIsMetByOneReachedSemaphore) {
  const halo::Semaphore other = second_.create_semaphore(0);
  EXPECT_EQ(wait(HALO_WAIT_MODE_ANY, {pending_, reached_, other}, HALO_DEADLINE_INFINITE_PAST),
            nullptr);
  expect_status(wait(HALO_WAIT_MODE_ANY, {pending_, other}, HALO_DEADLINE_INFINITE_PAST),
                HALO_STATUS_DEADLINE_EXCEEDED);
  expect_status(wait(HALO_WAIT_MODE_ALL, {pending_, reached_}, HALO_DEADLINE_INFINITE_PAST),
                HALO_STATUS_DEADLINE_EXCEEDED);
}

#endif  // HALO_TEST_HAVE_CPU_PLUGIN

}  // namespace
}  // namespace halo_test
