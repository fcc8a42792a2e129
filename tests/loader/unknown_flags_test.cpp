// Flag bits libhalo does not know are refused with INVALID_ARGUMENT naming
// the call, the argument and the bits: a bit accepted today could never be
// given a meaning later. Every known bit is still accepted.
#include <gtest/gtest.h>

#include <cstdint>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

using UnknownFlagsTest = LoaderTest;

TEST_F(UnknownFlagsTest, RegistryOptionsRefuseUnknownBits) {
  const std::string manifest = good_manifest("test_good");
  const char* paths[] = {manifest.c_str()};
  halo_registry_options_t options{};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS | (halo_registry_flags_t{1} << 7);
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  halo_registry_t* registry = nullptr;
  expect_status(halo_registry_create(&options, &registry), HALO_STATUS_INVALID_ARGUMENT,
                "halo_registry_create: options->flags has unknown bits 0x80");
  EXPECT_EQ(registry, nullptr);

  options.flags = HALO_REGISTRY_FLAGS_KNOWN;
  ASSERT_EQ(halo_registry_create(&options, &registry), HALO_OK);
  halo_registry_release(registry);
}

TEST_F(UnknownFlagsTest, SemaphoreCreateRefusesUnknownBits) {
  const halo::Registry registry = scan({good_manifest("test_good")});
  const halo::Device device = registry.create_device(0);
  halo_semaphore_t* semaphore = nullptr;
  expect_status(
      halo_semaphore_create(device.get(), 0, halo_semaphore_flags_t{1} << 40, &semaphore),
      HALO_STATUS_INVALID_ARGUMENT,
      "halo_semaphore_create: flags has unknown bits 0x10000000000");
  EXPECT_EQ(semaphore, nullptr);
  // Known flags pass the check; this device exports no semaphores, so
  // EXPORTABLE is UNIMPLEMENTED, and without it the plugin, which has no
  // semaphores, answers the same.
  expect_status(
      halo_semaphore_create(device.get(), 0, HALO_SEMAPHORE_FLAGS_KNOWN, &semaphore),
      HALO_STATUS_UNIMPLEMENTED, "asks for EXPORTABLE");
  expect_status(halo_semaphore_create(device.get(), 0, 0, &semaphore),
                HALO_STATUS_UNIMPLEMENTED);
}

TEST_F(UnknownFlagsTest, DeviceParamsRefuseUnknownBits) {
  const halo::Registry registry = scan({good_manifest("test_good")});
  const halo::Driver driver = registry.driver(0);
  const halo_device_id_t id = registry.devices().at(0).info.device_id;
  halo_device_params_t params{};
  params.struct_size = sizeof(params);
  params.flags = uint64_t{1} << 63;
  halo_device_t* device = nullptr;
  expect_status(halo_registry_create_device(registry.get(), 0, &params, &device),
                HALO_STATUS_INVALID_ARGUMENT,
                "halo_registry_create_device: params->flags has unknown bits "
                "0x8000000000000000");
  EXPECT_EQ(device, nullptr);
  expect_status(halo_driver_create_device(driver.get(), id, &params, &device),
                HALO_STATUS_INVALID_ARGUMENT,
                "halo_driver_create_device: params->flags has unknown bits "
                "0x8000000000000000");
  EXPECT_EQ(device, nullptr);

  params.flags = HALO_DEVICE_PARAMS_FLAGS_KNOWN;
  ASSERT_EQ(halo_driver_create_device(driver.get(), id, &params, &device), HALO_OK);
  halo_device_release(device);
  // A caller whose struct ends before flags has set none.
  params.flags = uint64_t{1} << 63;
  params.struct_size = offsetof(halo_device_params_t, flags);
  ASSERT_EQ(halo_driver_create_device(driver.get(), id, &params, &device), HALO_OK);
  halo_device_release(device);
}

}  // namespace
}  // namespace halo_test
