// The dispatch grid limits, on devices of 32- and 64-bit size_t: each
// dimension's global size, the work-items in all and the workgroups in all.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "dispatch_grid.hpp"
#include "testing/fake_host.hpp"

namespace halo::cl {
namespace {

using sdk::testing::fake_host;
using sdk::testing::StatusHolder;

constexpr size_t kLocal[3] = {64, 1, 1};
const uint64_t kSize32 = size_max_for_address_bits(32);
const uint64_t kSize64 = size_max_for_address_bits(64);

// Checks |count| workgroups of kLocal on a device whose size_t holds
// |size_max|; returns the status and the global size in |global|.
StatusHolder check(uint32_t x, uint32_t y, uint32_t z, uint64_t size_max,
                   size_t (&global)[3]) {
  const uint32_t count[3] = {x, y, z};
  return StatusHolder(check_grid(fake_host(), count, kLocal, size_max, global));
}

void expect_refused(const StatusHolder& status, const std::string& limit) {
  EXPECT_EQ(status.code(), HALO_STATUS_INVALID_ARGUMENT) << status.message();
  EXPECT_EQ(status.message().rfind("halo_command_buffer_dispatch: "
                                   "params->workgroup_count",
                                   0),
            0u)
      << status.message();
  EXPECT_NE(status.message().find(limit), std::string::npos)
      << status.message();
}

TEST(DispatchGrid, SizeMaxFollowsTheAddressBits) {
  EXPECT_EQ(kSize32, uint64_t{UINT32_MAX});
  EXPECT_EQ(kSize64, uint64_t{SIZE_MAX});
}

TEST(DispatchGrid, EachDimensionFitsTheDevicesSizeT) {
  size_t global[3] = {};
  expect_refused(check(1u << 26, 1, 1, kSize32, global),
                 "params->workgroup_count[0] 67108864 times the entry "
                 "point's workgroup size 64 is more work-items than the "
                 "device's size_t holds (4294967295)");
  StatusHolder fits = check((1u << 26) - 1, 1, 1, kSize32, global);
  EXPECT_EQ(fits.code(), HALO_STATUS_OK) << fits.message();
  EXPECT_EQ(global[0], (size_t{1} << 32) - 64);
  EXPECT_EQ(global[1], 1u);
  EXPECT_EQ(global[2], 1u);
}

TEST(DispatchGrid, WorkItemsInAllFitTheDevicesSizeT) {
  size_t global[3] = {};
  expect_refused(check(1u << 16, 1u << 16, 1, kSize32, global),
                 "of 64 x 1 x 1 work-items each is more work-items in all "
                 "than the device's size_t holds (4294967295)");
  expect_refused(check(UINT32_MAX, UINT32_MAX, 1, kSize64, global),
                 "more work-items in all than the device's size_t holds "
                 "(18446744073709551615)");
  StatusHolder fits = check(1u << 16, (1u << 10) - 1, 1, kSize32, global);
  EXPECT_EQ(fits.code(), HALO_STATUS_OK) << fits.message();
}

TEST(DispatchGrid, AtMostTwoToTheThirtyTwoMinusOneWorkgroups) {
  size_t global[3] = {};
  expect_refused(check(65536, 65536, 1, kSize64, global),
                 "65536 x 65536 x 1 is more workgroups than the 4294967295 "
                 "(2^32 - 1) the opencl plugin runs in one dispatch");
  expect_refused(check(UINT32_MAX, 1, 2, kSize64, global), "(2^32 - 1)");
  // 65535 x 65537 is 2^32 - 1.
  StatusHolder fits = check(65535, 65537, 1, kSize64, global);
  EXPECT_EQ(fits.code(), HALO_STATUS_OK) << fits.message();
  EXPECT_EQ(global[0], size_t{65535} * 64);
  EXPECT_EQ(global[1], 65537u);
  EXPECT_EQ(global[2], 1u);
}

TEST(DispatchGrid, AGridWithoutWorkPassesTheTotals) {
  size_t global[3] = {1, 1, 1};
  StatusHolder empty = check(0, UINT32_MAX, UINT32_MAX, kSize64, global);
  EXPECT_EQ(empty.code(), HALO_STATUS_OK) << empty.message();
  EXPECT_EQ(global[0], 0u);
}

}  // namespace
}  // namespace halo::cl
