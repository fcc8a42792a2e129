// Opens the cpu device through the public API only (registry → device).
#include "bench_device.hpp"

#include <cstdio>
#include <cstdlib>

#ifndef HALO_BENCH_CPU_MANIFEST
#error "HALO_BENCH_CPU_MANIFEST must name the cpu plugin's manifest"
#endif

namespace halo::bench {
namespace {

halo_registry_t* g_registry = nullptr;
halo_device_t* g_device = nullptr;
std::string g_device_name;

// Returns "CODE: message" for |status| and frees it.
std::string describe(halo_status_t status) {
  std::string text = halo_status_code_name(halo_status_code(status));
  text += ": ";
  text += halo_status_message(status);
  halo_status_free(status);
  return text;
}

// Appends why each skipped plugin was skipped to |error|.
void append_skip_reasons(std::string* error) {
  size_t count = 0;
  halo_status_t status = halo_registry_plugin_count(g_registry, &count);
  if (status != HALO_OK) {
    *error += "; plugin_count: " + describe(status);
    return;
  }
  for (size_t i = 0; i < count; ++i) {
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    status = halo_registry_plugin_record(g_registry, i, &record);
    if (status != HALO_OK) {
      halo_status_free(status);
      continue;
    }
    if (record.state == HALO_PLUGIN_STATE_SKIPPED) {
      *error += "; plugin '";
      *error += record.name;
      *error += "' skipped: ";
      *error += record.skip_reason;
    }
  }
}

}  // namespace

bool open_cpu_device(std::string* error) {
  const char* const paths[] = {HALO_BENCH_CPU_MANIFEST};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  halo_status_t status = halo_registry_create(&options, &g_registry);
  if (status != HALO_OK) {
    *error = "halo_registry_create: " + describe(status);
    return false;
  }
  size_t device_count = 0;
  status = halo_registry_device_count(g_registry, &device_count);
  if (status != HALO_OK) {
    *error = "halo_registry_device_count: " + describe(status);
    return false;
  }
  if (device_count == 0) {
    *error = std::string("no device from ") + HALO_BENCH_CPU_MANIFEST;
    append_skip_reasons(error);
    return false;
  }
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  status = halo_registry_device_info(g_registry, 0, &info, nullptr);
  if (status != HALO_OK) {
    *error = "halo_registry_device_info: " + describe(status);
    return false;
  }
  g_device_name = info.name;
  halo_device_params_t params = {};
  params.struct_size = sizeof(params);
  status = halo_registry_create_device(g_registry, 0, &params, &g_device);
  if (status != HALO_OK) {
    *error = "halo_registry_create_device: " + describe(status);
    return false;
  }
  return true;
}

void close_cpu_device() {
  halo_device_release(g_device);
  g_device = nullptr;
  halo_registry_release(g_registry);
  g_registry = nullptr;
}

halo_device_t* cpu_device() { return g_device; }

const std::string& cpu_device_name() { return g_device_name; }

void die(const char* what, halo_status_t status) {
  std::fprintf(stderr, "halo-bench: %s: %s: %s\n", what,
               halo_status_code_name(halo_status_code(status)),
               halo_status_message(status));
  std::fflush(stderr);
  std::abort();
}

Semaphore::Semaphore(uint64_t initial_value, halo_semaphore_flags_t flags) {
  check(halo_semaphore_create(cpu_device(), initial_value, flags, &semaphore_),
        "halo_semaphore_create");
}

Semaphore::~Semaphore() { halo_semaphore_release(semaphore_); }

}  // namespace halo::bench
