// The raw side: the CUDA driver API on the halo device's CUdevice, in the
// context the plugin uses.
//
// The plugin runs on the device's primary context and a stream made with
// CU_STREAM_NON_BLOCKING. The raw side retains the same primary context
// (both reach one libcuda.so.1 in this process, so it is the very same
// context) and makes a stream of its own with the same flag: the same
// device, the same context, a separate stream, as two libraries of one
// application would.
#ifndef HALO_BENCH_CUDA_RAW_CUDA_HPP_
#define HALO_BENCH_CUDA_RAW_CUDA_HPP_

#include <cuda.h>

#include <string>

#include "halo/halo.h"

namespace halo::bench {

class RawCuda {
 public:
  RawCuda() = default;
  // Waits for the stream, destroys it and releases the primary context.
  ~RawCuda();
  RawCuda(const RawCuda&) = delete;
  RawCuda& operator=(const RawCuda&) = delete;

  // Initialises the driver API (cuInit). Returns false and fills |error|
  // with the driver's reason (no driver, no device, ...) when it fails or
  // lists no device, so that a machine without a GPU gets a message rather
  // than a crash. Call first, once.
  bool init(std::string* error);

  // Finds the CUdevice whose UUID is |halo_info|'s, retains its primary
  // context, makes it current on the calling thread and creates the
  // stream. Returns false and fills |error| when no device matches or a
  // call fails. Call once, after init.
  bool open(const halo_device_info_t& halo_info, std::string* error);

  // Makes the primary context current on the calling thread. Every raw
  // benchmark calls it before its timed loop (the plugin pushes and pops
  // the same context around each of its calls, which leaves it current).
  void make_current() const;

  CUdevice device() const { return device_; }
  CUcontext context() const { return context_; }
  CUstream stream() const { return stream_; }
  // "<device name>, CUDA <driver API version>", for the benchmark context.
  const std::string& description() const { return description_; }
  // How the primary context schedules host threads that wait on the
  // device ("auto", "spin", "yield", "blocking sync"): what an event made
  // without CU_EVENT_BLOCKING_SYNC waits with.
  const std::string& scheduling() const { return scheduling_; }

 private:
  bool find_device(const halo_device_info_t& halo_info, std::string* error);
  void describe_context();

  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  std::string description_;
  std::string scheduling_;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_CUDA_RAW_CUDA_HPP_
