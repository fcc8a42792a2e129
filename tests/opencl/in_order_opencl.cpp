// An OpenCL library for the tests that behaves like an implementation whose
// out-of-order command queues run their commands in order.
//
// The OpenCL specification lets a queue created with
// CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE run commands out of order; it
// never promises that a later command runs while an earlier one waits, so
// an implementation may run such a queue in order. The opencl plugin reads
// its entry points from this library (HALO_OPENCL_LIBRARY) like from the ICD
// loader: the library links the real loader, so dlsym finds every other
// entry point there, and only the two queue constructors are its own. They
// create in-order queues whatever the properties ask, while the device
// still reports out-of-order support, which is how such an implementation
// looks to the plugin.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#ifndef CL_USE_DEPRECATED_OPENCL_1_2_APIS
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#endif
#include <CL/cl.h>

#include <cstddef>

#include "loader_entry.hpp"

namespace {

using halo_opencl_test::loader_entry;

// The most properties (name and value pairs) a queue may be given here.
constexpr size_t kMaxProperties = 16;
constexpr cl_bitfield kOutOfOrder = CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE;

cl_command_queue refuse(cl_int* errcode_ret) {
  if (errcode_ret != nullptr) *errcode_ret = CL_OUT_OF_RESOURCES;
  return nullptr;
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) cl_command_queue CL_API_CALL
clCreateCommandQueue(cl_context context, cl_device_id device,
                     cl_command_queue_properties properties,
                     cl_int* errcode_ret) {
  auto create = loader_entry<decltype(&clCreateCommandQueue)>("clCreateCommandQueue");
  if (create == nullptr) return refuse(errcode_ret);
  return create(context, device, properties & ~kOutOfOrder, errcode_ret);
}

__attribute__((visibility("default"))) cl_command_queue CL_API_CALL
clCreateCommandQueueWithProperties(cl_context context, cl_device_id device,
                                   const cl_queue_properties* properties,
                                   cl_int* errcode_ret) {
  auto create = loader_entry<decltype(&clCreateCommandQueueWithProperties)>(
      "clCreateCommandQueueWithProperties");
  if (create == nullptr) return refuse(errcode_ret);
  // The same list, with the out-of-order bit of CL_QUEUE_PROPERTIES clear.
  cl_queue_properties in_order[2 * kMaxProperties + 1] = {};
  for (size_t i = 0; properties != nullptr && properties[i] != 0; i += 2) {
    if (i + 2 >= 2 * kMaxProperties) return refuse(errcode_ret);
    in_order[i] = properties[i];
    in_order[i + 1] = properties[i] == CL_QUEUE_PROPERTIES
                          ? properties[i + 1] & ~kOutOfOrder
                          : properties[i + 1];
  }
  return create(context, device, in_order, errcode_ret);
}

}  // extern "C"
