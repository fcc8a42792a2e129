// What the benchmarks that pair devices of several plugins read of each
// device, through the public API: its capabilities, its info and its native
// API's name. A failed query aborts, naming the program: a benchmark's
// set-up has no way on without it.
#ifndef HALO_BENCH_DEVICE_FACTS_HPP_
#define HALO_BENCH_DEVICE_FACTS_HPP_

#include <errno.h>

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "halo/halo.h"

namespace halo::bench {

inline void check_query(halo_status_t status, const char* what) {
  if (status == HALO_OK) return;
  std::fprintf(stderr, "%s: %s: %s\n", program_invocation_short_name, what,
               halo_status_message(status));
  std::abort();
}

inline halo_device_capabilities_t capabilities_of(halo_device_t* device) {
  halo_device_capabilities_t caps{};
  caps.struct_size = sizeof(caps);
  check_query(halo_device_query_capabilities(device, &caps), "capabilities");
  return caps;
}

inline halo_device_info_t info_of(halo_device_t* device) {
  halo_device_info_t info{};
  info.struct_size = sizeof(info);
  check_query(halo_device_query_info(device, &info), "device info");
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

}  // namespace halo::bench

#endif  // HALO_BENCH_DEVICE_FACTS_HPP_
