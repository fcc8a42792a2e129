// The cuda driver: device enumeration and the driver vtable.
#include "driver.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cuda_status.hpp"
#include "device.hpp"
#include "executable.hpp"
#include "halo/sdk/versioned.hpp"

namespace halo::cuda {
namespace {

// Buffers are aligned to what cuMemAlloc guarantees, which also satisfies
// every kernel parameter's alignment.
constexpr uint64_t kMinBufferAlignment = 256;
constexpr uint32_t kNvidiaVendorId = 0x10de;

int attribute(const Api& api, CUdevice device, CUdevice_attribute which) {
  int value = 0;
  if (api.cuDeviceGetAttribute(&value, which, device) != CUDA_SUCCESS) {
    return 0;
  }
  return value;
}

// An attribute that is a count, at least 1 (an attribute the driver does
// not know reads 0).
uint32_t count_attribute(const Api& api, CUdevice device,
                         CUdevice_attribute which) {
  return static_cast<uint32_t>(std::max(1, attribute(api, device, which)));
}

// The dispatch limits of ABI 1.2: a block is a workgroup, the grid the
// workgroup counts (command_dispatch.cpp checks them through
// sdk::check_workgroup_count). CUDA limits only each grid dimension.
// Parameters are PTX .param scalars of at most 8 bytes or pointers, at most
// kMaxKernelParameters of them (executable.cpp), well within CUDA's 4 KiB
// of parameters.
void describe_dispatch_limits(const Api& api, CUdevice device,
                              halo_device_capabilities_t& caps) {
  static constexpr CUdevice_attribute kBlock[3] = {
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y,
      CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z};
  static constexpr CUdevice_attribute kGrid[3] = {
      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y,
      CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z};
  for (int d = 0; d < 3; ++d) {
    caps.max_workgroup_size[d] = count_attribute(api, device, kBlock[d]);
    caps.max_workgroup_count[d] = count_attribute(api, device, kGrid[d]);
  }
  caps.max_workgroup_invocations = count_attribute(
      api, device, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  caps.max_workgroup_count_total = UINT64_MAX;
  caps.max_binding_count = kMaxKernelParameters;
  caps.max_constant_size = kMaxKernelParameters * sizeof(uint64_t);
}

halo_status_t describe_device(sdk::Host host, const Api& api, int ordinal,
                              DeviceDescription* out) {
  *out = DeviceDescription{};
  HALO_CUDA_RETURN_IF_ERROR(host, api, "cuDeviceGet",
                            api.cuDeviceGet(&out->device, ordinal));
  const CUdevice device = out->device;
  halo_device_info_t& info = out->info;
  info.struct_size = sizeof(info);
  info.type = attribute(api, device, CU_DEVICE_ATTRIBUTE_INTEGRATED) != 0
                  ? HALO_DEVICE_TYPE_GPU_INTEGRATED
                  : HALO_DEVICE_TYPE_GPU_DISCRETE;
  info.device_id = static_cast<halo_device_id_t>(ordinal);
  HALO_CUDA_RETURN_IF_ERROR(
      host, api, "cuDeviceGetName",
      api.cuDeviceGetName(info.name, sizeof(info.name) - 1, device));
  std::snprintf(info.vendor, sizeof(info.vendor), "NVIDIA Corporation");
  int driver_version = 0;
  HALO_CUDA_RETURN_IF_ERROR(host, api, "cuDriverGetVersion",
                            api.cuDriverGetVersion(&driver_version));
  std::snprintf(info.driver_version, sizeof(info.driver_version),
                "CUDA %d.%d, compute capability %d.%d", driver_version / 1000,
                (driver_version % 1000) / 10,
                attribute(api, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                attribute(api, device, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR));
  info.vendor_id = kNvidiaVendorId;
  CUuuid uuid = {};
  HALO_CUDA_RETURN_IF_ERROR(host, api, "cuDeviceGetUuid",
                            api.cuDeviceGetUuid(&uuid, device));
  static_assert(sizeof(uuid.bytes) == sizeof(info.uuid));
  std::memcpy(info.uuid, uuid.bytes, sizeof(info.uuid));

  halo_device_capabilities_t& caps = out->capabilities;
  caps.struct_size = sizeof(caps);
  caps.queue_count = 1;
  caps.features = HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES |
                  HALO_DEVICE_FEATURE_BUFFERS |
                  HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
                  HALO_DEVICE_FEATURE_DISPATCH |
                  HALO_DEVICE_FEATURE_DEVICE_SEMAPHORE_WAIT;
  // The stream's wait on an imported Vulkan timeline adds about 300 µs over
  // a host hand-off on NVIDIA's driver 580, written by hand as in halo
  // (bench/README.md, halo-bench-device-wait): libhalo is not asked to
  // choose it unless HALO_CUDA_AUTOMATIC_DEVICE_WAITS=1 says the driver at
  // hand is better.
  const char* automatic = secure_getenv("HALO_CUDA_AUTOMATIC_DEVICE_WAITS");
  if (automatic != nullptr && std::strcmp(automatic, "1") == 0) {
    caps.features |= HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS;
  }
  caps.max_semaphore_value_difference = HALO_SEMAPHORE_MAX_VALUE;
  size_t total_memory = 0;
  HALO_CUDA_RETURN_IF_ERROR(host, api, "cuDeviceTotalMem",
                            api.cuDeviceTotalMem(&total_memory, device));
  caps.max_buffer_size = total_memory;
  caps.min_buffer_alignment = kMinBufferAlignment;
  // Host-visible memory is pinned host memory mapped into the device's
  // address space: coherent, and cached on the host.
  caps.memory_types = HALO_MEMORY_TYPE_DEVICE_LOCAL |
                      HALO_MEMORY_TYPE_HOST_VISIBLE |
                      HALO_MEMORY_TYPE_HOST_COHERENT |
                      HALO_MEMORY_TYPE_HOST_CACHED;
  std::snprintf(caps.executable_formats, sizeof(caps.executable_formats),
                "%s", kFormatPtx);
  caps.device_memory_size = total_memory;
  // An application's host memory is registered with CUDA and reached
  // through its device mapping (buffer.cpp), on whole pages. An OPAQUE_FD
  // is device memory a Vulkan driver of the same GPU exported
  // (cuImportExternalMemory), which CUDA offers on every Linux device.
  caps.buffer_import_types = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION |
                             HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  // A Vulkan timeline of the same GPU, exported as an opaque fd, is waited
  // on by the stream (cuWaitExternalSemaphoresAsync); CUDA cannot read its
  // payload, so the import is for device waits only (device_wait.hpp).
  caps.semaphore_wait_import_types = HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  const long page = sysconf(_SC_PAGESIZE);
  caps.host_allocation_alignment = page > 0 ? static_cast<uint64_t>(page) : 4096;
  std::snprintf(info.native_api, sizeof(info.native_api), "CUDA %d.%d",
                driver_version / 1000, (driver_version % 1000) / 10);
  info.compute_units = static_cast<uint32_t>(std::max(
      1, attribute(api, device, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)));
  describe_dispatch_limits(api, device, caps);
  return HALO_OK;
}

// Fills |driver|'s devices and description. A device that cannot be
// described is skipped with a warning; no device at all is a description.
void enumerate(Driver* driver) {
  const Api& api = *driver->api;
  const size_t capacity = sizeof(driver->description);
  int count = 0;
  CUresult result = api.cuDeviceGetCount(&count);
  if (result != CUDA_SUCCESS || count <= 0) {
    std::snprintf(driver->description, capacity,
                  "no CUDA devices: cuDeviceGetCount %s %d devices",
                  result == CUDA_SUCCESS ? "found" : "failed, after", count);
    return;
  }
  driver->devices = static_cast<DeviceDescription*>(driver->host.allocate(
      static_cast<size_t>(count) * sizeof(DeviceDescription),
      alignof(DeviceDescription)));
  if (driver->devices == nullptr) throw std::bad_alloc();
  for (int i = 0; i < count; ++i) {
    DeviceDescription* slot = &driver->devices[driver->device_count];
    halo_status_t status = describe_device(driver->host, api, i, slot);
    if (status != HALO_OK) {
      driver->host.log(HALO_LOG_LEVEL_WARN, "skipping CUDA device %d: %s", i,
                       driver->host.message(status));
      driver->host.free(status);
      continue;
    }
    slot->info.device_id = driver->device_count++;
  }
  int version = 0;
  api.cuDriverGetVersion(&version);
  std::snprintf(driver->description, capacity,
                driver->device_count > 0
                    ? "CUDA driver API %d.%d, %zu devices"
                    : "no CUDA devices: CUDA driver API %d.%d lists %zu "
                      "usable devices",
                version / 1000, (version % 1000) / 10, driver->device_count);
}

void destroy_driver(halo_object_t* object) {
  Driver* driver = sdk::object_cast<Driver>(object);
  sdk::Host host = driver->host;
  host.destroy(driver);
}

halo_status_t query_info(halo_driver_t* driver, halo_driver_info_t* out_info) {
  Driver* self = Driver::cast(driver);
  return sdk::copy_driver_info(self->host, "cuda", kVersion,
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
        "cuda driver",
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

Driver::~Driver() { host.deallocate(devices); }

halo_status_t Driver::create(const halo_host_interface_t* host_interface,
                             halo_driver_t** out_driver) noexcept {
  sdk::Host host(host_interface);
  return sdk::guard(host, [&]() -> halo_status_t {
    const char* reason = "";
    const Api* api = load_api(&reason);
    Driver* driver = host.make<Driver>(host, api);
    if (api == nullptr) {
      std::snprintf(driver->description, sizeof(driver->description),
                    "no CUDA devices: %s", reason);
    } else {
      try {
        enumerate(driver);
      } catch (...) {
        host.destroy(driver);
        throw;
      }
    }
    if (driver->device_count == 0) {
      host.log(HALO_LOG_LEVEL_INFO, "%s", driver->description);
    }
    *out_driver = driver->handle();
    return HALO_OK;
  });
}

}  // namespace halo::cuda
