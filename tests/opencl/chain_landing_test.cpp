// The worker sees a chain by its newest links: a submission chained on the
// one issued before it on the same queue shows that one's end, so the older
// one lands without its completion event being asked about
// (plugins/opencl/queue.hpp). Work that nothing newer covers is always
// asked about before it lands.
//
// Runs through held_status_opencl.cpp (named by HALO_OPENCL_LIBRARY) with
// completion polled (HALO_OPENCL_COMPLETION_POLL_US): status queries block
// until the test lets them through, after the device has finished every
// fill, so the worker has every submission in hand before any answer.
#include <dlfcn.h>

#include <string>
#include <vector>

#include "held_status_opencl.hpp"
#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

struct HeldStatus {
  decltype(&halo_test_hold_status) hold = nullptr;
  decltype(&halo_test_let_status_through) let_through = nullptr;
  decltype(&halo_test_recorded_fills) recorded_fills = nullptr;
  decltype(&halo_test_status_queries) status_queries = nullptr;
  decltype(&halo_test_forget_fills) forget_fills = nullptr;
};

template <class Function>
Function find(void* library, const char* name) {
  return reinterpret_cast<Function>(dlsym(library, name));
}

constexpr size_t kLinks = 8;

class ChainLandingTest : public OpenClTest {
 protected:
  void SetUp() override {
    OpenClTest::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    void* library =
        dlopen(HALO_TEST_HELD_STATUS_LIBRARY, RTLD_NOW | RTLD_NOLOAD);
    ASSERT_NE(library, nullptr)
        << "the plugin did not load " HALO_TEST_HELD_STATUS_LIBRARY
           "; run with HALO_OPENCL_LIBRARY naming it";
    status_.hold =
        find<decltype(status_.hold)>(library, "halo_test_hold_status");
    status_.let_through = find<decltype(status_.let_through)>(
        library, "halo_test_let_status_through");
    status_.recorded_fills = find<decltype(status_.recorded_fills)>(
        library, "halo_test_recorded_fills");
    status_.status_queries = find<decltype(status_.status_queries)>(
        library, "halo_test_status_queries");
    status_.forget_fills =
        find<decltype(status_.forget_fills)>(library, "halo_test_forget_fills");
    dlclose(library);
    ASSERT_TRUE(status_.hold != nullptr && status_.let_through != nullptr &&
                status_.recorded_fills != nullptr &&
                status_.status_queries != nullptr &&
                status_.forget_fills != nullptr);
    // One fill a submission: its event is the submission's completion.
    buffer_ = make_buffer(256);
    fill_ = begin_command_buffer();
    const uint32_t pattern = 0xC4A1Bu;
    HALO_ASSERT_OK(halo_command_buffer_fill(fill_.get(), buffer_.get(), 0, 256,
                                            &pattern, 4));
    HALO_ASSERT_OK(halo_command_buffer_end(fill_.get()));
    status_.hold();
  }

  void TearDown() override {
    // Nothing may stay held past a test that stopped early.
    if (status_.let_through != nullptr) {
      status_.let_through();
      HALO_EXPECT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
      status_.forget_fills();
    }
    fill_.reset();
    buffer_.reset();
    OpenClTest::TearDown();
  }

  // Lets the held queries through once the device is done, waits for every
  // submission to retire, and returns each fill's status queries.
  std::vector<size_t> finish_and_count() {
    status_.let_through();
    HALO_EXPECT_OK(halo_device_wait_idle(device(), deadline_in_ms(20000)));
    std::vector<size_t> queries;
    for (size_t i = 0; i < status_.recorded_fills(); ++i) {
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

  HeldStatus status_;
  BufferPtr buffer_;
  CommandBufferPtr fill_;
};

// Returns |semaphore|'s value, failing the test if it failed.
uint64_t value_of(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  HALO_EXPECT_OK(halo_semaphore_query(semaphore, &value));
  return value;
}

TEST_F(ChainLandingTest, ALinkANewerLinkCoversLandsUnasked) {
  SemaphorePtr step = make_semaphore();
  for (uint64_t value = 1; value <= kLinks; ++value) {
    // Each link waits for the one before, so the device chains the two.
    std::vector<halo_semaphore_t*> waits;
    std::vector<uint64_t> wait_values;
    if (value > 1) {
      waits = {step.get()};
      wait_values = {value - 1};
    }
    HALO_ASSERT_OK(
        submit(fill_.get(), waits, wait_values, {step.get()}, {value}));
  }
  const std::vector<size_t> queries = finish_and_count();
  ASSERT_EQ(queries.size(), kLinks);
  // Whichever link the worker first asked about, the links it had taken
  // before it, or the one it took next, landed with the newer link's end.
  size_t unasked = 0;
  for (size_t i = 0; i + 1 < kLinks; ++i) unasked += queries[i] == 0 ? 1 : 0;
  EXPECT_GT(unasked, 0u) << describe(queries);
  EXPECT_EQ(value_of(step.get()), kLinks);
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
    EXPECT_EQ(value_of(semaphores[i].get()), 1u);
  }
}

}  // namespace
}  // namespace halo_opencl_test
