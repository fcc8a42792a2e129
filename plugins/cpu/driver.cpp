// The cpu driver's vtable: info, device enumeration and device creation.
#include "driver.hpp"

#include <cstdio>
#include <cstring>

#include "device.hpp"
#include "halo/sdk/versioned.hpp"
#include "worker_pool.hpp"

namespace halo::cpu {
namespace {

constexpr halo_device_id_t kDeviceId = 0;

// Copies |text| into the fixed-size field |out|, always NUL-terminated.
template <size_t N>
void copy_text(char (&out)[N], const char* text) {
  std::snprintf(out, N, "%s", text);
}

// Returns the "model name" line of /proc/cpuinfo in |out| (the text after
// the colon), or "host" when there is none. Read once per driver: cheap.
void read_cpu_model(char* out, size_t capacity) {
  std::snprintf(out, capacity, "%s", "host");
  FILE* file = std::fopen("/proc/cpuinfo", "r");
  if (file == nullptr) return;
  char line[512];
  while (std::fgets(line, sizeof(line), file) != nullptr) {
    if (std::strncmp(line, "model name", 10) != 0) continue;
    const char* colon = std::strchr(line, ':');
    if (colon == nullptr) break;
    const char* text = colon + 1;
    while (*text == ' ' || *text == '\t') ++text;
    size_t length = std::strcspn(text, "\n");
    if (length > 0) {
      std::snprintf(out, capacity, "%.*s", static_cast<int>(length), text);
    }
    break;
  }
  std::fclose(file);
}

halo_device_info_t describe_device() {
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  info.type = HALO_DEVICE_TYPE_CPU;
  info.device_id = kDeviceId;
  copy_text(info.name, "host CPU");
  read_cpu_model(info.vendor, sizeof(info.vendor));
  copy_text(info.driver_version, kVersion);
  copy_text(info.native_api, "host");
  // compute_units is the worker pool's size, which HALO_CPU_WORKERS sets
  // when a device is made (Device::create): enumerate_devices reads it then.
  return info;
}

void destroy_driver(halo_object_t* object) {
  Driver* driver = sdk::object_cast<Driver>(object);
  sdk::Host host = driver->host;
  host.destroy(driver);
}

halo_status_t query_info(halo_driver_t* driver, halo_driver_info_t* out_info) {
  return sdk::copy_driver_info(
      Driver::cast(driver)->host, "cpu", kVersion,
      "Runs work on the host CPU; one worker thread per device queue",
      out_info);
}

halo_status_t enumerate_devices(halo_driver_t* driver, size_t capacity,
                                size_t info_stride,
                                halo_device_info_t* out_infos,
                                size_t* out_count) {
  Driver* self = Driver::cast(driver);
  // The pool a device made now would have (see describe_device).
  halo_device_info_t info = self->device_info;
  info.compute_units = WorkerPool::configured_thread_count(self->host);
  sdk::enumerate_device_infos(
      1, [&](size_t) -> const halo_device_info_t& { return info; },
      capacity, info_stride, out_infos, out_count);
  return HALO_OK;
}

halo_status_t create_device(halo_driver_t* driver, halo_device_id_t device_id,
                            const halo_device_params_t*,
                            halo_device_t** out_device) {
  Driver* self = Driver::cast(driver);
  if (device_id != kDeviceId) {
    return self->host.make_status(
        HALO_STATUS_NOT_FOUND,
        "halo_driver_create_device: device_id %llu is not a device of the cpu "
        "driver",
        static_cast<unsigned long long>(device_id));
  }
  return Device::create(self->host, driver, self->device_info, out_device);
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

Driver::Driver(sdk::Host host, const halo_device_info_t& device_info) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kVtable)),
      host(host),
      device_info(device_info) {}

halo_status_t Driver::create(const halo_host_interface_t* host_interface,
                             halo_driver_t** out_driver) noexcept {
  sdk::Host host(host_interface);
  return sdk::guard(host, [&] {
    *out_driver = host.make<Driver>(host, describe_device())->handle();
  });
}

}  // namespace halo::cpu
