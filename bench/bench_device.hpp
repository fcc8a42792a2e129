// The cpu device the benchmarks measure, opened through the public API only.
#ifndef HALO_BENCH_BENCH_DEVICE_HPP_
#define HALO_BENCH_BENCH_DEVICE_HPP_

#include <string>

#include "halo/halo.h"

namespace halo::bench {

// Opens the cpu plugin named by HALO_BENCH_CPU_MANIFEST (and nothing else: no
// default folders, no environment) and creates its first device. Returns false
// and fills |error| when the plugin or the device is not available. Call once,
// before any benchmark runs.
bool open_cpu_device(std::string* error);

// Releases the device and the registry. Accepts being called when
// open_cpu_device failed.
void close_cpu_device();

// Returns the device opened by open_cpu_device (borrowed).
halo_device_t* cpu_device();

// Returns the device's name, for the benchmark context.
const std::string& cpu_device_name();

// Prints |what| and the status, then aborts. Benchmarks are not tests: an
// unexpected status in a timed loop is a broken setup, and a helper thread
// blocked on a semaphore could not be unwound cleanly anyway.
[[noreturn]] void die(const char* what, halo_status_t status);

// Aborts through die() when |status| is not OK.
inline void check(halo_status_t status, const char* what) {
  if (status != HALO_OK) [[unlikely]] {
    die(what, status);
  }
}

// Owns one semaphore of the cpu device.
class Semaphore {
 public:
  explicit Semaphore(uint64_t initial_value,
                     halo_semaphore_flags_t flags = HALO_SEMAPHORE_FLAG_NONE);
  ~Semaphore();
  Semaphore(const Semaphore&) = delete;
  Semaphore& operator=(const Semaphore&) = delete;

  halo_semaphore_t* get() const { return semaphore_; }

 private:
  halo_semaphore_t* semaphore_ = nullptr;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_BENCH_DEVICE_HPP_
