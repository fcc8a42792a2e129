// The worker sees a chain by its newest links: a submission chained on an
// earlier one of the same queue shows that one's end, so the older one
// lands without its completion event being asked about
// (plugins/opencl/queue.hpp). Work that nothing newer covers, and the
// links a failed link covers, are asked about before they land. And the
// events it is done with go once the queue is idle.
//
// Runs through held_status_opencl.cpp (named by HALO_OPENCL_LIBRARY) with
// completion polled (HALO_OPENCL_COMPLETION_POLL_US). Status queries block
// until the test lets them through: each test first submits a blocker that
// nothing covers and waits until the worker is blocked asking about it,
// then submits what it tests, so that the worker has all of it in hand
// before any answer comes, and lets the answers through once the device
// has finished every fill.
#include <string>
#include <vector>

#include "held_status_controls.hpp"
#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

constexpr size_t kLinks = 8;
// cl_int CL_OUT_OF_RESOURCES, which a failed kernel may end with.
constexpr int32_t kCommandFailed = -5;

class ChainLandingTest : public OpenClTest {
 protected:
  void SetUp() override {
    OpenClTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    ASSERT_TRUE(
        find_held_status_controls(HALO_TEST_HELD_STATUS_LIBRARY, &status_));
    // One fill a submission: its event is the submission's completion.
    buffer_ = make_buffer(256);
    fill_ = begin_command_buffer();
    const uint32_t pattern = 0xC4A1Bu;
    HALO_ASSERT_OK(halo_command_buffer_fill(fill_.get(), buffer_.get(), 0, 256,
                                            &pattern, 4));
    HALO_ASSERT_OK(halo_command_buffer_end(fill_.get()));
    status_.hold();
    // The blocker: recorded fill 0.
    blocker_ = make_semaphore();
    HALO_ASSERT_OK(submit(fill_.get(), {}, {}, {blocker_.get()}, {1}));
    status_.wait_held_query();
  }

  void TearDown() override {
    // Nothing may stay held past a test that stopped early.
    if (status_.let_through != nullptr) {
      status_.let_through();
      HALO_EXPECT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
      status_.forget_fills();
    }
    blocker_.reset();
    fill_.reset();
    buffer_.reset();
    OpenClTest::TearDown();
  }

  // Submits a chain of kLinks links on |step|, each link waiting for the
  // one before (so the device chains the two) and raising |step| and its
  // own semaphore of |done|.
  void submit_chain(halo_semaphore_t* step, std::vector<SemaphorePtr>* done) {
    for (uint64_t value = 1; value <= kLinks; ++value) {
      std::vector<halo_semaphore_t*> waits;
      std::vector<uint64_t> wait_values;
      if (value > 1) {
        waits = {step};
        wait_values = {value - 1};
      }
      done->push_back(make_semaphore());
      HALO_ASSERT_OK(submit(fill_.get(), waits, wait_values,
                            {step, done->back().get()}, {value, 1}));
    }
  }

  // Lets the held queries through once the device is done, waits for every
  // submission to retire, and returns the status queries of each fill after
  // the blocker's.
  std::vector<size_t> finish_and_count() {
    status_.let_through();
    HALO_EXPECT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
    std::vector<size_t> queries;
    for (size_t i = 1; i < status_.recorded_fills(); ++i) {
      queries.push_back(status_.status_queries(i));
    }
    return queries;
  }

  static std::string describe(const std::vector<size_t>& queries) {
    std::string text = "status queries per submission:";
    for (size_t count : queries) {
      text += ' ';
      text += std::to_string(count);
    }
    return text;
  }

  HeldStatusControls status_;
  BufferPtr buffer_;
  CommandBufferPtr fill_;
  SemaphorePtr blocker_;
};

// Returns the status code of a query of |semaphore|, its value in |value|.
halo_status_code_t query(halo_semaphore_t* semaphore, uint64_t* value) {
  halo_status_t status = halo_semaphore_query(semaphore, value);
  const halo_status_code_t code = halo_status_code(status);
  halo_status_free(status);
  return code;
}

