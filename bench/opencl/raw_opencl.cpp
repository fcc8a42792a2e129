// Finding the halo device's cl_device_id and opening a context on it (see
// raw_opencl.hpp).
#include "raw_opencl.hpp"

#include <CL/cl_ext.h>

#include <cstdlib>
#include <cstring>
#include <vector>

#include "checks.hpp"

namespace halo::bench {
namespace {

// "|call| failed: NAME (code)", for the open errors.
std::string failure(const char* call, cl_int code) {
  return std::string(call) + " failed: " + cl_error_name(code) + " (" +
         std::to_string(code) + ")";
}

// One OpenCL device, with its place in the order the plugin numbers them:
// platforms as clGetPlatformIDs lists them, each one's devices in
// clGetDeviceIDs(CL_DEVICE_TYPE_ALL) order.
struct Candidate {
  cl_platform_id platform = nullptr;
  cl_device_id device = nullptr;
  uint64_t flat_index = 0;
};

// Reads a string property, truncated to |capacity| - 1 characters as the
// plugin stores it in the fixed-size fields of halo_device_info_t.
std::string device_text(cl_device_id device, cl_device_info what,
                        size_t capacity) {
  size_t size = 0;
  if (clGetDeviceInfo(device, what, 0, nullptr, &size) != CL_SUCCESS) return {};
  std::vector<char> text(size + 1, '\0');
  if (clGetDeviceInfo(device, what, size, text.data(), nullptr) != CL_SUCCESS) {
    return {};
  }
  std::string value(text.data());
  if (value.size() >= capacity) value.resize(capacity - 1);
  return value;
}

std::string platform_name(cl_platform_id platform) {
  char name[256] = {};
  clGetPlatformInfo(platform, CL_PLATFORM_NAME, sizeof(name) - 1, name,
                    nullptr);
  return name;
}

// True when |device| is the one |info| describes: the same name, vendor and
// driver version, and the same UUID where the plugin read one.
bool matches(cl_device_id device, const halo_device_info_t& info) {
  if (device_text(device, CL_DEVICE_NAME, sizeof(info.name)) != info.name ||
      device_text(device, CL_DEVICE_VENDOR, sizeof(info.vendor)) !=
          info.vendor ||
      device_text(device, CL_DRIVER_VERSION, sizeof(info.driver_version)) !=
          info.driver_version) {
    return false;
  }
  static constexpr uint8_t kNoUuid[sizeof(info.uuid)] = {};
  if (std::memcmp(info.uuid, kNoUuid, sizeof(info.uuid)) == 0) return true;
  uint8_t uuid[CL_UUID_SIZE_KHR] = {};
  if (clGetDeviceInfo(device, CL_DEVICE_UUID_KHR, sizeof(uuid), uuid,
                      nullptr) != CL_SUCCESS) {
    return false;
  }
  return std::memcmp(uuid, info.uuid, sizeof(info.uuid)) == 0;
}

// Every device of every platform that matches |info|.
std::vector<Candidate> matching_devices(const halo_device_info_t& info) {
  std::vector<Candidate> found;
  cl_uint platform_count = 0;
  if (clGetPlatformIDs(0, nullptr, &platform_count) != CL_SUCCESS) return found;
  std::vector<cl_platform_id> platforms(platform_count);
  if (clGetPlatformIDs(platform_count, platforms.data(), nullptr) !=
      CL_SUCCESS) {
    return found;
  }
  uint64_t flat_index = 0;
  for (cl_platform_id platform : platforms) {
    cl_uint count = 0;
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, 0, nullptr, &count) !=
        CL_SUCCESS) {
      continue;  // CL_DEVICE_NOT_FOUND: a platform without devices.
    }
    std::vector<cl_device_id> devices(count);
    if (clGetDeviceIDs(platform, CL_DEVICE_TYPE_ALL, count, devices.data(),
                       nullptr) != CL_SUCCESS) {
      continue;
    }
    for (cl_device_id device : devices) {
      if (matches(device, info)) found.push_back({platform, device, flat_index});
      ++flat_index;
    }
  }
  return found;
}

}  // namespace

RawOpenCl::~RawOpenCl() {
  if (queue_ != nullptr) {
    clFinish(queue_);
    clReleaseCommandQueue(queue_);
  }
  if (context_ != nullptr) clReleaseContext(context_);
}

bool RawOpenCl::open(const halo_device_info_t& halo_info, std::string* error) {
  if (!find_device(halo_info, error)) return false;
  cl_context_properties properties[] = {
      CL_CONTEXT_PLATFORM, reinterpret_cast<cl_context_properties>(platform_),
      0};
  cl_int code = CL_SUCCESS;
  context_ = clCreateContext(properties, 1, &device_, nullptr, nullptr, &code);
  if (code != CL_SUCCESS) {
    *error = failure("clCreateContext", code);
    return false;
  }
  return create_queue(error);
}

bool RawOpenCl::find_device(const halo_device_info_t& halo_info,
                            std::string* error) {
  const std::vector<Candidate> found = matching_devices(halo_info);
  const Candidate* chosen = found.size() == 1 ? &found[0] : nullptr;
  // Two devices alike in name, vendor and driver (and without a UUID to
  // tell them apart) are told apart by the plugin's numbering, which its
  // device ids follow.
  for (const Candidate& candidate : found) {
    if (found.size() > 1 && candidate.flat_index == halo_info.device_id) {
      chosen = &candidate;
    }
  }
  if (chosen == nullptr) {
    *error = std::to_string(found.size()) +
             " OpenCL devices match the halo device '" + halo_info.name +
             "' (vendor '" + halo_info.vendor + "', driver '" +
             halo_info.driver_version + "'); expected exactly one";
    return false;
  }
  platform_ = chosen->platform;
  device_ = chosen->device;
  description_ = platform_name(platform_) + ": " + halo_info.name;
  return true;
}

bool RawOpenCl::create_queue(std::string* error) {
  cl_command_queue_properties supported = 0;
  cl_int code = clGetDeviceInfo(device_, CL_DEVICE_QUEUE_PROPERTIES,
                                sizeof(supported), &supported, nullptr);
  if (code != CL_SUCCESS) {
    *error = failure("clGetDeviceInfo(CL_DEVICE_QUEUE_PROPERTIES)", code);
    return false;
  }
  const char* in_order = std::getenv("HALO_OPENCL_IN_ORDER");
  out_of_order_ = (supported & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0 &&
                  !(in_order != nullptr && std::strcmp(in_order, "1") == 0);
  const cl_command_queue_properties properties =
      out_of_order_ ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0;
  // clCreateCommandQueue serves devices of every OpenCL version; from 2.0
  // on it makes the same queue as clCreateCommandQueueWithProperties, which
  // the plugin calls there.
  queue_ = clCreateCommandQueue(context_, device_, properties, &code);
  if (code != CL_SUCCESS) {
    *error = failure("clCreateCommandQueue", code);
    return false;
  }
  return true;
}

}  // namespace halo::bench
