// Enumeration is thread-safe (DESIGN.md §6): registries created at once from
// several threads all see the same records, and one registry answers many
// threads at once. Threads start together on a latch, never on a sleep.
#include <gtest/gtest.h>

#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

using ThreadsTest = LoaderTest;

constexpr int kThreads = 8;

// Everything a scan decided, as one comparable string.
std::string summary(const halo::Registry& registry) {
  std::string text = describe(registry.plugins());
  for (const std::string& name : driver_names(registry)) {
    text += "driver " + name + "\n";
  }
  for (const std::string& name : device_names(registry)) {
    text += "device " + name + "\n";
  }
  return text;
}

TEST_F(ThreadsTest, ConcurrentScansAgree) {
  const std::vector<std::string> paths = {kBrokenDir, kGoodDir};
  const std::string expected = summary(scan(paths));

  std::vector<std::string> results(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        results[i] = summary(scan(paths));
      } catch (const halo::Error& error) {
        results[i] = error.what();
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(results[i], expected) << "thread " << i;
  }
}

TEST_F(ThreadsTest, OneRegistryServesManyThreads) {
  const halo::Registry registry = scan({kGoodDir});
  const std::string expected = summary(registry);
  const std::size_t device_count = registry.devices().size();

  std::vector<std::string> results(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&, i] {
      start.arrive_and_wait();
      try {
        for (int round = 0; round < 20; ++round) {
          results[i] = summary(registry);
          const halo::Device device = registry.create_device(round % device_count);
          (void)device.info();
        }
      } catch (const halo::Error& error) {
        results[i] = error.what();
      }
    });
  }
  for (std::thread& thread : threads) {
    thread.join();
  }
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(results[i], expected) << "thread " << i;
  }
}

}  // namespace
}  // namespace halo_test
