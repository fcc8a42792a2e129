// Timeline semaphores shared with other devices (halo/external.h, ABI 1.3)
// through VK_KHR_external_semaphore_fd: creation of exportable ones, export
// and import of opaque fds, and failures carried across on the shared
// timeline as a payload of HALO_SEMAPHORE_FAILURE_VALUE, since each side's
// failure status lives in its own shadow (semaphore.hpp).
#include <unistd.h>

#include "device.hpp"
#include "halo/sdk/external.hpp"
#include "semaphore.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

using ull = unsigned long long;

constexpr auto kOpaqueFd = VK_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD_BIT;

// Whether |device| shares timelines as |types| (its capabilities'
// semaphore_export_ or import_types) and has the extension's entries.
bool shares(const Device* device, halo_external_handle_type_t types) {
  return (types & HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD) != 0 &&
         device->vkd.vkGetSemaphoreFdKHR != nullptr &&
         device->vkd.vkImportSemaphoreFdKHR != nullptr;
}

// Replaces the payload of |semaphore|'s fresh timeline with the one |fd|
// names. Vulkan takes |fd| only on success.
halo_status_t import_payload(Semaphore* semaphore, int fd) noexcept {
  Device* device = semaphore->device;
  VkImportSemaphoreFdInfoKHR info = {};
  info.sType = VK_STRUCTURE_TYPE_IMPORT_SEMAPHORE_FD_INFO_KHR;
  info.semaphore = semaphore->semaphore;
  info.handleType = kOpaqueFd;
  info.fd = fd;
  const VkResult result =
      device->vkd.vkImportSemaphoreFdKHR(device->device, &info);
  if (result == VK_SUCCESS) return HALO_OK;
  return semaphore->host.make_status(
      result_code(result),
      "halo_semaphore_import: vkImportSemaphoreFdKHR of handle->fd failed: "
      "%s (%d)",
      result_name(result), static_cast<int>(result));
}

}  // namespace

halo_status_t create_exportable_timeline(Device* device, uint64_t initial_value,
                                         VkSemaphore* out_semaphore) noexcept {
  sdk::Host host = device->host;
  *out_semaphore = VK_NULL_HANDLE;
  if (!shares(device, device->adapter->capabilities.semaphore_export_types)) {
    return host.make_status_text(
        HALO_STATUS_UNIMPLEMENTED,
        "halo_semaphore_create: flags asks for EXPORTABLE, but the device "
        "cannot export timeline semaphores as opaque fds");
  }
  VkSemaphoreTypeCreateInfo type_info = {};
  type_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type_info.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type_info.initialValue = initial_value;
  VkExportSemaphoreCreateInfo export_info = {};
  export_info.sType = VK_STRUCTURE_TYPE_EXPORT_SEMAPHORE_CREATE_INFO;
  export_info.pNext = &type_info;
  export_info.handleTypes = kOpaqueFd;
  VkSemaphoreCreateInfo create_info = {};
  create_info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  create_info.pNext = &export_info;
  VkResult result = device->vkd.vkCreateSemaphore(device->device, &create_info,
                                                  nullptr, out_semaphore);
  if (result != VK_SUCCESS) *out_semaphore = VK_NULL_HANDLE;
  return vk_status(host, "vkCreateSemaphore", result);
}

halo_status_t Semaphore::export_handle(
    halo_external_handle_type_t type,
    halo_external_handle_t* out_handle) noexcept {
  static const char kFunction[] = "halo_semaphore_export";
  HALO_SDK_RETURN_IF_ERROR(sdk::check_export(
      host, kFunction, "semaphore", exportable,
      device->adapter->capabilities.semaphore_export_types, type));
  VkSemaphoreGetFdInfoKHR info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_GET_FD_INFO_KHR;
  info.semaphore = semaphore;
  info.handleType = kOpaqueFd;
  int fd = -1;
  HALO_VK_RETURN_IF_FAILED(
      host, "vkGetSemaphoreFdKHR",
      device->vkd.vkGetSemaphoreFdKHR(device->device, &info, &fd));
  return sdk::fill_fd_handle(host, kFunction, "vkGetSemaphoreFdKHR", type, fd,
                             0, out_handle);
}

