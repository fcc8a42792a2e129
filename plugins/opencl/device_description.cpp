// Reading an OpenCL device's properties into halo's info and capabilities.
#include "device_description.hpp"

#include <CL/cl_ext.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "cl_status.hpp"
#include "dispatch_grid.hpp"
#include "executable.hpp"

namespace halo::cl {
namespace {

// Reads a string property into |out| (always NUL-terminated, truncated to
// |capacity|; a value longer than the stack buffer is read through the host
// allocator).
halo_status_t query_text(sdk::Host host, const Api& api, cl_device_id device,
                         cl_device_info what, const char* what_name,
                         char* out, size_t capacity) {
  char call[96];
  std::snprintf(call, sizeof(call), "clGetDeviceInfo(%s)", what_name);
  char buffer[1024] = {};
  size_t size = 0;
  cl_int code = api.clGetDeviceInfo(device, what, 0, nullptr, &size);
  if (code != CL_SUCCESS) return cl_status(host, call, code);
  char* text = buffer;
  if (size > sizeof(buffer)) {
    text = static_cast<char*>(host.allocate(size, 1));
    if (text == nullptr) {
      return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                              "%s: out of memory for %zu bytes", call, size);
    }
  }
  code = api.clGetDeviceInfo(device, what, size, text, nullptr);
  if (code == CL_SUCCESS) {
    std::snprintf(out, capacity, "%.*s", static_cast<int>(size), text);
  }
  if (text != buffer) host.deallocate(text);
  return cl_status(host, call, code);
}

// Reads a fixed-size property.
template <class T>
halo_status_t query_value(sdk::Host host, const Api& api, cl_device_id device,
                          cl_device_info what, const char* what_name, T* out) {
  cl_int code = api.clGetDeviceInfo(device, what, sizeof(T), out, nullptr);
  if (code == CL_SUCCESS) return HALO_OK;
  char call[96];
  std::snprintf(call, sizeof(call), "clGetDeviceInfo(%s)", what_name);
  return cl_status(host, call, code);
}

#define HALO_CL_QUERY_TEXT_(what, out) \
  HALO_SDK_RETURN_IF_ERROR(            \
      query_text(host, api, device, what, #what, out, sizeof(out)))
#define HALO_CL_QUERY_VALUE_(what, out) \
  HALO_SDK_RETURN_IF_ERROR(query_value(host, api, device, what, #what, out))

halo_device_type_t halo_type(cl_device_type type, bool unified_memory) {
  if (type & CL_DEVICE_TYPE_GPU) {
    return unified_memory ? HALO_DEVICE_TYPE_GPU_INTEGRATED
                          : HALO_DEVICE_TYPE_GPU_DISCRETE;
  }
  if (type & CL_DEVICE_TYPE_CPU) return HALO_DEVICE_TYPE_CPU;
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return HALO_DEVICE_TYPE_ACCELERATOR;
  return HALO_DEVICE_TYPE_OTHER;
}

// How long the completion worker polls (DeviceDescription::completion_poll).
// A GPU finishes short work within microseconds, and its driver may deliver
// CL_COMPLETE callbacks much later (milliseconds on NVIDIA's), so polling
// first pays there; a CPU implementation runs the work on the very cores a
// polling worker would take from it.
std::chrono::microseconds completion_poll(cl_device_type type) {
  const char* forced = secure_getenv("HALO_OPENCL_COMPLETION_POLL_US");
  if (forced != nullptr && *forced != '\0') {
    char* end = nullptr;
    const unsigned long value = std::strtoul(forced, &end, 10);
    if (*end == '\0' && value <= 1000000) {
      return std::chrono::microseconds(value);
    }
  }
  return std::chrono::microseconds((type & CL_DEVICE_TYPE_GPU) ? 50 : 0);
}

// Parses "OpenCL <major>.<minor> ..." (CL_DEVICE_VERSION's fixed prefix).
void parse_version(const char* text, DeviceDescription* out) {
  unsigned major = 0, minor = 0;
  if (std::sscanf(text, "OpenCL %u.%u", &major, &minor) == 2) {
    out->version_major = major;
    out->version_minor = minor;
  }
}

// Returns true when the space-separated |list| contains |word|.
bool has_word(const char* list, const char* word) {
  size_t length = std::strlen(word);
  for (const char* at = std::strstr(list, word); at != nullptr;
       at = std::strstr(at + 1, word)) {
    bool starts = at == list || at[-1] == ' ';
    bool ends = at[length] == '\0' || at[length] == ' ';
    if (starts && ends) return true;
  }
  return false;
}

// Fills |out|'s acquire_external and release_external when |device| lists
// CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR among its memory import types and
// its platform has both entry points (and the loader
// clCreateBufferWithProperties); leaves them NULL otherwise.
void find_opaque_fd_import(const Api& api, cl_device_id device,
                           DeviceDescription* out) {
  if (api.clCreateBufferWithProperties == nullptr ||
      api.clGetExtensionFunctionAddressForPlatform == nullptr) {
    return;
  }
  size_t size = 0;
  if (api.clGetDeviceInfo(device,
                          CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR, 0,
                          nullptr, &size) != CL_SUCCESS) {
    return;
  }
  // A few types in practice; a device listing more is offered no import.
  cl_external_memory_handle_type_khr types[32] = {};
  size = std::min(size, sizeof(types));
  if (api.clGetDeviceInfo(device,
                          CL_DEVICE_EXTERNAL_MEMORY_IMPORT_HANDLE_TYPES_KHR,
                          size, types, nullptr) != CL_SUCCESS) {
    return;
  }
  bool opaque_fd = false;
  for (size_t i = 0; i < size / sizeof(types[0]); ++i) {
    opaque_fd |= types[i] == CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR;
  }
  if (!opaque_fd) return;
  auto acquire = reinterpret_cast<clEnqueueAcquireExternalMemObjectsKHR_fn>(
      api.clGetExtensionFunctionAddressForPlatform(
          out->platform, "clEnqueueAcquireExternalMemObjectsKHR"));
  auto release = reinterpret_cast<clEnqueueReleaseExternalMemObjectsKHR_fn>(
      api.clGetExtensionFunctionAddressForPlatform(
          out->platform, "clEnqueueReleaseExternalMemObjectsKHR"));
  if (acquire == nullptr || release == nullptr) return;
  out->acquire_external = acquire;
  out->release_external = release;
}

halo_status_t describe_info(sdk::Host host, const Api& api,
                            cl_device_id device, DeviceDescription* out) {
  halo_device_info_t& info = out->info;
  info.struct_size = sizeof(info);
  HALO_CL_QUERY_TEXT_(CL_DEVICE_NAME, info.name);
  HALO_CL_QUERY_TEXT_(CL_DEVICE_VENDOR, info.vendor);
  HALO_CL_QUERY_TEXT_(CL_DRIVER_VERSION, info.driver_version);
  cl_uint vendor_id = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_VENDOR_ID, &vendor_id);
  info.vendor_id = vendor_id;
  cl_device_type type = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_TYPE, &type);
  cl_bool unified = CL_FALSE;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_HOST_UNIFIED_MEMORY, &unified);
  out->unified_memory = unified == CL_TRUE;
  info.type = halo_type(type, out->unified_memory);
  out->completion_poll = completion_poll(type);
  char extensions[8192] = {};
  HALO_CL_QUERY_TEXT_(CL_DEVICE_EXTENSIONS, extensions);
  out->khr_semaphore = has_word(extensions, "cl_khr_semaphore");
  if (has_word(extensions, "cl_khr_device_uuid")) {
    HALO_CL_QUERY_VALUE_(CL_DEVICE_UUID_KHR, &info.uuid);
  }
  char version[256] = {};
  HALO_CL_QUERY_TEXT_(CL_DEVICE_VERSION, version);
  parse_version(version, out);
  // clCreateBufferWithProperties, which the import needs, is OpenCL 3.0's.
  if (out->at_least(3, 0) &&
      has_word(extensions, "cl_khr_external_memory_opaque_fd")) {
    find_opaque_fd_import(api, device, out);
  }
  // "OpenCL <major>.<minor> <vendor text>" is the native API as the device
  // names it.
  std::snprintf(info.native_api, sizeof(info.native_api), "%s", version);
  cl_uint compute_units = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_MAX_COMPUTE_UNITS, &compute_units);
  info.compute_units = compute_units > 0 ? compute_units : 1;
  return HALO_OK;
}

// Clamps a size_t limit to the uint32_t of halo's capabilities.
uint32_t clamp_to_u32(size_t value) {
  return value < UINT32_MAX ? static_cast<uint32_t>(value) : UINT32_MAX;
}

// The dispatch limits of ABI 1.2. OpenCL limits no
// dimension's workgroup count, only the plugin's workgroups in all
// (kMaxWorkgroups, dispatch_grid.hpp, which enforces it); constants share
// CL_DEVICE_MAX_PARAMETER_SIZE with the bindings' pointers, so it bounds
// them; entry points take at most kMaxKernelParameters parameters
// (kernel_layout.cpp).
halo_status_t describe_limits(sdk::Host host, const Api& api,
                              cl_device_id device,
                              halo_device_capabilities_t& caps) {
  size_t item_sizes[3] = {};
  HALO_CL_QUERY_VALUE_(CL_DEVICE_MAX_WORK_ITEM_SIZES, &item_sizes);
  size_t group_size = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_MAX_WORK_GROUP_SIZE, &group_size);
  size_t parameter_size = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_MAX_PARAMETER_SIZE, &parameter_size);
  for (int d = 0; d < 3; ++d) {
    caps.max_workgroup_size[d] = clamp_to_u32(item_sizes[d]);
    caps.max_workgroup_count[d] = UINT32_MAX;
  }
  caps.max_workgroup_invocations = clamp_to_u32(group_size);
  caps.max_workgroup_count_total = kMaxWorkgroups;
  caps.max_binding_count = kMaxKernelParameters;
  caps.max_constant_size = clamp_to_u32(parameter_size);
  return HALO_OK;
}

