// errors.*: NULL and wrong-type handles and malformed arguments to the
// registry, driver, device, semaphore and queue functions (DESIGN.md §2, §3,
// §9): each returns INVALID_ARGUMENT with a message that names the function,
// never a crash. Buffers, command buffers, executables and the status helpers
// are in errors_resource_cases.cpp.
#include "case_helpers.hpp"

namespace {

using namespace halo::cts;

// Wrong-type handles: one object passed where another type is expected.
template <typename To, typename From>
To* as(From* handle) {
  return reinterpret_cast<To*>(handle);
}

// --- release and retain of NULL -------------------------------------------------

HALO_CTS_CASE("errors.release.null_is_noop", kNeedNothing,
              "every halo_*_release and halo_*_retain accepts NULL as a no-op, and halo_status_free(NULL) too") {
  halo_registry_release(nullptr);
  halo_driver_retain(nullptr);
  halo_driver_release(nullptr);
  halo_device_retain(nullptr);
  halo_device_release(nullptr);
  halo_semaphore_retain(nullptr);
  halo_semaphore_release(nullptr);
  halo_buffer_retain(nullptr);
  halo_buffer_release(nullptr);
  halo_command_buffer_retain(nullptr);
  halo_command_buffer_release(nullptr);
  halo_executable_retain(nullptr);
  halo_executable_release(nullptr);
  halo_object_retain(nullptr);
  halo_object_release(nullptr);
  halo_status_free(nullptr);
  CTS_ASSERT_EQ(static_cast<int>(halo_object_type(nullptr)),
                static_cast<int>(HALO_OBJECT_TYPE_NONE));
}

HALO_CTS_CASE("errors.object.type_tags", kNeedSemaphores,
              "halo_object_type reports DRIVER, DEVICE and SEMAPHORE for the matching handles") {
  auto type_of = [](void* handle) {
    return static_cast<int>(halo_object_type(static_cast<halo_object_t*>(handle)));
  };
  CTS_ASSERT_EQ(type_of(ctx.driver()), static_cast<int>(HALO_OBJECT_TYPE_DRIVER));
  CTS_ASSERT_EQ(type_of(ctx.device()), static_cast<int>(HALO_OBJECT_TYPE_DEVICE));
  CTS_ASSERT_EQ(type_of(ctx.semaphore(0)), static_cast<int>(HALO_OBJECT_TYPE_SEMAPHORE));
}

// --- registry ---------------------------------------------------------------------

HALO_CTS_CASE("errors.registry.create", kNeedNothing,
              "halo_registry_create: NULL out_registry, a too-small struct_size, NULL plugin_paths or a NULL path is INVALID_ARGUMENT") {
  const char* const kFunction = "halo_registry_create";
  CTS_ASSERT_INVALID(halo_registry_create(nullptr, nullptr), kFunction);
  halo_registry_t* registry = nullptr;
  halo_registry_options_t options = {};
  options.struct_size = 0;
  CTS_ASSERT_INVALID(halo_registry_create(&options, &registry), kFunction);
  CTS_ASSERT(registry == nullptr);
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS | HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = nullptr;
  CTS_ASSERT_INVALID(halo_registry_create(&options, &registry), kFunction);
  CTS_ASSERT(registry == nullptr);
  const char* paths[] = {nullptr};
  options.plugin_paths = paths;
  CTS_ASSERT_INVALID(halo_registry_create(&options, &registry), kFunction);
  CTS_ASSERT(registry == nullptr);
}

HALO_CTS_CASE("errors.registry.null_registry", kNeedNothing,
              "every registry query with a NULL registry is INVALID_ARGUMENT naming the function") {
  size_t count = 0;
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  halo_driver_t* driver = nullptr;
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  halo_device_t* device = nullptr;
  CTS_ASSERT_INVALID(halo_registry_plugin_count(nullptr, &count), "halo_registry_plugin_count");
  CTS_ASSERT_INVALID(halo_registry_plugin_record(nullptr, 0, &record), "halo_registry_plugin_record");
  CTS_ASSERT_INVALID(halo_registry_driver_count(nullptr, &count), "halo_registry_driver_count");
  CTS_ASSERT_INVALID(halo_registry_driver(nullptr, 0, &driver), "halo_registry_driver");
  CTS_ASSERT_INVALID(halo_registry_find_driver(nullptr, "cpu", &driver), "halo_registry_find_driver");
  CTS_ASSERT_INVALID(halo_registry_device_count(nullptr, &count), "halo_registry_device_count");
  CTS_ASSERT_INVALID(halo_registry_device_info(nullptr, 0, &info, nullptr), "halo_registry_device_info");
  CTS_ASSERT_INVALID(halo_registry_create_device(nullptr, 0, nullptr, &device), "halo_registry_create_device");
  CTS_ASSERT(driver == nullptr && device == nullptr);
}

HALO_CTS_CASE("errors.registry.null_out", kNeedNothing,
              "every registry query with a NULL out parameter (or NULL name) is INVALID_ARGUMENT naming the function") {
  halo_registry_t* registry = ctx.registry();
  CTS_ASSERT_INVALID(halo_registry_plugin_count(registry, nullptr), "halo_registry_plugin_count");
  CTS_ASSERT_INVALID(halo_registry_plugin_record(registry, 0, nullptr), "halo_registry_plugin_record");
  CTS_ASSERT_INVALID(halo_registry_driver_count(registry, nullptr), "halo_registry_driver_count");
  CTS_ASSERT_INVALID(halo_registry_driver(registry, 0, nullptr), "halo_registry_driver");
  halo_driver_t* driver = nullptr;
  CTS_ASSERT_INVALID(halo_registry_find_driver(registry, nullptr, &driver), "halo_registry_find_driver");
  CTS_ASSERT_INVALID(halo_registry_find_driver(registry, ctx.plugin_name().c_str(), nullptr),
                     "halo_registry_find_driver");
  CTS_ASSERT_INVALID(halo_registry_device_count(registry, nullptr), "halo_registry_device_count");
  CTS_ASSERT_INVALID(halo_registry_device_info(registry, 0, nullptr, nullptr), "halo_registry_device_info");
  CTS_ASSERT_INVALID(halo_registry_create_device(registry, 0, nullptr, nullptr), "halo_registry_create_device");
  CTS_ASSERT(driver == nullptr);
}

HALO_CTS_CASE("errors.registry.out_of_range", kNeedNothing,
              "registry indexes past the end are OUT_OF_RANGE, and an unknown plugin name NOT_FOUND") {
  halo_registry_t* registry = ctx.registry();
  size_t plugins = 0, drivers = 0, devices = 0;
  CTS_ASSERT_OK(halo_registry_plugin_count(registry, &plugins));
  CTS_ASSERT_OK(halo_registry_driver_count(registry, &drivers));
  CTS_ASSERT_OK(halo_registry_device_count(registry, &devices));
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  CTS_ASSERT_STATUS(halo_registry_plugin_record(registry, plugins, &record), HALO_STATUS_OUT_OF_RANGE);
  halo_driver_t* driver = nullptr;
  CTS_ASSERT_STATUS(halo_registry_driver(registry, drivers, &driver), HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT_STATUS(halo_registry_find_driver(registry, "no-such-plugin-cts", &driver),
                    HALO_STATUS_NOT_FOUND);
  CTS_ASSERT(driver == nullptr);
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_STATUS(halo_registry_device_info(registry, devices, &info, nullptr), HALO_STATUS_OUT_OF_RANGE);
  halo_device_t* device = nullptr;
  CTS_ASSERT_STATUS(halo_registry_create_device(registry, devices, nullptr, &device),
                    HALO_STATUS_OUT_OF_RANGE);
  CTS_ASSERT(device == nullptr);
}

// --- driver ---------------------------------------------------------------------------

HALO_CTS_CASE("errors.driver.null_handle", kNeedNothing,
              "every driver function with a NULL driver is INVALID_ARGUMENT naming the function") {
  halo_driver_info_t driver_info = {};
  driver_info.struct_size = sizeof(driver_info);
  size_t count = 0;
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  halo_device_t* device = nullptr;
  CTS_ASSERT_INVALID(halo_driver_query_info(nullptr, &driver_info), "halo_driver_query_info");
  CTS_ASSERT_INVALID(halo_driver_device_count(nullptr, &count), "halo_driver_device_count");
  CTS_ASSERT_INVALID(halo_driver_query_device_info(nullptr, 0, &info), "halo_driver_query_device_info");
  CTS_ASSERT_INVALID(halo_driver_create_device(nullptr, 0, nullptr, &device), "halo_driver_create_device");
  CTS_ASSERT(device == nullptr);
}

HALO_CTS_CASE("errors.driver.wrong_type", kNeedNothing,
              "every driver function given a device as the driver is INVALID_ARGUMENT naming the function") {
  halo_driver_t* driver = as<halo_driver_t>(ctx.device());
  halo_driver_info_t driver_info = {};
  driver_info.struct_size = sizeof(driver_info);
  size_t count = 0;
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  halo_device_t* device = nullptr;
  CTS_ASSERT_INVALID(halo_driver_query_info(driver, &driver_info), "halo_driver_query_info");
  CTS_ASSERT_INVALID(halo_driver_device_count(driver, &count), "halo_driver_device_count");
  CTS_ASSERT_INVALID(halo_driver_query_device_info(driver, 0, &info), "halo_driver_query_device_info");
  CTS_ASSERT_INVALID(halo_driver_create_device(driver, 0, nullptr, &device), "halo_driver_create_device");
  CTS_ASSERT(device == nullptr);
}

HALO_CTS_CASE("errors.driver.bad_out", kNeedNothing,
              "driver functions with NULL out parameters, a zero struct_size or zero-size params are INVALID_ARGUMENT") {
  halo_driver_t* driver = ctx.driver();
  CTS_ASSERT_INVALID(halo_driver_query_info(driver, nullptr), "halo_driver_query_info");
  CTS_ASSERT_INVALID(halo_driver_device_count(driver, nullptr), "halo_driver_device_count");
  CTS_ASSERT_INVALID(halo_driver_query_device_info(driver, 0, nullptr), "halo_driver_query_device_info");
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_OK(halo_driver_query_device_info(driver, 0, &info));
  CTS_ASSERT_INVALID(halo_driver_create_device(driver, info.device_id, nullptr, nullptr),
                     "halo_driver_create_device");
  halo_driver_info_t driver_info = {};
  driver_info.struct_size = 0;
  CTS_ASSERT_INVALID(halo_driver_query_info(driver, &driver_info), "halo_driver_query_info");
  halo_device_info_t zero_info = {};
  CTS_ASSERT_INVALID(halo_driver_query_device_info(driver, 0, &zero_info),
                     "halo_driver_query_device_info");
  halo_device_params_t params = {};
  params.struct_size = 0;
  halo_device_t* device = nullptr;
  CTS_ASSERT_INVALID(halo_driver_create_device(driver, info.device_id, &params, &device),
                     "halo_driver_create_device");
  CTS_ASSERT(device == nullptr);
}

// --- device ------------------------------------------------------------------------------

// Calls every device function with |device| (NULL or not a device).
void check_bad_device(halo_device_t* device, halo_semaphore_t* semaphore) {
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  halo_semaphore_compatibility_t compatibility = 0;
  halo_queue_execute_info_t execute = {};
  execute.struct_size = sizeof(execute);
  halo_semaphore_t* created = nullptr;
  CTS_ASSERT_INVALID(halo_device_query_info(device, &info), "halo_device_query_info");
  CTS_ASSERT_INVALID(halo_device_query_capabilities(device, &caps), "halo_device_query_capabilities");
  CTS_ASSERT_INVALID(halo_device_semaphore_compatibility(device, semaphore, &compatibility),
                     "halo_device_semaphore_compatibility");
  CTS_ASSERT_INVALID(halo_device_queue_execute(device, &execute), "halo_device_queue_execute");
  CTS_ASSERT_INVALID(halo_device_queue_flush(device, HALO_QUEUE_AFFINITY_ANY), "halo_device_queue_flush");
  CTS_ASSERT_INVALID(halo_device_wait_idle(device, HALO_DEADLINE_INFINITE_PAST), "halo_device_wait_idle");
  CTS_ASSERT_INVALID(halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE, &created),
                     "halo_semaphore_create");
  CTS_ASSERT(created == nullptr);
}

HALO_CTS_CASE("errors.device.null_handle", kNeedSemaphores,
              "every device function (and halo_semaphore_create) with a NULL device is INVALID_ARGUMENT naming the function") {
  check_bad_device(nullptr, ctx.semaphore(0));
}

HALO_CTS_CASE("errors.device.semaphore_as_device", kNeedSemaphores,
              "every device function given a semaphore as the device is INVALID_ARGUMENT naming the function") {
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  check_bad_device(as<halo_device_t>(semaphore), semaphore);
  CTS_ASSERT_EQ(value_of(semaphore), 0u);  // Untouched.
}

HALO_CTS_CASE("errors.device.driver_as_device", kNeedNothing,
              "device info, capabilities, flush and wait_idle given the driver as the device are INVALID_ARGUMENT") {
  halo_device_t* device = as<halo_device_t>(ctx.driver());
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  CTS_ASSERT_INVALID(halo_device_query_info(device, &info), "halo_device_query_info");
  CTS_ASSERT_INVALID(halo_device_query_capabilities(device, &caps), "halo_device_query_capabilities");
  CTS_ASSERT_INVALID(halo_device_queue_flush(device, HALO_QUEUE_AFFINITY_ANY), "halo_device_queue_flush");
  CTS_ASSERT_INVALID(halo_device_wait_idle(device, HALO_DEADLINE_INFINITE_PAST), "halo_device_wait_idle");
}

HALO_CTS_CASE("errors.device.bad_out", kNeedSemaphores,
              "device functions with NULL out parameters or a zero struct_size are INVALID_ARGUMENT naming the function") {
  halo_device_t* device = ctx.device();
  CTS_ASSERT_INVALID(halo_device_query_info(device, nullptr), "halo_device_query_info");
  CTS_ASSERT_INVALID(halo_device_query_capabilities(device, nullptr), "halo_device_query_capabilities");
  CTS_ASSERT_INVALID(halo_device_semaphore_compatibility(device, ctx.semaphore(0), nullptr),
                     "halo_device_semaphore_compatibility");
  CTS_ASSERT_INVALID(halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE, nullptr),
                     "halo_semaphore_create");
  halo_device_info_t info = {};
  CTS_ASSERT_INVALID(halo_device_query_info(device, &info), "halo_device_query_info");
  halo_device_capabilities_t caps = {};
  CTS_ASSERT_INVALID(halo_device_query_capabilities(device, &caps), "halo_device_query_capabilities");
}