halo_status_t Semaphore::import(Device* device,
                                const halo_external_handle_t& handle,
                                halo_semaphore_t** out_semaphore) noexcept {
  static const char kFunction[] = "halo_semaphore_import";
  sdk::Host host = device->host;
  if (handle.type != HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD ||
      !shares(device, device->adapter->capabilities.semaphore_import_types)) {
    return host.make_status(HALO_STATUS_UNIMPLEMENTED,
                            "%s: the device cannot import semaphores as %s",
                            kFunction, sdk::handle_type_name(handle.type));
  }
  return sdk::guard(host, [&]() -> halo_status_t {
    Semaphore* semaphore = host.make<Semaphore>(device, 0);
    semaphore->imported = true;
    // A copy of the fd is imported, so that the caller's stays open unless
    // the whole import succeeds (external.h).
    sdk::OwnedFd fd;
    halo_status_t status = sdk::duplicate_fd(host, kFunction, handle.fd, &fd);
    if (status == HALO_OK) {
      status = create_timeline_semaphore(host, device->vkd, device->device, 0,
                                         &semaphore->semaphore);
    }
    if (status == HALO_OK) status = import_payload(semaphore, fd.get());
    if (status != HALO_OK) {
      host.destroy(semaphore);
      return status;
    }
    fd.release();  // The VkSemaphore owns it now.
    close(handle.fd);
    // The shadow starts at the shared payload, or failed when the exporter
    // already failed the semaphore (no timepoint can be waiting yet).
    semaphore->sync_shadow();
    *out_semaphore = semaphore->handle();
    return HALO_OK;
  });
}

bool Semaphore::adopt_failure(uint64_t native) noexcept {
  if (native < HALO_SEMAPHORE_FAILURE_VALUE) return false;
  if (failed()) return true;
  // The other side failed it; its status stayed there.
  halo_status_t status = host.make_status(
      HALO_STATUS_DATA_LOSS,
      "%s semaphore: failed where the semaphore was %s (its shared payload "
      "is 0x%llx, a failure value); the failure status stayed there",
      imported ? "an imported" : "an exported",
      imported ? "exported" : "imported", static_cast<ull>(native));
  fail(status);
  return true;
}

void Semaphore::publish_failure() noexcept {
  if (!shared()) return;
  std::lock_guard<std::mutex> lock(signal_mutex);
  uint64_t native = 0;
  if (!read_and_prune(&native)) return;
  if (native >= HALO_SEMAPHORE_FAILURE_VALUE) return;
  // Vulkan forbids a host signal at or past a pending GPU signal: the queue
  // publishes after that signal lands (Queue::complete).
  if (!pending_signals.empty()) return;
  // The capabilities offer sharing only where the timeline difference
  // allows the failure value above any payload (external_support.cpp).
  const uint64_t limit = device->adapter->limits.max_timeline_difference;
  if (HALO_SEMAPHORE_FAILURE_VALUE - native > limit) {
    host.log(HALO_LOG_LEVEL_ERROR,
             "semaphore: cannot share a failure at payload %llu: the device's "
             "timeline difference limit is %llu",
             static_cast<ull>(native), static_cast<ull>(limit));
    return;
  }
  VkSemaphoreSignalInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
  info.semaphore = semaphore;
  info.value = HALO_SEMAPHORE_FAILURE_VALUE;
  VkResult result = device->vkd.vkSignalSemaphore(device->device, &info);
  if (result != VK_SUCCESS) {
    host.log(HALO_LOG_LEVEL_ERROR,
             "semaphore: vkSignalSemaphore of the failure value failed: %s "
             "(%d)",
             result_name(result), static_cast<int>(result));
  }
}

}  // namespace halo::vk
