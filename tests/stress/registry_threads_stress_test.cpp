// Registries created, used and destroyed on many threads at once, with every
// plugin the build makes (DESIGN.md §6: enumeration is thread-safe). Each
// round on each thread scans, opens the first device of every plugin, runs a
// semaphore through a queue on it and tears it all down, so that driver
// creation, device creation and destruction of every plugin overlap with
// each other's. Threads start together on a latch, never on a sleep.
#include <gtest/gtest.h>

#include <latch>
#include <string>
#include <thread>
#include <vector>

#include "stress_util.hpp"

namespace halo_stress {
namespace {

constexpr int kThreads = 6;
constexpr int kRounds = 4;

// The plugins (by name, in order) that one registry offers a device of.
std::string plugin_names(halo_registry_t* registry) {
  std::string names;
  for (const PluginDevice& device : first_device_of_each_plugin(registry)) {
    names += device.plugin + " ";
  }
  return names;
}

// One round: a registry, a device of each plugin, a barrier submission that
// signals a semaphore, the host waiting for it; then everything released.
// Returns what went wrong, or "" when nothing did.
std::string one_round(const std::string& expected_plugins) {
  halo_registry_t* registry = nullptr;
  std::string error = describe(create_build_tree_registry(&registry));
  if (error != "OK") return "halo_registry_create: " + error;
  std::string problem;
  const std::string plugins = plugin_names(registry);
  if (plugins != expected_plugins) {
    problem = "saw plugins '" + plugins + "', expected '" + expected_plugins + "'";
  }
  for (const PluginDevice& entry : first_device_of_each_plugin(registry)) {
    halo_device_t* device = nullptr;
    error = describe(halo_registry_create_device(registry, entry.registry_index,
                                                 nullptr, &device));
    if (error != "OK") {
      problem = entry.plugin + ": create_device: " + error;
      continue;
    }
    halo_semaphore_t* semaphore = nullptr;
    error = describe(halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE,
                                           &semaphore));
    if (error == "OK") {
      const uint64_t value = 1;
      halo_queue_execute_info_t info = {};
      info.struct_size = sizeof(info);
      info.affinity = HALO_QUEUE_AFFINITY_ANY;
      info.signal_count = 1;
      info.signal_semaphores = &semaphore;
      info.signal_values = &value;
      error = describe(halo_device_queue_execute(device, &info));
      if (error == "OK") {
        error = describe(halo_semaphore_wait(
            semaphore, 1, halo_deadline_after_ns(60'000'000'000)));
      }
    }
    if (error != "OK") problem = entry.plugin + ": " + error;
    halo_semaphore_release(semaphore);
    halo_device_release(device);
  }
  halo_registry_release(registry);
  return problem;
}

TEST(RegistryThreadsStress, EveryPluginOnManyThreads) {
  halo_registry_t* registry = nullptr;
  STRESS_ASSERT_OK(create_build_tree_registry(&registry));
  const std::string expected = plugin_names(registry);
  halo_registry_release(registry);
  ASSERT_NE(expected.find("cpu"), std::string::npos)
      << "the cpu plugin is always built and always has a device";

  std::vector<std::string> problems(kThreads);
  std::latch start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      start.arrive_and_wait();
      for (int round = 0; round < kRounds && problems[t].empty(); ++round) {
        problems[t] = one_round(expected);
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int t = 0; t < kThreads; ++t) {
    EXPECT_EQ(problems[t], "") << "thread " << t;
  }
}

}  // namespace
}  // namespace halo_stress