HALO_CTS_CASE("errors.device.compatibility_bad_semaphore", kNeedNothing,
              "halo_device_semaphore_compatibility with a NULL semaphore or a device as the semaphore is INVALID_ARGUMENT") {
  halo_semaphore_compatibility_t compatibility = 0;
  CTS_ASSERT_INVALID(halo_device_semaphore_compatibility(ctx.device(), nullptr, &compatibility),
                     "halo_device_semaphore_compatibility");
  CTS_ASSERT_INVALID(halo_device_semaphore_compatibility(
                         ctx.device(), as<halo_semaphore_t>(ctx.device()), &compatibility),
                     "halo_device_semaphore_compatibility");
}

// --- semaphore ---------------------------------------------------------------------------

// Calls every semaphore function with |semaphore| (NULL or not a semaphore).
void check_bad_semaphore(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  CTS_ASSERT_INVALID(halo_semaphore_query(semaphore, &value), "halo_semaphore_query");
  CTS_ASSERT_INVALID(halo_semaphore_signal(semaphore, 1), "halo_semaphore_signal");
  CTS_ASSERT_INVALID(halo_semaphore_fail(semaphore, halo_status_create(HALO_STATUS_ABORTED, "cts")),
                     "halo_semaphore_fail");
  CTS_ASSERT_INVALID(halo_semaphore_wait(semaphore, 1, HALO_DEADLINE_INFINITE_PAST),
                     "halo_semaphore_wait");
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = 1;
  timepoint.callback = [](void*, halo_timepoint_t*, halo_status_t status) {
    halo_status_free(status);
  };
  CTS_ASSERT_INVALID(halo_semaphore_acquire_timepoint(semaphore, &timepoint),
                     "halo_semaphore_acquire_timepoint");
  bool cancelled = false;
  CTS_ASSERT_INVALID(halo_semaphore_cancel_timepoint(semaphore, &timepoint, &cancelled),
                     "halo_semaphore_cancel_timepoint");
  halo_semaphore_t* list[] = {semaphore};
  const uint64_t values[] = {1};
  for (halo_wait_mode_t mode : {HALO_WAIT_MODE_ALL, HALO_WAIT_MODE_ANY}) {
    CTS_ASSERT_INVALID(halo_semaphores_wait(mode, 1, list, values, HALO_DEADLINE_INFINITE_PAST),
                       "halo_semaphores_wait");
  }
}

