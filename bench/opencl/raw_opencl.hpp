// The raw side: plain OpenCL on the same cl_device_id as the halo device.
//
// halo gives no access to the plugin's cl_context, so the raw side creates
// its own context and queue on that device: the same device, a separate
// context. Both sides reach the implementation through the one ICD loader
// of the process (the plugin opens libOpenCL.so.1 with dlopen, this binary
// links it), so the platform and device handles are the same objects.
#ifndef HALO_BENCH_OPENCL_RAW_OPENCL_HPP_
#define HALO_BENCH_OPENCL_RAW_OPENCL_HPP_

#include <CL/cl.h>

#include <string>

#include "halo/halo.h"

namespace halo::bench {

class RawOpenCl {
 public:
  RawOpenCl() = default;
  // Releases the queue and the context.
  ~RawOpenCl();
  RawOpenCl(const RawOpenCl&) = delete;
  RawOpenCl& operator=(const RawOpenCl&) = delete;

  // Finds the OpenCL device that |halo_info| describes and creates a
  // context and a queue on it: out-of-order where CL_DEVICE_QUEUE_PROPERTIES
  // allows, as the plugin's execution queue is (and in order, like the
  // plugin's, when HALO_OPENCL_IN_ORDER=1). Returns false and fills |error|
  // when no device or more than one matches, or a call fails. Call once.
  bool open(const halo_device_info_t& halo_info, std::string* error);

  cl_device_id device() const { return device_; }
  cl_context context() const { return context_; }
  cl_command_queue queue() const { return queue_; }
  bool out_of_order() const { return out_of_order_; }
  // "<platform name>: <device name>", for the benchmark context.
  const std::string& description() const { return description_; }

 private:
  bool find_device(const halo_device_info_t& halo_info, std::string* error);
  bool create_queue(std::string* error);

  cl_platform_id platform_ = nullptr;
  cl_device_id device_ = nullptr;
  cl_context context_ = nullptr;
  cl_command_queue queue_ = nullptr;
  bool out_of_order_ = false;
  std::string description_;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_RAW_OPENCL_HPP_
