// driver.*: enumeration, device info and capabilities, device lifetime.
#include <cstring>

#include "case_helpers.hpp"
#include "cts.hpp"

namespace {

using namespace halo::cts;

HALO_CTS_CASE("driver.enumerate.has_devices", kNeedNothing,
              "the driver enumerates at least one device, the same count twice") {
  size_t first = 0, second = 0;
  CTS_ASSERT_OK(halo_driver_device_count(ctx.driver(), &first));
  CTS_ASSERT_OK(halo_driver_device_count(ctx.driver(), &second));
  CTS_ASSERT(first >= 1);
  CTS_ASSERT_EQ(first, second);
}

HALO_CTS_CASE("driver.info.named", kNeedNothing,
              "driver info carries the plugin's name and a version") {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_OK(halo_driver_query_info(ctx.driver(), &info));
  CTS_ASSERT_EQ(std::string(info.name), ctx.plugin_name());
  CTS_ASSERT(info.version[0] != '\0');
}

HALO_CTS_CASE("driver.device_info.complete", kNeedNothing,
              "every device has a name, a known type and matching info when created") {
  size_t count = 0;
  CTS_ASSERT_OK(halo_driver_device_count(ctx.driver(), &count));
  for (size_t i = 0; i < count; ++i) {
    halo_device_info_t listed = {};
    listed.struct_size = sizeof(listed);
    CTS_ASSERT_OK(halo_driver_query_device_info(ctx.driver(), i, &listed));
    CTS_ASSERT(listed.name[0] != '\0');
    CTS_ASSERT(listed.type <= HALO_DEVICE_TYPE_GPU_VIRTUAL);
    halo_device_t* device = nullptr;
    CTS_ASSERT_OK(halo_driver_create_device(ctx.driver(), listed.device_id,
                                            nullptr, &device));
    halo_device_info_t created = {};
    created.struct_size = sizeof(created);
    halo_status_t status = halo_device_query_info(device, &created);
    halo_device_release(device);
    CTS_ASSERT_OK(status);
    CTS_ASSERT_EQ(created.device_id, listed.device_id);
    CTS_ASSERT_EQ(std::string(created.name), std::string(listed.name));
  }
}

HALO_CTS_CASE("driver.device_info.out_of_range", kNeedNothing,
              "device info past the last index is OUT_OF_RANGE") {
  size_t count = 0;
  CTS_ASSERT_OK(halo_driver_device_count(ctx.driver(), &count));
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_STATUS(halo_driver_query_device_info(ctx.driver(), count, &info),
                    HALO_STATUS_OUT_OF_RANGE);
}

HALO_CTS_CASE("driver.device_info.small_struct", kNeedNothing,
              "an older, smaller info struct is filled only up to its size") {
  // A caller built against a header with fewer members passes a smaller
  // struct_size; nothing past it may be written.
  unsigned char bytes[sizeof(halo_device_info_t) + 64];
  std::memset(bytes, 0xA5, sizeof(bytes));
  auto* info = reinterpret_cast<halo_device_info_t*>(bytes);
  const uint32_t small = offsetof(halo_device_info_t, name) + 16;
  info->struct_size = small;
  CTS_ASSERT_OK(halo_driver_query_device_info(ctx.driver(), 0, info));
  CTS_ASSERT_EQ(info->struct_size, small);
  for (size_t i = small; i < sizeof(bytes); ++i) CTS_ASSERT_EQ(bytes[i], 0xA5);
}

HALO_CTS_CASE("driver.capabilities.consistent", kNeedNothing,
              "capabilities are self-consistent (queues imply semaphores, dispatch implies command buffers)") {
  const halo_device_capabilities_t& caps = ctx.capabilities();
  if (caps.features & HALO_DEVICE_FEATURE_QUEUES) {
    CTS_ASSERT(caps.features & HALO_DEVICE_FEATURE_SEMAPHORES);
    CTS_ASSERT(caps.queue_count >= 1);
  }
  if (caps.features & HALO_DEVICE_FEATURE_DISPATCH) {
    CTS_ASSERT(caps.features & HALO_DEVICE_FEATURE_COMMAND_BUFFERS);
    CTS_ASSERT(caps.executable_formats[0] != '\0');
  }
  if (caps.features & HALO_DEVICE_FEATURE_COMMAND_BUFFERS) {
    CTS_ASSERT(caps.features & HALO_DEVICE_FEATURE_BUFFERS);
  }
  if (caps.features & HALO_DEVICE_FEATURE_SEMAPHORES) {
    CTS_ASSERT(caps.max_semaphore_value_difference >= 1);
  }
}

HALO_CTS_CASE("driver.create_device.repeatedly", kNeedNothing,
              "creating and releasing the device 50 times works every time") {
  for (int i = 0; i < 50; ++i) {
    DeviceRef device = create_case_device(ctx);  // Released at once.
  }
}

HALO_CTS_CASE("driver.create_device.two_at_once", kNeedNothing,
              "two devices of one driver live side by side") {
  halo_device_t* first = ctx.device();
  halo_device_t* second = ctx.second_device();
  CTS_ASSERT(first != second);
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_OK(halo_device_query_info(second, &info));
}

HALO_CTS_CASE("driver.create_device.unknown_id", kNeedNothing,
              "creating a device id that was never enumerated is NOT_FOUND") {
  size_t count = 0;
  CTS_ASSERT_OK(halo_driver_device_count(ctx.driver(), &count));
  halo_device_id_t unused = 0x7fffffff;
  for (size_t i = 0; i < count; ++i) {
    halo_device_info_t info = {};
    info.struct_size = sizeof(info);
    CTS_ASSERT_OK(halo_driver_query_device_info(ctx.driver(), i, &info));
    if (info.device_id == unused) ++unused;
  }
  halo_device_t* device = nullptr;
  CTS_ASSERT_STATUS(
      halo_driver_create_device(ctx.driver(), unused, nullptr, &device),
      HALO_STATUS_NOT_FOUND);
  CTS_ASSERT(device == nullptr);
}

}  // namespace
