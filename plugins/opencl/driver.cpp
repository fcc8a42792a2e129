// The opencl driver: platform and device enumeration, the driver vtable and
// the shared contexts.
#include "driver.hpp"

#include <CL/cl_ext.h>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <mutex>

#include "cl_status.hpp"
#include "device.hpp"
#include "halo/sdk/versioned.hpp"

namespace halo::cl {
namespace {

// Serialises enumeration across the process: PoCL 3.1's clGetDeviceIDs and
// clGetDeviceInfo are not thread-safe, so drivers created on several
// threads at once (DESIGN.md §6 promises that enumeration is thread-safe)
// crashed inside them. Every driver's enumeration (platforms, devices and
// the device information read then) runs under it; it is taken once per
// driver, on no hot path.
std::mutex g_enumeration_mutex;

// Appends printf-style text to |out| (capacity |capacity|), truncating.
void append(char* out, size_t capacity, const char* format, ...)
    HALO_SDK_PRINTF(3, 4);
void append(char* out, size_t capacity, const char* format, ...) {
  size_t used = std::strlen(out);
  if (used + 1 >= capacity) return;
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(out + used, capacity - used, format, arguments);
  va_end(arguments);
}

// Adds one platform's name and version to the driver's description.
void describe_platform(const Api& api, cl_platform_id platform,
                       char* description, size_t capacity) {
  char name[128] = {}, version[128] = {};
  api.clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(name) - 1, name,
                        nullptr);
  api.clGetPlatformInfo(platform, CL_PLATFORM_VERSION, sizeof(version) - 1,
                        version, nullptr);
  append(description, capacity, "%s%s (%s)",
         description[0] == '\0' ? "OpenCL platforms: " : "; ", name, version);
}

// Adds the devices of |platform| to |driver|'s array (sized for them).
void add_devices(Driver* driver, cl_platform_id platform) {
  const Api& api = *driver->api;
  cl_uint count = 0;
  if (api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) !=
          CL_SUCCESS ||
      count == 0) {
    return;  // CL_DEVICE_NOT_FOUND: a platform without devices.
  }
  cl_device_id ids[64] = {};
  count = std::min<cl_uint>(count, 64);
  if (api.clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, ids, nullptr) !=
      CL_SUCCESS) {
    return;
  }
  for (cl_uint i = 0; i < count; ++i) {
    DeviceDescription* slot = &driver->devices[driver->device_count];
    halo_status_t status =
        describe_device(driver->host, api, platform, ids[i],
                        driver->device_count, slot);
    if (status != HALO_OK) {
      driver->host.log(HALO_LOG_LEVEL_WARN, "skipping an OpenCL device: %s",
                       driver->host.message(status));
      driver->host.free(status);
      continue;
    }
    ++driver->device_count;
  }
}

// Counts every device of |platforms| (at most 64 per platform).
size_t count_devices(const Api& api, const cl_platform_id* platforms,
                     cl_uint platform_count) {
  size_t total = 0;
  for (cl_uint i = 0; i < platform_count; ++i) {
    cl_uint count = 0;
    if (api.clGetDeviceIDs(platforms[i], CL_DEVICE_TYPE_ALL, 0, nullptr,
                           &count) == CL_SUCCESS) {
      total += std::min<cl_uint>(count, 64);
    }
  }
  return total;
}

// Fills |driver|'s devices and description, holding the enumeration lock.
// Returns OK (or throws std::bad_alloc) unless listing the platforms fails: a
// missing platform is a description, not an error.
halo_status_t enumerate(Driver* driver) {
  const size_t capacity = sizeof(driver->description);
  if (driver->api == nullptr) return HALO_OK;  // Described by create.
  const Api& api = *driver->api;
  std::lock_guard<std::mutex> lock(g_enumeration_mutex);
  cl_uint platform_count = 0;
  cl_int code = api.clGetPlatformIDs(0, nullptr, &platform_count);
  if (code == CL_SUCCESS && platform_count == 0) code = CL_PLATFORM_NOT_FOUND_KHR;
  if (code != CL_SUCCESS) {
    std::snprintf(driver->description, capacity,
                  "no OpenCL devices: clGetPlatformIDs failed: %s (%d)%s",
                  error_name(code), static_cast<int>(code),
                  code == CL_PLATFORM_NOT_FOUND_KHR
                      ? "; no OpenCL platform (ICD) is installed"
                      : "");
    return HALO_OK;
  }
  cl_platform_id platforms[32] = {};
  platform_count = std::min<cl_uint>(platform_count, 32);
  code = api.clGetPlatformIDs(platform_count, platforms, nullptr);
  if (code != CL_SUCCESS) return cl_status(driver->host, "clGetPlatformIDs", code);
  size_t total = count_devices(api, platforms, platform_count);
  if (total > 0) {
    driver->devices = static_cast<DeviceDescription*>(driver->host.allocate(
        total * sizeof(DeviceDescription), alignof(DeviceDescription)));
    if (driver->devices == nullptr) throw std::bad_alloc();
    for (cl_uint i = 0; i < platform_count; ++i) add_devices(driver, platforms[i]);
  }
  for (cl_uint i = 0; i < platform_count; ++i) {
    describe_platform(api, platforms[i], driver->description, capacity);
  }
  if (driver->device_count == 0) {
    char platforms_text[sizeof(driver->description)];
    std::snprintf(platforms_text, sizeof(platforms_text), "%s",
                  driver->description);
    std::snprintf(driver->description, capacity,
                  "no OpenCL devices: the platforms list none (%.200s)",
                  platforms_text);
  }
  return HALO_OK;
}

