// Loading the Vulkan loader and its entry points at run time.
#include "vulkan_api.hpp"

#include <dlfcn.h>
#include <link.h>

#include <cstdio>

namespace halo::vk {

void ErrorText::set(const char* format, ...) noexcept {
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(text, sizeof(text), format, arguments);
  va_end(arguments);
}

Library::~Library() {
  if (handle_ != nullptr) dlclose(handle_);
}

bool Library::open(const char* name, ErrorText* error) {
  // RTLD_LOCAL: the loader's symbols must not leak into the process's global
  // scope through us. RTLD_NODELETE: drivers loaded by the loader (Mesa's
  // LLVM-based ones among them) keep process-wide state that does not
  // survive being unmapped and mapped again, as happens when registries come
  // and go; the loader stays mapped once opened.
  handle_ = dlopen(name, RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
  if (handle_ == nullptr) {
    const char* reason = dlerror();
    error->set("cannot open %s: %s", name,
               reason != nullptr ? reason : "unknown dlopen error");
    return false;
  }
  vkGetInstanceProcAddr = reinterpret_cast<PFN_vkGetInstanceProcAddr>(
      dlsym(handle_, "vkGetInstanceProcAddr"));
  if (vkGetInstanceProcAddr == nullptr) {
    error->set("%s has no vkGetInstanceProcAddr", name);
    return false;
  }
#define HALO_VK_LOAD_GLOBAL(entry)                                         \
  entry = reinterpret_cast<PFN_##entry>(vkGetInstanceProcAddr(nullptr, #entry)); \
  if (entry == nullptr) {                                                  \
    error->set("%s lacks " #entry " (Vulkan 1.1 or newer needed)", name); \
    return false;                                                          \
  }
  HALO_VK_GLOBAL_FUNCTIONS(HALO_VK_LOAD_GLOBAL)
#undef HALO_VK_LOAD_GLOBAL
  return true;
}

void LoadedLibraries::snapshot() noexcept {
  count_ = 0;
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* self = static_cast<LoadedLibraries*>(data);
        if (self->count_ < kCapacity) {
          self->known_[self->count_++] =
              reinterpret_cast<const void*>(info->dlpi_addr);
        }
        return 0;
      },
      this);
}

void LoadedLibraries::pin_new() const noexcept {
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) -> int {
        auto* self = static_cast<const LoadedLibraries*>(data);
        const void* base = reinterpret_cast<const void*>(info->dlpi_addr);
        for (int i = 0; i < self->count_; ++i) {
          if (self->known_[i] == base) return 0;
        }
        if (info->dlpi_name == nullptr || info->dlpi_name[0] == '\0') return 0;
        // Adds a reference that is never dropped, and marks the object
        // as never to be unloaded.
        dlopen(info->dlpi_name, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
        return 0;
      },
      const_cast<LoadedLibraries*>(this));
}

bool InstanceFunctions::load(const Library& library, VkInstance instance,
                             ErrorText* error) {
#define HALO_VK_LOAD_INSTANCE(entry)                                     \
  entry = reinterpret_cast<PFN_##entry>(                                 \
      library.vkGetInstanceProcAddr(instance, #entry));                  \
  if (entry == nullptr) {                                                \
    error->set("the Vulkan instance lacks " #entry);                     \
    return false;                                                        \
  }
  HALO_VK_INSTANCE_FUNCTIONS(HALO_VK_LOAD_INSTANCE)
#undef HALO_VK_LOAD_INSTANCE
  // Optional: present only with VK_EXT_debug_utils enabled.
#define HALO_VK_LOAD_OPTIONAL(entry) \
  entry = reinterpret_cast<PFN_##entry>(                                 \
      library.vkGetInstanceProcAddr(instance, #entry));
  HALO_VK_DEBUG_FUNCTIONS(HALO_VK_LOAD_OPTIONAL)
#undef HALO_VK_LOAD_OPTIONAL
  return true;
}

bool DeviceFunctions::load(const InstanceFunctions& instance, VkDevice device,
                           ErrorText* error) {
#define HALO_VK_LOAD_DEVICE(entry)                                           \
  entry = reinterpret_cast<PFN_##entry>(                                     \
      instance.vkGetDeviceProcAddr(device, #entry));                         \
  if (entry == nullptr) {                                                    \
    error->set("the Vulkan device lacks " #entry);                           \
    return false;                                                            \
  }
  HALO_VK_DEVICE_FUNCTIONS(HALO_VK_LOAD_DEVICE)
#undef HALO_VK_LOAD_DEVICE
  // Optional: present only with their extensions enabled, which the
  // callers check before using them (external.hpp).
#define HALO_VK_LOAD_EXTERNAL(entry)                                         \
  entry = reinterpret_cast<PFN_##entry>(                                     \
      instance.vkGetDeviceProcAddr(device, #entry));
  HALO_VK_EXTERNAL_FUNCTIONS(HALO_VK_LOAD_EXTERNAL)
#undef HALO_VK_LOAD_EXTERNAL
  return true;
}

}  // namespace halo::vk
