// What the benchmarks that pair devices of several plugins share, through
// the public API: every device of a registry, and each one's capabilities,
// info and native API's name. A failed call aborts, naming the program: a
// benchmark's set-up has no way on without it.
#ifndef HALO_BENCH_DEVICE_FACTS_HPP_
#define HALO_BENCH_DEVICE_FACTS_HPP_

#include <errno.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "halo/halo.h"

namespace halo::bench {

// Aborts, naming the program, |what| and the status, unless |status| is OK.
inline void check_or_die(halo_status_t status, const char* what) {
  if (status == HALO_OK) [[likely]] return;
  std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
               halo_status_message(status));
  std::abort();
}

// A device of every device |registry| lists that can be created (new
// references; the others are skipped).
inline std::vector<halo_device_t*> create_every_device(halo_registry_t* registry) {
  size_t count = 0;
  check_or_die(halo_registry_device_count(registry, &count), "device count");
  std::vector<halo_device_t*> devices;
  for (size_t i = 0; i < count; ++i) {
    halo_device_t* device = nullptr;
    if (halo_status_t status = halo_registry_create_device(registry, i, nullptr, &device)) {
      halo_status_free(status);
      continue;
    }
    devices.push_back(device);
  }
  return devices;
}

inline halo_device_capabilities_t capabilities_of(halo_device_t* device) {
  halo_device_capabilities_t caps{};
  caps.struct_size = sizeof(caps);
  check_or_die(halo_device_query_capabilities(device, &caps), "capabilities");
  return caps;
}

inline halo_device_info_t info_of(halo_device_t* device) {
  halo_device_info_t info{};
  info.struct_size = sizeof(info);
  check_or_die(halo_device_query_info(device, &info), "device info");
  return info;
}

// The native API's name, lower-cased ("vulkan", "opencl", "cuda"; "host"
// for the cpu device), which names the plugin in benchmark names.
inline std::string native_api_name(halo_device_t* device) {
  const halo_device_info_t info = info_of(device);
  std::string api(info.native_api, strnlen(info.native_api, sizeof(info.native_api)));
  api = api.substr(0, api.find(' '));
  for (char& c : api) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return api;
}

// Whether |a| and |b| are devices of one GPU (equal, non-zero uuids), as
// OPAQUE_FD memory and semaphores must be.
inline bool same_gpu(halo_device_t* a, halo_device_t* b) {
  const halo_device_info_t info_a = info_of(a);
  const halo_device_info_t info_b = info_of(b);
  static const uint8_t kNoUuid[sizeof(info_a.uuid)] = {};
  return std::memcmp(info_a.uuid, info_b.uuid, sizeof(kNoUuid)) == 0 &&
         std::memcmp(info_a.uuid, kNoUuid, sizeof(kNoUuid)) != 0;
}

}  // namespace halo::bench

#endif  // HALO_BENCH_DEVICE_FACTS_HPP_
