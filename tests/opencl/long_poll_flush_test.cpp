// A polled submission whose work outlasts the worker's spin joins the long
// polls (plugins/opencl/queue.hpp). OpenCL may hold enqueued commands back
// until the queue is flushed, so the worker flushes for work the
// implementation still holds (CL_QUEUED), when it joins or when a later
// poll finds it so, or it would poll forever; and only for that, as on
// NVIDIA's driver a flush wakes a driver thread that then spins beside the
// caller's enqueues (bench/README.md).
//
// Runs through held_status_opencl.cpp (named by HALO_OPENCL_LIBRARY) with
// completion polled for 50 µs (HALO_OPENCL_COMPLETION_POLL_US=50, which
// kPastTheSpin counts on); the library answers the worker's status queries
// as such an implementation would. The tests wait with
// halo_device_wait_idle, which waits for the worker: a host wait on the
// work itself would flush (clWaitForEvents does).
#include <CL/cl.h>

#include <cstdint>

#include "held_status_controls.hpp"
#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

// More status queries than the worker's spin of 50 µs makes (one every
// 4 µs, after 10 µs without) and its question as the work joins the long
// polls: the rest come from its long polls.
constexpr size_t kPastTheSpin = 30;
constexpr int64_t kPatienceMs = 20000;

class LongPollFlushTest : public OpenClTest {
 protected:
  void SetUp() override {
    OpenClTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(
        find_held_status_controls(HALO_TEST_HELD_STATUS_LIBRARY, &controls_));
    buffer_ = make_buffer(256);
    fill_ = begin_command_buffer();
    const uint32_t pattern = 0xF1u;
    HALO_ASSERT_OK(halo_command_buffer_fill(fill_.get(), buffer_.get(), 0, 256,
                                            &pattern, 4));
    HALO_ASSERT_OK(halo_command_buffer_end(fill_.get()));
    done_ = make_semaphore();
    controls_.record_fills();
  }

  void TearDown() override {
    if (controls_.forget_fills != nullptr) {
      // The implementation's own answers again, so that nothing stays in
      // flight after a test that stopped early.
      controls_.forget_fills();
      HALO_EXPECT_OK(
          halo_device_wait_idle(device(), deadline_in_ms(kPatienceMs)));
    }
    done_.reset();
    fill_.reset();
    buffer_.reset();
    OpenClTest::TearDown();
  }

  // Submits the fill, signalling |done_| to 1.
  void submit_fill() {
    HALO_ASSERT_OK(submit(fill_.get(), {}, {}, {done_.get()}, {1}));
  }

  // Submits the fill answering "handed to the device but not ended" until
  // the test says otherwise, and returns once the worker's spin is past and
  // its long polls have begun; |*flushes| is the count before the submit.
  void submit_fill_past_the_spin(size_t* flushes) {
    controls_.answer_fills_from(0, CL_SUBMITTED);
    *flushes = controls_.flushes();
    submit_fill();
    ASSERT_TRUE(controls_.wait_status_queries(0, kPastTheSpin, kPatienceMs));
  }

  // Waits for the worker to land everything (a wait that a flush the
  // worker owes and never makes times out), then checks the signal.
  void expect_landed() {
    HALO_ASSERT_OK(
        halo_device_wait_idle(device(), deadline_in_ms(kPatienceMs)));
    uint64_t value = 0;
    HALO_ASSERT_OK(halo_semaphore_query(done_.get(), &value));
    EXPECT_EQ(value, 1u);
  }

  HeldStatusControls controls_;
  BufferPtr buffer_;
  CommandBufferPtr fill_;
  SemaphorePtr done_;
};

TEST_F(LongPollFlushTest, WorkHeldUntilAFlushIsFlushedAndLands) {
  controls_.queue_until_flush();
  const size_t flushes = controls_.flushes();
  submit_fill();
  expect_landed();
  EXPECT_GT(controls_.flushes(), flushes);
}

TEST_F(LongPollFlushTest, WorkAlreadySubmittedIsNotFlushed) {
  size_t flushes = 0;
  ASSERT_NO_FATAL_FAILURE(submit_fill_past_the_spin(&flushes));
  EXPECT_EQ(controls_.flushes(), flushes);
  controls_.answer_fills_from(SIZE_MAX, 0);
  expect_landed();
}

TEST_F(LongPollFlushTest, WorkFoundHeldInALaterPollIsFlushed) {
  // Handed to the device as it joins the long polls, so no flush then; held
  // from a later poll on, as after a failed question or for a run's older
  // submissions, which are not asked as they join.
  size_t flushes = 0;
  ASSERT_NO_FATAL_FAILURE(submit_fill_past_the_spin(&flushes));
  ASSERT_EQ(controls_.flushes(), flushes);
  controls_.queue_until_flush();
  controls_.answer_fills_from(SIZE_MAX, 0);
  expect_landed();
  EXPECT_GT(controls_.flushes(), flushes);
}

}  // namespace
}  // namespace halo_opencl_test