HALO_CTS_CASE("errors.semaphore.null_handle", kNeedNothing,
              "every semaphore function (and a NULL entry in a wait list) with a NULL semaphore is INVALID_ARGUMENT naming the function") {
  check_bad_semaphore(nullptr);
}

HALO_CTS_CASE("errors.semaphore.device_as_semaphore", kNeedNothing,
              "every semaphore function given a device as the semaphore is INVALID_ARGUMENT naming the function") {
  check_bad_semaphore(as<halo_semaphore_t>(ctx.device()));
}

HALO_CTS_CASE("errors.semaphore.bad_arguments", kNeedSemaphores,
              "NULL out_value, a wait value above MAX, and a fail with a NULL (OK) status are INVALID_ARGUMENT; the semaphore stays usable") {
  halo_semaphore_t* semaphore = ctx.semaphore(1);
  CTS_ASSERT_INVALID(halo_semaphore_query(semaphore, nullptr), "halo_semaphore_query");
  CTS_ASSERT_INVALID(halo_semaphore_wait(semaphore, HALO_SEMAPHORE_MAX_VALUE + 1,
                                         HALO_DEADLINE_INFINITE_PAST),
                     "halo_semaphore_wait");
  CTS_ASSERT_INVALID(halo_semaphore_signal(semaphore, HALO_SEMAPHORE_MAX_VALUE + 1),
                     "halo_semaphore_signal");
  CTS_ASSERT_INVALID(halo_semaphore_fail(semaphore, nullptr), "halo_semaphore_fail");
  CTS_ASSERT_EQ(value_of(semaphore), 1u);  // Not failed.
  CTS_ASSERT_OK(halo_semaphore_signal(semaphore, 2));
}

