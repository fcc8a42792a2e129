// device.*: what ABI 1.2 added to a device's info and capabilities
// (abi/include/halo/device.h): the native API and compute units, the memory
// size and the dispatch limits, each consistent with the rest of what the
// device reports; queries that fill an older caller's struct_size and not a
// byte past it; and dispatches beyond the reported workgroup counts refused
// with INVALID_ARGUMENT. Only recording: nothing here runs on the device.
#include <algorithm>
#include <cstddef>
#include <cstring>
#include <limits>
#include <vector>

#include "kernels.hpp"

namespace {

using namespace halo::cts;

constexpr unsigned char kCanary = 0xA5;
// The members ABI 1.2 appended begin where ABI 1.0's (and 1.1's) structs
// ended.
constexpr uint32_t kInfoAbi11Size = offsetof(halo_device_info_t, native_api);
constexpr uint32_t kCapsAbi11Size =
    offsetof(halo_device_capabilities_t, device_memory_size);

// Skips the case unless the plugin under test declares ABI 1.2 or later:
// libhalo leaves the members an older plugin does not know 0.
void require_abi_1_2(Context& ctx) {
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  CTS_ASSERT_MSG(find_plugin_record(ctx.registry(), ctx.plugin_name(), &record),
                 "no loaded plugin record is named " + ctx.plugin_name());
  if (record.abi_version < HALO_MAKE_VERSION(1, 2)) {
    skip("the plugin declares ABI " + std::to_string(HALO_VERSION_MAJOR(record.abi_version)) +
         "." + std::to_string(HALO_VERSION_MINOR(record.abi_version)) +
         ", before the device info and limits of ABI 1.2");
  }
}

const halo_device_vtable_t* device_vtable(halo_device_t* device) {
  return reinterpret_cast<const halo_device_vtable_t*>(
      reinterpret_cast<halo_object_t*>(device)->vtable);
}

halo_device_info_t query_info(halo_device_t* device) {
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_OK(halo_device_query_info(device, &info));
  CTS_ASSERT_EQ(info.struct_size, static_cast<uint32_t>(sizeof(info)));
  return info;
}

// The plugin's own query_info, with no libhalo between: libhalo terminates
// strings, so only this shows whether the plugin does.
halo_device_info_t query_info_from_plugin(halo_device_t* device) {
  halo_device_info_t info;
  std::memset(&info, kCanary, sizeof(info));
  info.struct_size = sizeof(info);
  CTS_ASSERT_OK(device_vtable(device)->query_info(device, &info));
  return info;
}

std::string native_api_of(const halo_device_info_t& info) {
  return std::string(info.native_api, strnlen(info.native_api, sizeof(info.native_api)));
}

void check_native_api(const halo_device_info_t& info, const std::string& source) {
  CTS_ASSERT_MSG(std::memchr(info.native_api, '\0', sizeof(info.native_api)) != nullptr,
                 source + ": native_api is not NUL-terminated within its " +
                     std::to_string(sizeof(info.native_api)) + " bytes");
  CTS_ASSERT_MSG(info.native_api[0] != '\0', source + ": native_api is empty");
}

void check_compute_units(const halo_device_info_t& info, const std::string& source) {
  CTS_ASSERT_MSG(info.compute_units >= 1,
                 source + ": compute_units is " + std::to_string(info.compute_units));
}

// --- info ---------------------------------------------------------------------------

HALO_CTS_CASE("device.info.native_api", kNeedNothing,
              "native_api names the native API and version, non-empty and NUL-terminated by the plugin itself (ABI 1.2)") {
  require_abi_1_2(ctx);
  check_native_api(query_info(ctx.device()), "halo_device_query_info");
  const halo_device_info_t own = query_info_from_plugin(ctx.device());
  check_native_api(own, "the plugin's query_info");
  CTS_ASSERT_MSG(own.struct_size == sizeof(own),
                 "the plugin's query_info: struct_size came back as " +
                     std::to_string(own.struct_size));
}

HALO_CTS_CASE("device.info.compute_units", kNeedNothing,
              "compute_units is at least 1, through libhalo and from the plugin's own query_info (ABI 1.2)") {
  require_abi_1_2(ctx);
  check_compute_units(query_info(ctx.device()), "halo_device_query_info");
  check_compute_units(query_info_from_plugin(ctx.device()), "the plugin's query_info");
}

HALO_CTS_CASE("device.info.enumeration_agrees", kNeedNothing,
              "every enumerated device has a native_api and compute units, and the device under test enumerates what its query_info says (ABI 1.2)") {
  require_abi_1_2(ctx);
  size_t count = 0;
  CTS_ASSERT_OK(halo_driver_device_count(ctx.driver(), &count));
  const halo_device_info_t queried = query_info(ctx.device());
  bool found = false;
  for (size_t i = 0; i < count; ++i) {
    halo_device_info_t info = {};
    info.struct_size = sizeof(info);
    CTS_ASSERT_OK(halo_driver_query_device_info(ctx.driver(), i, &info));
    const std::string source = "enumerated device " + std::to_string(i);
    check_native_api(info, source);
    check_compute_units(info, source);
    if (info.device_id != queried.device_id) continue;
    found = true;
    CTS_ASSERT_MSG(native_api_of(info) == native_api_of(queried) &&
                       info.compute_units == queried.compute_units,
                   source + " reports '" + native_api_of(info) + "' and " +
                       std::to_string(info.compute_units) + " compute units; query_info '" +
                       native_api_of(queried) + "' and " +
                       std::to_string(queried.compute_units));
  }
  CTS_ASSERT_MSG(found, "the device under test is not among the driver's " +
                            std::to_string(count) + " devices");
}

// --- limits -------------------------------------------------------------------------

std::string triple(const uint32_t (&values)[3]) {
  return "{" + std::to_string(values[0]) + ", " + std::to_string(values[1]) + ", " +
         std::to_string(values[2]) + "}";
}

bool has(const halo_device_capabilities_t& caps, halo_device_features_t feature) {
  return (caps.features & feature) != 0;
}

HALO_CTS_CASE("device.limits.workgroups", kNeedNothing,
              "with DISPATCH each max_workgroup_size is 1 to max_workgroup_invocations and every workgroup count limit is at least 1; without it all are 0 (ABI 1.2)") {
  require_abi_1_2(ctx);
  const halo_device_capabilities_t& caps = ctx.capabilities();
  const std::string reported =
      "max_workgroup_size " + triple(caps.max_workgroup_size) + ", max_workgroup_invocations " +
      std::to_string(caps.max_workgroup_invocations) + ", max_workgroup_count " +
      triple(caps.max_workgroup_count) + ", max_workgroup_count_total " +
      std::to_string(caps.max_workgroup_count_total);
  if (!has(caps, HALO_DEVICE_FEATURE_DISPATCH)) {
    bool all_zero = caps.max_workgroup_invocations == 0 && caps.max_workgroup_count_total == 0;
    for (int d = 0; d < 3; ++d) {
      all_zero = all_zero && caps.max_workgroup_size[d] == 0 && caps.max_workgroup_count[d] == 0;
    }
    CTS_ASSERT_MSG(all_zero, "a device without DISPATCH reports " + reported);
    return;
  }
  CTS_ASSERT_MSG(caps.max_workgroup_invocations >= 1 && caps.max_workgroup_count_total >= 1,
                 reported);
  for (int d = 0; d < 3; ++d) {
    CTS_ASSERT_MSG(caps.max_workgroup_size[d] >= 1 &&
                       caps.max_workgroup_size[d] <= caps.max_workgroup_invocations &&
                       caps.max_workgroup_count[d] >= 1,
                   "dimension " + std::to_string(d) + ": " + reported);
  }
}

HALO_CTS_CASE("device.limits.bindings_and_constants", kNeedNothing,
              "with DISPATCH max_binding_count and max_constant_size are at least 1 and hold what the saxpy test kernel takes; without it both are 0 (ABI 1.2)") {
  require_abi_1_2(ctx);
  const halo_device_capabilities_t caps = ctx.capabilities();
  const std::string reported = "max_binding_count " + std::to_string(caps.max_binding_count) +
                               ", max_constant_size " + std::to_string(caps.max_constant_size);
  if (!has(caps, HALO_DEVICE_FEATURE_DISPATCH)) {
    CTS_ASSERT_MSG(caps.max_binding_count == 0 && caps.max_constant_size == 0,
                   "a device without DISPATCH reports " + reported);
    return;
  }
  ExecutableRef saxpy = load_kernel(ctx, "saxpy");
  halo_entry_point_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_OK(halo_executable_query_entry_point(saxpy.get(), 0, &info));
  CTS_ASSERT_MSG(caps.max_binding_count >= 1 && caps.max_constant_size >= 1 &&
                     info.binding_count <= caps.max_binding_count &&
                     info.constant_size <= caps.max_constant_size,
                 reported + ", but saxpy, which the device created, takes " +
                     std::to_string(info.binding_count) + " bindings and " +
                     std::to_string(info.constant_size) + " bytes of constants");
}

HALO_CTS_CASE("device.limits.memory", kNeedNothing,
              "with BUFFERS device_memory_size is at least max_buffer_size and above 0; without it 0 (ABI 1.2)") {
  require_abi_1_2(ctx);
  const halo_device_capabilities_t& caps = ctx.capabilities();
  const std::string reported = "device_memory_size " + std::to_string(caps.device_memory_size) +
                               ", max_buffer_size " + std::to_string(caps.max_buffer_size);
  if (!has(caps, HALO_DEVICE_FEATURE_BUFFERS)) {
    CTS_ASSERT_MSG(caps.device_memory_size == 0, "a device without BUFFERS reports " + reported);
    return;
  }
  CTS_ASSERT_MSG(caps.device_memory_size > 0 && caps.device_memory_size >= caps.max_buffer_size,
                 reported);
}

// --- struct sizes -------------------------------------------------------------------

// Queries |T| with struct_size |size| into canary-filled bytes, through
// libhalo and through the plugin's own |query|, and fails unless each fills
// exactly |size| bytes (struct_size |size|, the 1.0 members as a full query
// has them) and leaves every byte past them alone.
template <typename T>
void check_older_size(halo_device_t* device, uint32_t size,
                      halo_status_t (*public_query)(halo_device_t*, T*),
                      halo_status_t (*plugin_query)(halo_device_t*, T*), const char* what) {
  T full = {};
  full.struct_size = sizeof(full);
  CTS_ASSERT_OK(public_query(device, &full));
  for (const bool through_libhalo : {true, false}) {
    const std::string caller =
        std::string(through_libhalo ? "libhalo's " : "the plugin's ") + what;
    alignas(T) unsigned char bytes[sizeof(T)];
    std::memset(bytes, kCanary, sizeof(bytes));
    T* out = reinterpret_cast<T*>(bytes);
    out->struct_size = size;
    CTS_ASSERT_OK(through_libhalo ? public_query(device, out) : plugin_query(device, out));
    CTS_ASSERT_MSG(out->struct_size == size, caller + ": struct_size came back as " +
                                                 std::to_string(out->struct_size) +
                                                 ", asked for " + std::to_string(size));
    const auto* expected = reinterpret_cast<const unsigned char*>(&full);
    CTS_ASSERT_MSG(std::memcmp(bytes + 4, expected + 4, size - 4) == 0,
                   caller + ": the members below struct_size differ from a full query's");
    for (size_t i = size; i < sizeof(bytes); ++i) {
      CTS_ASSERT_MSG(bytes[i] == kCanary, caller + ": byte " + std::to_string(i) +
                                              " past struct_size " + std::to_string(size) +
                                              " was written");
    }
  }
}

HALO_CTS_CASE("device.query.info_older_struct_size", kNeedNothing,
              "a device info of ABI 1.0/1.1's size (before native_api) is filled to that size, by libhalo and by the plugin's own query_info, and no byte past it is written") {
  halo_device_t* device = ctx.device();
  check_older_size<halo_device_info_t>(device, kInfoAbi11Size, &halo_device_query_info,
                                       device_vtable(device)->query_info, "query_info");
}

HALO_CTS_CASE("device.query.capabilities_older_struct_size", kNeedNothing,
              "capabilities of ABI 1.0/1.1's size (before device_memory_size) are filled to that size, by libhalo and by the plugin's own query_capabilities, and no byte past it is written") {
  halo_device_t* device = ctx.device();
  check_older_size<halo_device_capabilities_t>(device, kCapsAbi11Size,
                                               &halo_device_query_capabilities,
                                               device_vtable(device)->query_capabilities,
                                               "query_capabilities");
}

// --- dispatch limits ----------------------------------------------------------------

constexpr uint64_t kRecordNeeds = kNeedBuffers | kNeedCommandBuffers | kNeedDispatch;

// Records saxpy over |count| workgroups into a fresh command buffer, never
// submitted, and returns the status.
halo_status_t record_saxpy(Context& ctx, halo_executable_t* saxpy,
                           const uint32_t (&count)[3]) {
  BufferRef y = host_buffer(ctx, 256), x = host_buffer(ctx, 256);
  CommandBufferRef commands = begin_commands(ctx.device());
  const SaxpyConstants constants{1.0f, 64};
  std::vector<halo_buffer_binding_t> bindings = {{y.get(), 0, HALO_WHOLE_BUFFER},
                                                 {x.get(), 0, HALO_WHOLE_BUFFER}};
  halo_dispatch_params_t params =
      dispatch_params(saxpy, 1, bindings, &constants, sizeof(constants));
  std::memcpy(params.workgroup_count, count, sizeof(count));
  return halo_command_buffer_dispatch(commands.get(), &params);
}

std::string count_text(const uint32_t (&count)[3]) {
  return std::to_string(count[0]) + " x " + std::to_string(count[1]) + " x " +
         std::to_string(count[2]);
}

HALO_CTS_CASE("device.dispatch.workgroup_count_above_limit", kRecordNeeds,
              "a dispatch of max_workgroup_count[i] workgroups in one dimension records; one more, where the device has a limit, is INVALID_ARGUMENT naming halo_command_buffer_dispatch (ABI 1.2)") {
  require_abi_1_2(ctx);
  const halo_device_capabilities_t caps = ctx.capabilities();
  ExecutableRef saxpy = load_kernel(ctx, "saxpy");
  for (int d = 0; d < 3; ++d) {
    const uint32_t limit = caps.max_workgroup_count[d];
    uint32_t count[3] = {1, 1, 1};
    count[d] = limit;
    if (limit <= caps.max_workgroup_count_total) {
      halo_status_t status = record_saxpy(ctx, saxpy.get(), count);
      CTS_ASSERT_MSG(status == nullptr, count_text(count) + " workgroups, within max_workgroup_count " +
                                            triple(caps.max_workgroup_count) + ": " +
                                            take_status_text(status));
    }
    if (limit == UINT32_MAX) continue;  // No limit in this dimension.
    count[d] = limit + 1;
    const std::string what = "a dispatch of " + count_text(count) +
                             " workgroups, above max_workgroup_count " +
                             triple(caps.max_workgroup_count);
    check_invalid(record_saxpy(ctx, saxpy.get(), count), "halo_command_buffer_dispatch",
                  what.c_str(), __FILE__, __LINE__);
  }
}

HALO_CTS_CASE("device.dispatch.workgroups_in_all_above_limit", kRecordNeeds,
              "a dispatch within every dimension's max_workgroup_count but with more workgroups in all than max_workgroup_count_total is INVALID_ARGUMENT naming halo_command_buffer_dispatch (ABI 1.2)") {
  require_abi_1_2(ctx);
  const halo_device_capabilities_t caps = ctx.capabilities();
  const uint64_t total = caps.max_workgroup_count_total;
  const uint32_t* max = caps.max_workgroup_count;
  const unsigned __int128 all = static_cast<unsigned __int128>(max[0]) * max[1] * max[2];
  if (total == UINT64_MAX || all <= total) {
    skip("max_workgroup_count_total " + std::to_string(total) +
         " bounds no dispatch that max_workgroup_count " + triple(caps.max_workgroup_count) +
         " allows");
  }
  // The fewest dimensions, each within its limit, whose product passes
  // |total|.
  uint32_t count[3] = {1, 1, 1};
  unsigned __int128 product = 1;
  for (int d = 0; d < 3 && product <= total; ++d) {
    const uint64_t needed = total / static_cast<uint64_t>(product) + 1;
    count[d] = static_cast<uint32_t>(std::min<uint64_t>(max[d], needed));
    product *= count[d];
  }
  CTS_ASSERT(product > total);
  ExecutableRef saxpy = load_kernel(ctx, "saxpy");
  const std::string what = "a dispatch of " + count_text(count) +
                           " workgroups, above max_workgroup_count_total " +
                           std::to_string(total);
  check_invalid(record_saxpy(ctx, saxpy.get(), count), "halo_command_buffer_dispatch",
                what.c_str(), __FILE__, __LINE__);
}

}  // namespace