// The executable formats and DISPATCH need a way to make programs.
halo_status_t describe_programs(sdk::Host host, const Api& api,
                                cl_device_id device, DeviceDescription* out) {
  cl_bool compiler = CL_FALSE;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_COMPILER_AVAILABLE, &compiler);
  out->compiler = compiler == CL_TRUE;
  if (out->at_least(2, 1) && api.clCreateProgramWithIL != nullptr) {
    char il[512] = {};
    HALO_CL_QUERY_TEXT_(CL_DEVICE_IL_VERSION, il);
    out->spirv_il = std::strstr(il, "SPIR-V") != nullptr;
  }
  char* formats = out->capabilities.executable_formats;
  const size_t capacity = sizeof(out->capabilities.executable_formats);
  std::snprintf(formats, capacity, "%s%s%s",
                out->compiler ? kFormatOpenClC : "",
                out->compiler && out->spirv_il ? "," : "",
                out->spirv_il ? kFormatSpirvKernel : "");
  return HALO_OK;
}

// The external handles of ABI 1.3. A HOST_ALLOCATION is imported as a
// CL_MEM_USE_HOST_PTR buffer over the application's memory, and halo
// promises more than OpenCL does there: that the buffer is that memory, so
// device writes are in it once the work's signal is reached, without a map,
// and host writes reach work that starts afterwards. With USE_HOST_PTR an
// implementation may instead cache the memory on the device and write it
// back only at a map (reading it only when a command first uses the
// buffer), as a discrete GPU does (NVIDIA's). Only where the device reaches
// host memory itself (CL_DEVICE_HOST_UNIFIED_MEMORY, PoCL's CPU device) is
// the buffer the memory, so only there is the import offered. Pointer and
// size must then be multiples of a page, the unit in which implementations
// pin and map host memory, and of CL_DEVICE_MEM_BASE_ADDR_ALIGN, below which
// an implementation may copy the memory into an aligned buffer of its own.
// An OPAQUE_FD (cl_khr_external_memory_opaque_fd, NVIDIA's OpenCL) is
// imported as a buffer over the other API's device memory, which each
// submission naming it acquires and releases (submission.hpp). Nothing is
// exported, and no semaphore shared: cl_khr_semaphore has binary
// semaphores only, and halo shares timelines.
void describe_external(DeviceDescription* out) {
  halo_device_capabilities_t& caps = out->capabilities;
  caps.buffer_export_types = 0;
  caps.semaphore_export_types = 0;
  caps.semaphore_import_types = 0;
  caps.buffer_import_types = 0;
  caps.host_allocation_alignment = 0;
  // On an in-order queue the acquire and release of such memory would
  // follow every command before them, among them ones behind another
  // submission's gate, in which NVIDIA's driver blocks (submission.hpp).
  if (out->acquire_external != nullptr && out->out_of_order) {
    caps.buffer_import_types |= HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD;
  }
  if (!out->unified_memory) return;
  const long page = sysconf(_SC_PAGESIZE);
  const uint64_t page_size = page > 0 ? static_cast<uint64_t>(page) : 4096;
  caps.buffer_import_types |= HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  caps.host_allocation_alignment =
      std::max(page_size, caps.min_buffer_alignment);
}