HALO_CTS_CASE("errors.semaphores_wait.bad_lists", kNeedSemaphores,
              "halo_semaphores_wait with an invalid mode, NULL arrays with a count, a NULL entry or a value above MAX is INVALID_ARGUMENT") {
  const char* const kFunction = "halo_semaphores_wait";
  halo_semaphore_t* semaphore = ctx.semaphore(1);
  halo_semaphore_t* list[] = {semaphore, semaphore};
  uint64_t values[] = {1, 1};
  for (int mode : {2, -1, 0x7fffffff}) {
    CTS_ASSERT_INVALID(halo_semaphores_wait(static_cast<halo_wait_mode_t>(mode), 2, list,
                                            values, HALO_DEADLINE_INFINITE_PAST),
                       kFunction);
    CTS_ASSERT_INVALID(halo_semaphores_wait(static_cast<halo_wait_mode_t>(mode), 0, nullptr,
                                            nullptr, HALO_DEADLINE_INFINITE_PAST),
                       kFunction);
  }
  for (halo_wait_mode_t mode : {HALO_WAIT_MODE_ALL, HALO_WAIT_MODE_ANY}) {
    CTS_ASSERT_INVALID(halo_semaphores_wait(mode, 2, nullptr, values, HALO_DEADLINE_INFINITE_PAST),
                       kFunction);
    CTS_ASSERT_INVALID(halo_semaphores_wait(mode, 2, list, nullptr, HALO_DEADLINE_INFINITE_PAST),
                       kFunction);
    halo_semaphore_t* with_null[] = {semaphore, nullptr};
    CTS_ASSERT_INVALID(halo_semaphores_wait(mode, 2, with_null, values, deadline_in_ms(kGenerousMs)),
                       kFunction);
    halo_semaphore_t* with_device[] = {semaphore, as<halo_semaphore_t>(ctx.device())};
    CTS_ASSERT_INVALID(halo_semaphores_wait(mode, 2, with_device, values, deadline_in_ms(kGenerousMs)),
                       kFunction);
    uint64_t too_big[] = {1, HALO_SEMAPHORE_MAX_VALUE + 1};
    CTS_ASSERT_INVALID(halo_semaphores_wait(mode, 2, list, too_big, deadline_in_ms(kGenerousMs)),
                       kFunction);
  }
}

