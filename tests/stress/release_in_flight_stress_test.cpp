// Everything released while work is in flight, across every ordered pair of
// plugins (DESIGN.md §5: everything a submission names is retained until it
// completes, so the caller may release at once). Each round opens a device
// of plugin A and one of plugin B, chains B → A on semaphores of both, drops
// every handle but the last semaphore — devices included — and only then
// lets the chain go from another thread, by a host signal or, every other
// round, a failure that must reach the end of the chain.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "stress_util.hpp"

namespace halo_stress {
namespace {

constexpr int kRoundsPerPair = 12;
constexpr char kFailure[] = "stress: the chain's first wait failed";

halo_semaphore_t* new_semaphore(halo_device_t* device) {
  halo_semaphore_t* semaphore = nullptr;
  const std::string error = describe(
      halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE, &semaphore));
  EXPECT_EQ(error, "OK");
  return semaphore;
}

// One round on devices |a_index| and |b_index| of |registry|.
void one_round(halo_registry_t* registry, size_t a_index, size_t b_index,
               bool fail) {
  halo_device_t* a = nullptr;
  halo_device_t* b = nullptr;
  STRESS_ASSERT_OK(halo_registry_create_device(registry, a_index, nullptr, &a));
  STRESS_ASSERT_OK(halo_registry_create_device(registry, b_index, nullptr, &b));
  halo_semaphore_t* start = new_semaphore(a);
  halo_semaphore_t* middle = new_semaphore(b);
  halo_semaphore_t* side = new_semaphore(b);
  halo_semaphore_t* done = new_semaphore(a);
  ASSERT_TRUE(start && middle && side && done);

  STRESS_ASSERT_OK(execute(b, start, 1, {middle}, {1}));
  STRESS_ASSERT_OK(execute(a, middle, 1, {done, side}, {1, 1}));
  halo_device_release(a);
  halo_device_release(b);
  halo_semaphore_release(middle);
  halo_semaphore_release(side);

  std::thread releaser([start, fail] {
    const std::string error =
        fail ? describe(halo_semaphore_fail(
                   start, halo_status_create(HALO_STATUS_ABORTED, kFailure)))
             : describe(halo_semaphore_signal(start, 1));
    EXPECT_EQ(error, "OK");
    halo_semaphore_release(start);
  });
  const std::string result = describe(
      halo_semaphore_wait(done, 1, halo_deadline_after_ns(60'000'000'000)));
  releaser.join();
  halo_semaphore_release(done);
  if (fail) {
    EXPECT_NE(result.find(kFailure), std::string::npos) << result;
    EXPECT_EQ(result.rfind("ABORTED", 0), 0u) << result;
  } else {
    EXPECT_EQ(result, "OK");
  }
}

TEST(ReleaseInFlightStress, EveryPairOfPlugins) {
  halo_registry_t* registry = nullptr;
  STRESS_ASSERT_OK(create_build_tree_registry(&registry));
  const std::vector<PluginDevice> devices = first_device_of_each_plugin(registry);
  ASSERT_FALSE(devices.empty());
  for (const PluginDevice& a : devices) {
    for (const PluginDevice& b : devices) {
      SCOPED_TRACE(b.plugin + " -> " + a.plugin);
      for (int round = 0; round < kRoundsPerPair; ++round) {
        one_round(registry, a.registry_index, b.registry_index, round % 2 == 1);
        if (HasFatalFailure()) break;
      }
    }
  }
  halo_registry_release(registry);
}

}  // namespace
}  // namespace halo_stress
