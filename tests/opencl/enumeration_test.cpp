// Enumeration on several threads at once (DESIGN.md §6): registries that
// load the opencl plugin, and so create its driver and enumerate every
// OpenCL platform and device, made and destroyed concurrently. PoCL 3.1's
// clGetDeviceIDs and clGetDeviceInfo are not thread-safe; the plugin must
// not let its callers find that out.
#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "opencl_test_util.hpp"

namespace halo_opencl_test {
namespace {

// What one registry's driver reports: its device count and first device's
// name ("" without devices).
struct Enumerated {
  size_t count = 0;
  std::string first_name;
};

Enumerated enumerate_once() {
  Enumerated out;
  OpenClRegistry registry;
  if (registry.driver() == nullptr) return out;
  halo_status_free(halo_driver_device_count(registry.driver(), &out.count));
  if (out.count == 0) return out;
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  halo_status_free(halo_driver_query_device_info(registry.driver(), 0, &info));
  out.first_name = info.name;
  return out;
}

// Runs in a process of its own (see CMakeLists.txt): the threads make the
// process's first OpenCL calls, all at once, which is when PoCL 3.1 races.
TEST(Enumeration, ThreadsCreateAndDestroyRegistriesAtOnce) {
  constexpr int kThreads = 8, kRounds = 10;
  std::latch start(kThreads);
  std::vector<std::vector<Enumerated>> results(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int round = 0; round < kRounds; ++round) {
        results[t].push_back(enumerate_once());
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  const Enumerated reference = enumerate_once();
  if (reference.count == 0) GTEST_SKIP() << "no OpenCL device";
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_EQ(results[t].size(), static_cast<size_t>(kRounds));
    for (const Enumerated& result : results[t]) {
      EXPECT_EQ(result.count, reference.count) << "thread " << t;
      EXPECT_EQ(result.first_name, reference.first_name) << "thread " << t;
    }
  }
}

}  // namespace
}  // namespace halo_opencl_test