HALO_CTS_CASE("errors.timepoint.bad_arguments", kNeedSemaphores,
              "acquire_timepoint with a NULL timepoint, NULL callback, too-small struct_size or value above MAX, and cancel with NULL, are INVALID_ARGUMENT") {
  const char* const kAcquire = "halo_semaphore_acquire_timepoint";
  halo_semaphore_t* semaphore = ctx.semaphore(5);
  static std::atomic<int> calls{0};
  calls.store(0);
  auto counting = [](void*, halo_timepoint_t*, halo_status_t status) {
    halo_status_free(status);
    calls.fetch_add(1);
  };
  CTS_ASSERT_INVALID(halo_semaphore_acquire_timepoint(semaphore, nullptr), kAcquire);
  halo_timepoint_t timepoint = {};
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = 1;  // Reached: a registration that slipped through would run inline.
  CTS_ASSERT_INVALID(halo_semaphore_acquire_timepoint(semaphore, &timepoint), kAcquire);
  timepoint.callback = counting;
  for (uint32_t size : {0u, 8u, static_cast<uint32_t>(sizeof(timepoint) - 1)}) {
    timepoint.struct_size = size;
    CTS_ASSERT_INVALID(halo_semaphore_acquire_timepoint(semaphore, &timepoint), kAcquire);
  }
  timepoint.struct_size = sizeof(timepoint);
  timepoint.value = HALO_SEMAPHORE_MAX_VALUE + 1;
  CTS_ASSERT_INVALID(halo_semaphore_acquire_timepoint(semaphore, &timepoint), kAcquire);
  bool cancelled = false;
  CTS_ASSERT_INVALID(halo_semaphore_cancel_timepoint(semaphore, nullptr, &cancelled),
                     "halo_semaphore_cancel_timepoint");
  CTS_ASSERT_EQ(calls.load(), 0);
}

