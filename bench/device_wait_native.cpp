// halo-bench-device-wait's native side: the same three hops written by hand
// against Vulkan and the CUDA driver API on one GPU, so that each halo
// figure has the native one beside it in the same run.
//   Vulkan:  an empty submission signals the exported timeline A = i
//   CUDA:    device: cuWaitExternalSemaphoresAsync(A = i) on the stream;
//            host:   vkWaitSemaphores(A = i), then the stream's work
//   Vulkan:  an empty submission signals C = i; the host waits for it.
//            host: after an event on the stream, which the host
//            synchronises on;
//            device (the *_signal variants): CUDA signals the exported
//            timeline B = i on the stream (cuSignalExternalSemaphoresAsync)
//            and the submission waits for B = i on the GPU.
// halo's CUDA → Vulkan hop goes through the host; the *_signal variants
// measure what a device-side hop that way would be worth.
#include "device_wait_native.hpp"

#include <cuda.h>
#include <unistd.h>
#include <vulkan/vulkan.h>

#include <cstring>
#include <string>
#include <vector>

#include "cuda_library.hpp"

namespace halo::bench {
namespace {

struct Native {
  VkInstance instance = VK_NULL_HANDLE;
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VkDevice device = VK_NULL_HANDLE;
  VkQueue queue = VK_NULL_HANDLE;
  VkSemaphore a = VK_NULL_HANDLE;  // Exported to CUDA, which waits on it.
  VkSemaphore b = VK_NULL_HANDLE;  // Exported to CUDA, which signals it.
  VkSemaphore c = VK_NULL_HANDLE;
  PFN_vkGetSemaphoreFdKHR get_semaphore_fd = nullptr;
  CUcontext context = nullptr;
  CUstream stream = nullptr;
  CUevent done = nullptr;
  CUexternalSemaphore imported_a = nullptr;
  CUexternalSemaphore imported_b = nullptr;
  uint64_t value = 0;
};

Native g_native;
// libcuda's entry points, loaded at run time as the cuda plugin loads them,
// so that the benchmark also starts where no NVIDIA driver is.
const halo::cuda::Api* g_cuda = nullptr;

std::string vk_failed(const char* call, VkResult result) {
  return std::string(call) + " returned " + std::to_string(result);
}

std::string cu_failed(const char* call, CUresult result) {
  const char* name = nullptr;
  g_cuda->cuGetErrorName(result, &name);
  return std::string(call) + " returned " + (name != nullptr ? name : "?");
}

VkSemaphore timeline(bool exportable, std::string* error) {
  VkExportSemaphoreCreateInfo export_info = {};
  export_info.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO;
  export_info.handleTypes = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  VkSemaphoreTypeCreateInfo type = {};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.pNext = exportable ? &export_info : nullptr;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  VkSemaphoreCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  VkSemaphore semaphore = VK_NULL_HANDLE;
  VkResult result = vkCreateSemaphore(g_native.device, &info, nullptr, &semaphore);
  if (result != VK_SUCCESS) *error = vk_failed("vkCreateSemaphore", result);
  return semaphore;
}

bool create_vulkan(const uint8_t uuid[16], std::string* error) {
  VkApplicationInfo application = {};
  application.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
  application.pApplicationName = "halo-bench-device-wait";
  application.apiVersion = VK_API_VERSION_1_2;
  VkInstanceCreateInfo instance_info = {};
  instance_info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
  instance_info.pApplicationInfo = &application;
  VkResult result = vkCreateInstance(&instance_info, nullptr, &g_native.instance);
  if (result != VK_SUCCESS) {
    *error = vk_failed("vkCreateInstance", result);
    return false;
  }
  uint32_t count = 0;
  vkEnumeratePhysicalDevices(g_native.instance, &count, nullptr);
  std::vector<VkPhysicalDevice> physicals(count);
  vkEnumeratePhysicalDevices(g_native.instance, &count, physicals.data());
  for (VkPhysicalDevice physical : physicals) {
    VkPhysicalDeviceIDProperties ids = {};
    ids.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
    VkPhysicalDeviceProperties2 properties = {};
    properties.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    properties.pNext = &ids;
    vkGetPhysicalDeviceProperties2(physical, &properties);
    if (std::memcmp(ids.deviceUUID, uuid, VK_UUID_SIZE) == 0) g_native.physical = physical;
  }
  if (g_native.physical == VK_NULL_HANDLE) {
    *error = "no Vulkan device has the CUDA device's uuid";
    return false;
  }
  uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(g_native.physical, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(g_native.physical, &family_count, families.data());
  uint32_t family = family_count;
  for (uint32_t i = 0; i < family_count && family == family_count; ++i) {
    if (families[i].queueFlags & VK_QUEUE_COMPUTE_BIT) family = i;
  }
  const float priority = 1.0f;
  VkDeviceQueueCreateInfo queue = {};
  queue.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
  queue.queueFamilyIndex = family;
  queue.queueCount = 1;
  queue.pQueuePriorities = &priority;
  VkPhysicalDeviceVulkan12Features features = {};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES;
  features.timelineSemaphore = VK_TRUE;
  const char* extensions[] = {VK_KHR_EXTERNAL_SEMAPHORE_FD_EXTENSION_NAME};
  VkDeviceCreateInfo device_info = {};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = &features;
  device_info.queueCreateInfoCount = 1;
  device_info.pQueueCreateInfos = &queue;
  device_info.enabledExtensionCount = 1;
  device_info.ppEnabledExtensionNames = extensions;
  result = vkCreateDevice(g_native.physical, &device_info, nullptr, &g_native.device);
  if (result != VK_SUCCESS) {
    *error = vk_failed("vkCreateDevice", result);
    return false;
  }
  vkGetDeviceQueue(g_native.device, family, 0, &g_native.queue);
  g_native.get_semaphore_fd = reinterpret_cast<PFN_vkGetSemaphoreFdKHR>(
      vkGetDeviceProcAddr(g_native.device, "vkGetSemaphoreFdKHR"));
  g_native.a = timeline(/*exportable=*/true, error);
  if (g_native.a == VK_NULL_HANDLE) return false;
  g_native.b = timeline(/*exportable=*/true, error);
  if (g_native.b == VK_NULL_HANDLE) return false;
  g_native.c = timeline(/*exportable=*/false, error);
  return g_native.c != VK_NULL_HANDLE;
}

// Exports |semaphore| as an opaque fd and imports it into CUDA.
bool import_into_cuda(VkSemaphore semaphore, CUexternalSemaphore* out, std::string* error) {
  VkSemaphoreGetFdInfoKHR fd_info = {};
  fd_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR;
  fd_info.semaphore = semaphore;
  fd_info.handleType = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;
  int fd = -1;
  VkResult exported = g_native.get_semaphore_fd(g_native.device, &fd_info, &fd);
  if (exported != VK_SUCCESS) {
    *error = vk_failed("vkGetSemaphoreFdKHR", exported);
    return false;
  }
  CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC description = {};
  description.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_TIMELINE_SEMAPHORE_FD;
  description.handle.fd = fd;
  const CUresult result = g_cuda->cuImportExternalSemaphore(out, &description);
  if (result != CUDA_SUCCESS) {
    close(fd);  // CUDA owns the fd only once the import succeeded.
    *error = cu_failed("cuImportExternalSemaphore", result);
    return false;
  }
  return true;
}

bool create_cuda(CUdevice device, std::string* error) {
  CUresult result = g_cuda->cuDevicePrimaryCtxRetain(&g_native.context, device);
  if (result == CUDA_SUCCESS) result = g_cuda->cuCtxPushCurrent(g_native.context);
  if (result == CUDA_SUCCESS) {
    result = g_cuda->cuStreamCreate(&g_native.stream, CU_STREAM_NON_BLOCKING);
  }
  if (result == CUDA_SUCCESS) {
    result = g_cuda->cuEventCreate(&g_native.done, CU_EVENT_DISABLE_TIMING);
  }
  if (result != CUDA_SUCCESS) {
    *error = cu_failed("CUDA set-up", result);
    return false;
  }
  return import_into_cuda(g_native.a, &g_native.imported_a, error) &&
         import_into_cuda(g_native.b, &g_native.imported_b, error);
}

// An empty submission that signals |semaphore| = |value|, after waiting on
// the GPU for |wait| = |value| where |wait| is not null.
void signal_on_queue(VkSemaphore semaphore, uint64_t value, VkSemaphore wait = VK_NULL_HANDLE) {
  VkTimelineSemaphoreSubmitInfo timeline_info = {};
  timeline_info.sType = VK_STRUCTURE_TYPE_TIMELINE_SEMAPHORE_SUBMIT_INFO;
  timeline_info.signalSemaphoreValueCount = 1;
  timeline_info.pSignalSemaphoreValues = &value;
  const VkPipelineStageFlags stage = VK_PIPELINE_STAGE_ALL_COMMANDS_BIT;
  VkSubmitInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  info.pNext = &timeline_info;
  info.signalSemaphoreCount = 1;
  info.pSignalSemaphores = &semaphore;
  if (wait != VK_NULL_HANDLE) {
    timeline_info.waitSemaphoreValueCount = 1;
    timeline_info.pWaitSemaphoreValues = &value;
    info.waitSemaphoreCount = 1;
    info.pWaitSemaphores = &wait;
    info.pWaitDstStageMask = &stage;
  }
  vkQueueSubmit(g_native.queue, 1, &info, VK_NULL_HANDLE);
}

void host_wait(VkSemaphore semaphore, uint64_t value) {
  VkSemaphoreWaitInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO;
  info.semaphoreCount = 1;
  info.pSemaphores = &semaphore;
  info.pValues = &value;
  vkWaitSemaphores(g_native.device, &info, UINT64_MAX);
}

// Which hops the GPU takes by itself; the host carries the others.
struct Hops {
  bool wait_on_device;    // Vulkan → CUDA
  bool signal_on_device;  // CUDA → Vulkan
  const char* name;
};

constexpr Hops kHops[] = {
    {true, false, "device"},
    {false, false, "host"},
    {false, true, "host_device_signal"},
    {true, true, "device_device_signal"},
};

void native_three_hops(benchmark::State& state, const Hops& hops) {
  for (auto _ : state) {
    const uint64_t value = ++g_native.value;
    signal_on_queue(g_native.a, value);
    if (hops.wait_on_device) {
      CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS params = {};
      params.params.fence.value = value;
      g_cuda->cuWaitExternalSemaphoresAsync(&g_native.imported_a, &params, 1, g_native.stream);
    } else {
      host_wait(g_native.a, value);
    }
    if (hops.signal_on_device) {
      CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS params = {};
      params.params.fence.value = value;
      g_cuda->cuSignalExternalSemaphoresAsync(&g_native.imported_b, &params, 1, g_native.stream);
      signal_on_queue(g_native.c, value, g_native.b);
    } else {
      g_cuda->cuEventRecord(g_native.done, g_native.stream);
      g_cuda->cuEventSynchronize(g_native.done);
      signal_on_queue(g_native.c, value);
    }
    host_wait(g_native.c, value);
  }
}

}  // namespace

void register_native_three_hops(const uint8_t uuid[16], const std::string& name) {
  std::string error;
  CUdevice cuda_device = 0;
  int count = 0;
  bool found = false;
  const char* reason = nullptr;
  g_cuda = halo::cuda::load_api(&reason);  // cuInit included.
  if (g_cuda == nullptr) error = reason;
  if (g_cuda != nullptr && g_cuda->cuDeviceGetCount(&count) == CUDA_SUCCESS) {
    for (int i = 0; i < count && !found; ++i) {
      CUuuid cuda_uuid;
      if (g_cuda->cuDeviceGet(&cuda_device, i) != CUDA_SUCCESS ||
          g_cuda->cuDeviceGetUuid(&cuda_uuid, cuda_device) != CUDA_SUCCESS) {
        continue;
      }
      found = std::memcmp(cuda_uuid.bytes, uuid, 16) == 0;
    }
  }
  if (error.empty() && !found) error = "no CUDA device has the pair's uuid";
  if (error.empty() && create_vulkan(uuid, &error)) create_cuda(cuda_device, &error);
  for (const Hops& hops : kHops) {
    const std::string benchmark_name =
        "BM_ThreeHops/" + name + "/chain_1/" + hops.name + "/native";
    benchmark::RegisterBenchmark(benchmark_name.c_str(), [error, &hops](benchmark::State& state) {
      if (!error.empty()) {
        state.SkipWithError(error.c_str());
        return;
      }
      native_three_hops(state, hops);
    })->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

}  // namespace halo::bench
