// The cpu driver's vtable: info, device enumeration and device creation.
#include "driver.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "device.hpp"

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
  return info;
}

void destroy_driver(halo_object_t* object) {
  Driver* driver = reinterpret_cast<Driver*>(object);
  sdk::Host host = driver->host;
  host.destroy(driver);
}

halo_status_t query_info(halo_driver_t* driver, halo_driver_info_t* out_info) {
  sdk::Host host = Driver::cast(driver)->host;
  if (out_info == nullptr || out_info->struct_size < sizeof(uint32_t)) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "out_info is NULL or too small");
  }
  halo_driver_info_t info = {};
  copy_text(info.name, "cpu");
  copy_text(info.version, kVersion);
  copy_text(info.description,
            "Runs work on the host CPU; one worker thread per device queue");
  uint32_t size = std::min<uint32_t>(out_info->struct_size, sizeof(info));
  std::memcpy(out_info, &info, size);
  out_info->struct_size = size;
  return HALO_OK;
}

halo_status_t enumerate_devices(halo_driver_t* driver, size_t capacity,
                                size_t info_stride,
                                halo_device_info_t* out_infos,
                                size_t* out_count) {
  Driver* self = Driver::cast(driver);
  if (out_count == nullptr) {
    return self->host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                       "out_count is NULL");
  }
  *out_count = 1;
  if (capacity == 0 || out_infos == nullptr) return HALO_OK;
  if (info_stride < sizeof(uint32_t)) {
    return self->host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                                  "info_stride %zu is too small", info_stride);
  }
  size_t size = std::min(info_stride, sizeof(halo_device_info_t));
  std::memcpy(out_infos, &self->device_info, size);
  out_infos->struct_size = static_cast<uint32_t>(size);
  return HALO_OK;
}

halo_status_t create_device(halo_driver_t* driver, halo_device_id_t device_id,
                            const halo_device_params_t*,
                            halo_device_t** out_device) {
  Driver* self = Driver::cast(driver);
  if (out_device == nullptr) {
    return self->host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                       "out_device is NULL");
  }
  *out_device = nullptr;
  if (device_id != kDeviceId) {
    return self->host.make_status(
        HALO_STATUS_NOT_FOUND, "the cpu driver has no device with id %llu",
        static_cast<unsigned long long>(device_id));
  }
  return Device::create(self->host, driver, self->device_info, out_device);
}

const halo_driver_vtable_t kDriverVtable = {
    {sizeof(halo_driver_vtable_t), HALO_OBJECT_TYPE_DRIVER, &destroy_driver},
    &query_info,
    &enumerate_devices,
    &create_device,
};

}  // namespace

Driver::Driver(sdk::Host host, const halo_device_info_t& device_info) noexcept
    : header(HALO_OBJECT_HEADER_INIT(&kDriverVtable)),
      host(host),
      device_info(device_info) {}

halo_status_t Driver::create(const halo_host_interface_t* host_interface,
                             halo_driver_t** out_driver) noexcept {
  sdk::Host host(host_interface);
  if (out_driver == nullptr) {
    return host.make_status_text(HALO_STATUS_INVALID_ARGUMENT,
                                 "out_driver is NULL");
  }
  *out_driver = nullptr;
  return sdk::guard(host, [&] {
    *out_driver = host.make<Driver>(host, describe_device())->handle();
  });
}

}  // namespace halo::cpu