halo_status_t describe_capabilities(sdk::Host host, const Api& api,
                                    cl_device_id device,
                                    DeviceDescription* out) {
  halo_device_capabilities_t& caps = out->capabilities;
  caps.struct_size = sizeof(caps);
  caps.queue_count = 1;
  caps.max_semaphore_value_difference = HALO_SEMAPHORE_MAX_VALUE;
  cl_ulong global_memory = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_GLOBAL_MEM_SIZE, &global_memory);
  caps.device_memory_size = global_memory;
  cl_ulong max_alloc = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_MAX_MEM_ALLOC_SIZE, &max_alloc);
  caps.max_buffer_size = max_alloc;
  cl_uint align_bits = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_MEM_BASE_ADDR_ALIGN, &align_bits);
  caps.min_buffer_alignment = align_bits >= 8 ? align_bits / 8 : 1;
  // Host-visible memory is CL_MEM_ALLOC_HOST_PTR memory reached through
  // clEnqueueMapBuffer; on unified memory the mapping is the memory itself,
  // so it is coherent and cached.
  caps.memory_types = HALO_MEMORY_TYPE_DEVICE_LOCAL |
                      HALO_MEMORY_TYPE_HOST_VISIBLE;
  if (out->unified_memory) {
    caps.memory_types |=
        HALO_MEMORY_TYPE_HOST_COHERENT | HALO_MEMORY_TYPE_HOST_CACHED;
  }
  cl_uint address_bits = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_ADDRESS_BITS, &address_bits);
  out->size_max = size_max_for_address_bits(address_bits);
  cl_command_queue_properties properties = 0;
  HALO_CL_QUERY_VALUE_(CL_DEVICE_QUEUE_PROPERTIES, &properties);
  // HALO_OPENCL_IN_ORDER=1 makes in-order queues on any device, to compare
  // the two and to test the plugin on a queue that runs in order.
  const char* in_order = secure_getenv("HALO_OPENCL_IN_ORDER");
  out->out_of_order =
      (properties & CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE) != 0 &&
      !(in_order != nullptr && std::strcmp(in_order, "1") == 0);
  describe_external(out);
  HALO_SDK_RETURN_IF_ERROR(describe_programs(host, api, device, out));
  caps.features = HALO_DEVICE_FEATURE_SEMAPHORES | HALO_DEVICE_FEATURE_QUEUES |
                  HALO_DEVICE_FEATURE_BUFFERS |
                  HALO_DEVICE_FEATURE_COMMAND_BUFFERS |
                  HALO_DEVICE_FEATURE_DEVICE_SEMAPHORE_WAIT;
  if (caps.executable_formats[0] != '\0') {
    caps.features |= HALO_DEVICE_FEATURE_DISPATCH;
    HALO_SDK_RETURN_IF_ERROR(describe_limits(host, api, device, caps));
  }
  return HALO_OK;
}

}  // namespace

halo_status_t describe_device(sdk::Host host, const Api& api,
                              cl_platform_id platform, cl_device_id device,
                              halo_device_id_t id,
                              DeviceDescription* out) noexcept {
  *out = DeviceDescription{};
  out->platform = platform;
  out->device = device;
  HALO_SDK_RETURN_IF_ERROR(describe_info(host, api, device, out));
  out->info.device_id = id;
  return describe_capabilities(host, api, device, out);
}

}  // namespace halo::cl