// --- queue_execute -------------------------------------------------------------------------

HALO_CTS_CASE("errors.queue_execute.bad_info", kNeedSemaphores,
              "queue_execute with NULL info, a too-small struct_size or NULL arrays with non-zero counts is INVALID_ARGUMENT; nothing is signalled") {
  const char* const kFunction = "halo_device_queue_execute";
  halo_device_t* device = ctx.device();
  halo_semaphore_t* semaphore = ctx.semaphore(0);
  halo_semaphore_t* semaphores[] = {semaphore};
  const uint64_t values[] = {1};
  CTS_ASSERT_INVALID(halo_device_queue_execute(device, nullptr), kFunction);
  halo_queue_execute_info_t info = {};
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  for (uint32_t size : {0u, 4u, static_cast<uint32_t>(sizeof(info) - 8)}) {
    info.struct_size = size;
    CTS_ASSERT_INVALID(halo_device_queue_execute(device, &info), kFunction);
  }
  info.struct_size = sizeof(info);
  info.wait_count = 1;  // NULL wait arrays.
  CTS_ASSERT_INVALID(halo_device_queue_execute(device, &info), kFunction);
  info.wait_semaphores = semaphores;  // NULL wait_values.
  CTS_ASSERT_INVALID(halo_device_queue_execute(device, &info), kFunction);
  info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.signal_count = 1;  // NULL signal arrays.
  CTS_ASSERT_INVALID(halo_device_queue_execute(device, &info), kFunction);
  info.signal_values = values;  // NULL signal_semaphores.
  CTS_ASSERT_INVALID(halo_device_queue_execute(device, &info), kFunction);
  info.signal_count = 0;
  info.command_buffer_count = 1;  // NULL command_buffers.
  CTS_ASSERT_INVALID(halo_device_queue_execute(device, &info), kFunction);
  CTS_ASSERT_EQ(value_of(semaphore), 0u);
}

