#include "device_side_waits.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "check.hpp"
#include "external_checks.hpp"
#include "halo/external.h"
#include "import_table.hpp"
#include "log.hpp"
#include "object_refs.hpp"
#include "sharing_refusal.hpp"

namespace halo::loader {
namespace {

// Set, never cleared, by the first device that lets libhalo choose
// device-side waits.
std::atomic<bool> g_automatic_device_seen{false};

ImportTable<halo_semaphore_t>& table() {
  // Never destroyed: semaphores may be released from threads that outlive
  // static destruction.
  static auto* instance = new ImportTable<halo_semaphore_t>();
  return *instance;
}

const halo_semaphore_vtable_t* semaphore_vtable(halo_semaphore_t* semaphore) {
  return vtable_of<halo_semaphore_vtable_t>(semaphore);
}

// True when |semaphore| belongs to another plugin than |device| and may be
// shared with it: its plugin says when a signal is committed, exports, and
// |device|'s plugin does not already wait on it natively.
bool candidate(halo_device_t* device, halo_semaphore_t* semaphore) noexcept {
  const auto* vtable = semaphore_vtable(semaphore);
  if (!HALO_VTABLE_HAS(vtable, halo_semaphore_vtable_t, signal_committed) ||
      !HALO_VTABLE_HAS(vtable, halo_semaphore_vtable_t, export_handle)) {
    return false;
  }
  halo_device_t* owner = vtable->device(semaphore);
  if (owner == nullptr || as_object(owner)->vtable == as_object(device)->vtable) {
    return false;  // Its own plugin's: the plugin decides.
  }
  const auto* device_vtable = vtable_of<halo_device_vtable_t>(device);
  if (!HALO_VTABLE_HAS(device_vtable, halo_device_vtable_t, import_semaphore)) {
    return false;
  }
  return (device_vtable->semaphore_compatibility(device, semaphore) &
          HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT) == 0;
}

// Exports |semaphore| in each type its device exports and |device| imports
// for device waits, until an import succeeds. Returns the import (a new
// reference) or NULL (kept as the pair's answer unless the failure may
// pass), saying why when HALO_LOADER_DEBUG asks.
MadeImport<halo_semaphore_t> make_import(halo_device_t* device,
                                         halo_semaphore_t* semaphore) noexcept {
  static const char kFunction[] = "device-side wait";
  halo_device_capabilities_t waiter;
  halo_device_capabilities_t exporter;
  halo_status_t status = query_capabilities(device, kFunction, &waiter);
  if (status == nullptr) {
    status = query_capabilities(semaphore_vtable(semaphore)->device(semaphore),
                                kFunction, &exporter);
  }
  if (status != nullptr) {
    halo_status_free(status);
    return {};
  }
  if ((waiter.features & HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS) == 0) {
    return {};  // Its imports are for applications that make them.
  }
  const halo_external_handle_type_t types =
      exporter.semaphore_export_types & waiter.semaphore_wait_import_types;
  // Fds or memory that ran out may not have by the next try
  // (sharing_refusal.hpp).
  bool transient = false;
  for (halo_external_handle_type_t type = 1;
       type & HALO_EXTERNAL_HANDLE_TYPES_KNOWN; type <<= 1) {
    if ((types & type) == 0) continue;
    halo_external_handle_t handle = {};
    handle.struct_size = sizeof(handle);
    status = halo_semaphore_export(semaphore, type, &handle);
    halo_semaphore_t* import = nullptr;
    if (status == nullptr) {
      handle.flags |= HALO_EXTERNAL_HANDLE_FLAG_DEVICE_WAITS_ONLY;
      status = halo_semaphore_import(device, &handle, &import);
      // A failed import leaves the descriptor with its caller (external.h).
      if (status != nullptr && handle.fd >= 0) close(handle.fd);
    }
    if (status == nullptr) {
      log_message(HALO_LOG_LEVEL_INFO,
                  "device-side waits: a semaphore shared as %s",
                  handle_type_name(type));
      return {import, true};
    }
    if (log_enabled(HALO_LOG_LEVEL_DEBUG)) {
      log_message(HALO_LOG_LEVEL_DEBUG,
                  "device-side waits: not as %s: %s (the host hands off)",
                  handle_type_name(type), halo_status_message(status));
    }
    transient |= refusal_may_pass(status);
    halo_status_free(status);
  }
  return {nullptr, !transient};
}

// The pair's import, retained, or NULL; made on first use.
halo_semaphore_t* import_for(halo_device_t* device,
                             halo_semaphore_t* semaphore) {
  return table().find_or_make({semaphore, device}, [&] {
    return make_import(device, semaphore);
  });
}

}  // namespace

DeviceSideWaits::~DeviceSideWaits() {
  for (halo_semaphore_t* import : imports_) release_object(as_object(import));
}

const halo_queue_execute_info_t* DeviceSideWaits::apply(
    halo_device_t* device, const halo_queue_execute_info_t* info) {
  for (size_t i = 0; i < info->wait_count; ++i) {
    halo_semaphore_t* semaphore = info->wait_semaphores[i];
    if (!candidate(device, semaphore)) continue;
    imports_.reserve(imports_.size() + 1);
    halo_semaphore_t* import = import_for(device, semaphore);
    if (import == nullptr) continue;
    imports_.push_back(import);
    // Asked at submission: a signal committed now stays committed, and one
    // that is not is waited for by the host.
    if (!semaphore_vtable(semaphore)->signal_committed(semaphore,
                                                       info->wait_values[i])) {
      continue;
    }
    if (waits_.empty()) {
      waits_.assign(info->wait_semaphores,
                    info->wait_semaphores + info->wait_count);
    }
    waits_[i] = import;
  }
  if (waits_.empty()) return info;
  // The members this libhalo knows, of a struct that may be older.
  std::memcpy(&info_, info, std::min<size_t>(info->struct_size, sizeof(info_)));
  info_.struct_size = sizeof(info_);
  info_.wait_semaphores = waits_.data();
  return &info_;
}

void note_created_device(halo_device_t* device) noexcept {
  halo_device_capabilities_t caps;
  halo_status_t status = query_capabilities(device, "device creation", &caps);
  if (status != nullptr) {
    halo_status_free(status);
    return;
  }
  if (caps.features & HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS) {
    g_automatic_device_seen.store(true, std::memory_order_relaxed);
  }
}

bool automatic_device_waits_seen() noexcept {
  return g_automatic_device_seen.load(std::memory_order_relaxed);
}

bool for_device_waits_only(halo_semaphore_t* semaphore) noexcept {
  halo_device_t* owner = semaphore_vtable(semaphore)->device(semaphore);
  return owner != nullptr &&
         vtable_of<halo_device_vtable_t>(owner)->semaphore_compatibility(
             owner, semaphore) == HALO_SEMAPHORE_COMPATIBILITY_DEVICE_WAIT;
}

bool device_side_wait_possible(halo_device_t* device,
                               halo_semaphore_t* semaphore) noexcept {
  if (!automatic_device_waits_seen()) return false;
  try {
    if (!candidate(device, semaphore)) return false;
    halo_semaphore_t* import = import_for(device, semaphore);
    release_object(as_object(import));
    return import != nullptr;
  } catch (...) {
    return false;  // Out of memory: the host hands off.
  }
}

void forget_imports_of_semaphore(halo_object_t* semaphore) noexcept {
  table().forget_object(semaphore);
}

void forget_imports_into_device(halo_device_t* device) noexcept {
  table().forget_device(device);
}

}  // namespace halo::loader