TEST_F(ChainLandingTest, ALinkANewerLinkCoversLandsUnasked) {
  SemaphorePtr step = make_semaphore();
  std::vector<SemaphorePtr> done;
  submit_chain(step.get(), &done);
  const std::vector<size_t> queries = finish_and_count();
  ASSERT_EQ(queries.size(), kLinks);
  // When the worker took the first link, the second, which covers it, was
  // issued already.
  EXPECT_EQ(queries[0], 0u) << describe(queries);
  uint64_t value = 0;
  EXPECT_EQ(query(step.get(), &value), HALO_STATUS_OK);
  EXPECT_EQ(value, kLinks);
  for (const SemaphorePtr& link_done : done) {
    EXPECT_EQ(query(link_done.get(), &value), HALO_STATUS_OK);
    EXPECT_EQ(value, 1u);
  }
}

TEST_F(ChainLandingTest, WorkNothingNewerCoversIsAskedAbout) {
  // Independent submissions, one semaphore each: none shows another's end.
  std::vector<SemaphorePtr> semaphores;
  for (size_t i = 0; i < kLinks; ++i) {
    semaphores.push_back(make_semaphore());
    HALO_ASSERT_OK(submit(fill_.get(), {}, {}, {semaphores.back().get()}, {1}));
  }
  const std::vector<size_t> queries = finish_and_count();
  ASSERT_EQ(queries.size(), kLinks);
  for (size_t i = 0; i < kLinks; ++i) {
    EXPECT_GT(queries[i], 0u)
        << "submission " << i << "; " << describe(queries);
    uint64_t value = 0;
    EXPECT_EQ(query(semaphores[i].get(), &value), HALO_STATUS_OK);
    EXPECT_EQ(value, 1u);
  }
}

TEST_F(ChainLandingTest, AFailedLinkFailsOnlyItselfAndTheLinksAfterIt) {
  // The second link fails, and with it every link waiting on it, as an
  // implementation terminates commands that wait on a terminated one. The
  // first link, which the second covers, completed: it is asked about, not
  // failed with them.
  status_.answer_fills_from(/*first=*/2, kCommandFailed);
  SemaphorePtr step = make_semaphore();
  std::vector<SemaphorePtr> done;
  submit_chain(step.get(), &done);
  const std::vector<size_t> queries = finish_and_count();
  ASSERT_EQ(queries.size(), kLinks);
  uint64_t value = 0;
  EXPECT_EQ(query(done[0].get(), &value), HALO_STATUS_OK) << describe(queries);
  EXPECT_EQ(value, 1u);
  EXPECT_GT(queries[0], 0u) << describe(queries);
  for (size_t i = 1; i < kLinks; ++i) {
    EXPECT_EQ(query(done[i].get(), &value), HALO_STATUS_RESOURCE_EXHAUSTED)
        << "link " << i + 1 << "; " << describe(queries);
  }
  EXPECT_EQ(query(step.get(), &value), HALO_STATUS_RESOURCE_EXHAUSTED);
}

TEST_F(ChainLandingTest, AnIdleQueueReleasesTheEventsItDeferred) {
  // The worker leaves the completion events it is done with to the next
  // submitting thread (plugins/opencl/deferred_releases.hpp). With no next
  // submission and no wait_idle, it releases them itself once idle.
  SemaphorePtr step = make_semaphore();
  std::vector<SemaphorePtr> done;
  submit_chain(step.get(), &done);
  status_.let_through();
  HALO_ASSERT_OK(
      halo_semaphore_wait(step.get(), kLinks, deadline_in_ms(20000)));
  EXPECT_EQ(status_.wait_fills_released(20000), 0u)
      << "completion events still held after the queue went idle";
}

}  // namespace
}  // namespace halo_opencl_test