HALO_CTS_CASE("errors.queue_execute.bad_entries", kNeedSemaphores,
              "queue_execute with NULL or wrong-type list entries or a wait/signal value above MAX is INVALID_ARGUMENT; nothing is signalled") {
  const char* const kFunction = "halo_device_queue_execute";
  halo_device_t* device = ctx.device();
  halo_semaphore_t* good = ctx.semaphore(0);
  halo_semaphore_t* out = ctx.semaphore(0);
  halo_semaphore_t* wrong = as<halo_semaphore_t>(device);
  const uint64_t kTooBig = HALO_SEMAPHORE_MAX_VALUE + 1;
  CTS_ASSERT_INVALID(queue_execute(device, {good, nullptr}, {0, 0}, {out}, {1}), kFunction);
  CTS_ASSERT_INVALID(queue_execute(device, {wrong}, {0}, {out}, {1}), kFunction);
  CTS_ASSERT_INVALID(queue_execute(device, {}, {}, {out, nullptr}, {1, 1}), kFunction);
  CTS_ASSERT_INVALID(queue_execute(device, {}, {}, {out, wrong}, {1, 1}), kFunction);
  CTS_ASSERT_INVALID(queue_execute(device, {good}, {kTooBig}, {out}, {1}), kFunction);
  CTS_ASSERT_INVALID(queue_execute(device, {}, {}, {out}, {kTooBig}), kFunction);
  halo_command_buffer_t* command_buffers[] = {nullptr, as<halo_command_buffer_t>(good)};
  for (halo_command_buffer_t*& command_buffer : command_buffers) {
    halo_queue_execute_info_t info = {};
    info.struct_size = sizeof(info);
    info.affinity = HALO_QUEUE_AFFINITY_ANY;
    info.command_buffer_count = 1;
    info.command_buffers = &command_buffer;
    CTS_ASSERT_INVALID(halo_device_queue_execute(device, &info), kFunction);
  }
  CTS_ASSERT_EQ(value_of(out), 0u);
  CTS_ASSERT_EQ(value_of(good), 0u);
}

}  // namespace
