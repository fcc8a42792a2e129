// The plumbing every Vulkan layer of the tests shares: it links
// vkCreateInstance and vkCreateDevice to the next layer, keeps the next
// layer's vkGetInstanceProcAddr and vkGetDeviceProcAddr per instance and
// per device (keyed by the loader's dispatch table pointer, the first word
// of every dispatchable handle, which an instance shares with its physical
// devices), answers the loader's interface negotiation, and hands out the
// layer's own entry points wherever it names one. A layer's source defines
// the two override tables below and calls next_*_proc to pass a call on.
#ifndef HALO_TESTS_VULKAN_TEST_LAYER_HPP_
#define HALO_TESTS_VULKAN_TEST_LAYER_HPP_

#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <cstddef>

namespace halo_test_layer {

// One entry point the layer implements itself.
struct Override {
  const char* name;
  PFN_vkVoidFunction function;
};

// Defined by each layer: its own instance-level (including physical-device)
// and device-level entry points. Each table ends with {nullptr, nullptr}.
// An entry with a NULL function overrides nothing: it names a call the
// layer makes itself, so that next_*_proc finds it.
extern const Override kInstanceOverrides[];
extern const Override kDeviceOverrides[];

// The next layer's entry point |name| for the instance or physical device
// |handle|: one of the layer's instance overrides, vkDestroyInstance or
// vkCreateDevice. NULL when the next layer has none or |handle| is unknown.
PFN_vkVoidFunction next_instance_proc(const void* handle, const char* name);
// The same for the device |handle|: one of the layer's device overrides or
// vkDestroyDevice.
PFN_vkVoidFunction next_device_proc(const void* handle, const char* name);

// next_*_proc cast to the function type |Function|.
template <class Function>
Function next_instance(const void* handle, const char* name) {
  return reinterpret_cast<Function>(next_instance_proc(handle, name));
}
template <class Function>
Function next_device(const void* handle, const char* name) {
  return reinterpret_cast<Function>(next_device_proc(handle, name));
}

}  // namespace halo_test_layer

#endif  // HALO_TESTS_VULKAN_TEST_LAYER_HPP_