void destroy_driver(halo_object_t* object) {
  Driver* driver = sdk::object_cast<Driver>(object);
  sdk::Host host = driver->host;
  host.destroy(driver);
}

halo_status_t query_info(halo_driver_t* driver, halo_driver_info_t* out_info) {
  Driver* self = Driver::cast(driver);
  return sdk::copy_driver_info(self->host, "opencl", kVersion,
                               self->description, out_info);
}

halo_status_t enumerate_devices(halo_driver_t* driver, size_t capacity,
                                size_t info_stride,
                                halo_device_info_t* out_infos,
                                size_t* out_count) {
  Driver* self = Driver::cast(driver);
  sdk::enumerate_device_infos(
      self->device_count,
      [&](size_t i) -> const halo_device_info_t& {
        return self->devices[i].info;
      },
      capacity, info_stride, out_infos, out_count);
  return HALO_OK;
}

halo_status_t create_device(halo_driver_t* driver, halo_device_id_t device_id,
                            const halo_device_params_t*,
                            halo_device_t** out_device) {
  Driver* self = Driver::cast(driver);
  if (device_id >= self->device_count) {
    return self->host.make_status(
        HALO_STATUS_NOT_FOUND,
        "halo_driver_create_device: device_id %llu is not a device of the "
        "opencl driver",
        static_cast<unsigned long long>(device_id));
  }
  return Device::create(self, static_cast<size_t>(device_id), out_device);
}

}  // namespace

const halo_driver_vtable_t Driver::kVtable = {
    .object = {.struct_size = sizeof(halo_driver_vtable_t),
               .type = HALO_OBJECT_TYPE_DRIVER,
               .destroy = &destroy_driver},
    .query_info = &query_info,
    .enumerate_devices = &enumerate_devices,
    .create_device = &create_device,
};

Driver::Driver(sdk::Host host, const Api* api) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)), host(host), api(api) {}

Driver::~Driver() {
  for (size_t i = 0; contexts_ != nullptr && i < device_count; ++i) {
    if (contexts_[i].complete_event != nullptr) {
      api->clReleaseEvent(contexts_[i].complete_event);
    }
    if (contexts_[i].context != nullptr) {
      api->clReleaseContext(contexts_[i].context);
    }
  }
  host.deallocate(contexts_);
  host.deallocate(devices);
}

halo_status_t Driver::create(const halo_host_interface_t* host_interface,
                             halo_driver_t** out_driver) noexcept {
  sdk::Host host(host_interface);
  return sdk::guard(host, [&]() -> halo_status_t {
    const char* reason = "";
    const Api* api = load_api(&reason);
    Driver* driver = host.make<Driver>(host, api);
    if (api == nullptr) {
      std::snprintf(driver->description, sizeof(driver->description),
                    "no OpenCL devices: %s", reason);
    }
    halo_status_t status = HALO_OK;
    try {
      status = enumerate(driver);
    } catch (...) {
      host.destroy(driver);
      throw;
    }
    if (status != HALO_OK) {
      host.destroy(driver);
      return status;
    }
    if (driver->device_count == 0) {
      host.log(HALO_LOG_LEVEL_INFO, "%s", driver->description);
    }
    *out_driver = driver->handle();
    return HALO_OK;
  });
}

halo_status_t Driver::shared_context(size_t index,
                                     SharedContext* out) noexcept {
  std::lock_guard<std::mutex> lock(mutex_);
  if (contexts_ == nullptr) {
    contexts_ = static_cast<SharedContext*>(host.allocate(
        device_count * sizeof(SharedContext), alignof(SharedContext)));
    if (contexts_ == nullptr) {
      return host.make_status_text(HALO_STATUS_RESOURCE_EXHAUSTED,
                                   "out of memory for the shared contexts");
    }
    for (size_t i = 0; i < device_count; ++i) contexts_[i] = SharedContext{};
  }
  SharedContext& shared = contexts_[index];
  if (shared.context == nullptr) {
    const DeviceDescription& device = devices[index];
    cl_context_properties properties[] = {
        CL_CONTEXT_PLATFORM,
        reinterpret_cast<cl_context_properties>(device.platform), 0};
    cl_int code = CL_SUCCESS;
    cl_context context = api->clCreateContext(properties, 1, &device.device,
                                              nullptr, nullptr, &code);
    HALO_CL_RETURN_IF_ERROR(host, "clCreateContext", code);
    cl_event event = api->clCreateUserEvent(context, &code);
    if (code == CL_SUCCESS) code = api->clSetUserEventStatus(event, CL_COMPLETE);
    if (code != CL_SUCCESS) {
      if (event != nullptr) api->clReleaseEvent(event);
      api->clReleaseContext(context);
      return cl_status(host, "clCreateUserEvent", code);
    }
    shared.context = context;
    shared.complete_event = event;
  }
  *out = shared;
  return HALO_OK;
}

}  // namespace halo::cl
