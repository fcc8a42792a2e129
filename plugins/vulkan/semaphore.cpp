// The vulkan semaphore: native signals and waits, failure and timepoints
// through the shadow timeline, behind the SDK's semaphore vtable.
#include "semaphore.hpp"

#include <algorithm>

#include "device.hpp"
#include "halo/sdk/semaphore_vtable.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

using ull = unsigned long long;

// Pairs a multi-wait keeps on its stack before asking the allocator.
constexpr size_t kInlineWaits = 16;

halo_status_t deadline_exceeded(sdk::Host host) {
  return host.status_from_code(HALO_STATUS_DEADLINE_EXCEEDED);
}

// One look at every pair of a multi-wait: a copy of the first failure found,
// or OK with the number reached in |*reached| and the first unreached index
// in |*first_unreached| (count when none).
halo_status_t scan(size_t count, halo_semaphore_t* const* semaphores,
                   const uint64_t* values, size_t* reached,
                   size_t* first_unreached) {
  *reached = 0;
  *first_unreached = count;
  for (size_t i = 0; i < count; ++i) {
    Semaphore* semaphore = Semaphore::cast(semaphores[i]);
    if (semaphore->failed()) return semaphore->shadow.clone_failure();
    uint64_t native = 0;
    HALO_SDK_RETURN_IF_ERROR(semaphore->native_value(&native));
    if (semaphore->adopt_failure(native)) {
      return semaphore->shadow.clone_failure();
    }
    if (native >= values[i]) {
      ++*reached;
    } else if (*first_unreached == count) {
      *first_unreached = i;
    }
  }
  return HALO_OK;
}

bool met(halo_wait_mode_t mode, size_t count, size_t reached) {
  return mode == HALO_WAIT_MODE_ALL ? reached == count : reached > 0;
}

// The blocking part of wait_semaphores, with |vk_semaphores| and |vk_values|
// of room for count + 1 entries. An ANY wait sleeps on every unreached pair;
// an ALL wait on its first unreached pair (values only grow, so the pairs
// before it stay reached) — each plus the wake semaphore for failures. With
// sliced waits only the first of those is slept on, a slice at a time.
halo_status_t block(Device* device, halo_wait_mode_t mode, size_t count,
                    halo_semaphore_t* const* semaphores, const uint64_t* values,
                    halo_time_ns_t deadline, VkSemaphore* vk_semaphores,
                    uint64_t* vk_values) {
  for (;;) {
    const uint64_t wake_value = device->wake.current();
    size_t reached = 0, first = 0;
    HALO_SDK_RETURN_IF_ERROR(scan(count, semaphores, values, &reached, &first));
    if (met(mode, count, reached)) return HALO_OK;
    uint64_t timeout = timeout_until(device->host, deadline);
    if (timeout == 0) return deadline_exceeded(device->host);
    uint32_t n = 0;
    for (size_t i = first; i < count; ++i) {
      vk_semaphores[n] = Semaphore::cast(semaphores[i])->semaphore;
      vk_values[n++] = values[i];
      if (mode == HALO_WAIT_MODE_ALL) break;
    }
    vk_semaphores[n] = device->wake.semaphore();
    vk_values[n++] = wake_value + 1;
    VkResult result =
        wait_any(device->vkd, device->device, device->adapter->sliced_waits, n,
                 vk_semaphores, vk_values, timeout);
    if (result != VK_SUCCESS && result != VK_TIMEOUT) {
      return vk_status(device->host, "vkWaitSemaphores", result);
    }
    // On a timeout the loop's scan decides: a value that arrived right at
    // the deadline still counts.
    if (result == VK_TIMEOUT) {
      HALO_SDK_RETURN_IF_ERROR(
          scan(count, semaphores, values, &reached, &first));
      if (met(mode, count, reached)) return HALO_OK;
      return deadline_exceeded(device->host);
    }
  }
}

}  // namespace

Semaphore::Semaphore(Device* device, uint64_t initial_value)
    : header(HALO_OBJECT_HEADER_INIT(&sdk::kSemaphoreVtable<Semaphore>)),
      host(device->host),
      device(device),
      shadow(device->host, initial_value),
      pending_signals(sdk::HostAllocator<uint64_t>(device->host)),
      highest_set(initial_value) {
  device->retain();
}

Semaphore::~Semaphore() {
  if (semaphore != VK_NULL_HANDLE) {
    device->vkd.vkDestroySemaphore(device->device, semaphore, nullptr);
  }
  // A retired semaphore let go of its device when the queue took it over.
  if (!retired) device->release();
}

halo_status_t Semaphore::create(Device* device, uint64_t initial_value,
                                halo_semaphore_flags_t flags,
                                halo_semaphore_t** out_semaphore) noexcept {
  sdk::Host host = device->host;
  const bool exportable = (flags & HALO_SEMAPHORE_FLAG_EXPORTABLE) != 0;
  return sdk::guard(host, [&]() -> halo_status_t {
    Semaphore* semaphore = host.make<Semaphore>(device, initial_value);
    semaphore->exportable = exportable;
    halo_status_t status =
        exportable
            ? create_exportable_timeline(device, initial_value,
                                         &semaphore->semaphore)
            : create_timeline_semaphore(host, device->vkd, device->device,
                                        initial_value, &semaphore->semaphore);
    if (status != HALO_OK) {
      host.destroy(semaphore);
      return status;
    }
    *out_semaphore = semaphore->handle();
    return HALO_OK;
  });
}

void Semaphore::destroy(Semaphore* semaphore) noexcept {
  Device* device = semaphore->device;
  if (device->semaphore_keeper->retire(semaphore)) {
    // The queue destroys the semaphore later, and before the device goes:
    // the semaphore must not keep the device alive meanwhile.
    device->release();
    return;
  }
  sdk::Host host = semaphore->host;
  host.destroy(semaphore);
}

bool Semaphore::is_vulkan(halo_semaphore_t* semaphore) noexcept {
  return sdk::is_semaphore_of<Semaphore>(semaphore);
}

halo_status_t Semaphore::native_value(uint64_t* out_value) noexcept {
  VkResult result = device->vkd.vkGetSemaphoreCounterValue(
      device->device, semaphore, out_value);
  return vk_status(host, "vkGetSemaphoreCounterValue", result);
}

void Semaphore::advance_shadow(uint64_t value) noexcept {
  for (;;) {
    if (shadow.payload() >= value) return;  // Also when failed.
    halo_status_t status = shadow.signal(value);
    if (status == HALO_OK) return;
    // Another thread advanced or failed the shadow first: look again.
    host.free(status);
  }
}

void Semaphore::sync_shadow() noexcept {
  uint64_t native = 0;
  halo_status_t status = native_value(&native);
  if (status != HALO_OK) {
    host.free(status);
    return;
  }
  if (!adopt_failure(native)) advance_shadow(native);
}

void Semaphore::prune_pending(uint64_t native) noexcept {
  size_t reached = 0;
  while (reached < pending_signals.size() &&
         pending_signals[reached] <= native) {
    ++reached;
  }
  if (reached != 0) {
    pending_signals.erase(pending_signals.begin(),
                          pending_signals.begin() + reached);
  }
}

bool Semaphore::read_and_prune(uint64_t* out_native) noexcept {
  halo_status_t status = native_value(out_native);
  if (status != HALO_OK) {
    host.free(status);  // A lost device: the caller takes the host's way.
    return false;
  }
  prune_pending(*out_native);
  return true;
}

bool Semaphore::gpu_reaches(uint64_t value) noexcept {
  std::lock_guard<std::mutex> lock(signal_mutex);
  // Known without a payload read (one driver call a wait): the shadow
  // trails the payload, and a pending signal's value only grows on the GPU
  // (a link of a chain waits on the link before). A shared payload may
  // hold another side's failure instead: read that.
  if (!shared() &&
      ((!pending_signals.empty() && value <= pending_signals.back()) ||
       (!failed() && value <= shadow.payload()))) {
    return true;
  }
  // Nobody has set it that high (a wait on a host signal to come, or on
  // work not yet submitted); a failure is no value reached either.
  if (above_all_set(value)) return false;
  uint64_t native = 0;
  if (!read_and_prune(&native)) return false;
  // A failure value from another side is no value reached: the wait takes
  // a timepoint, which sees the failure.
  if (native >= HALO_SEMAPHORE_FAILURE_VALUE) return false;
  return native >= value ||
         (!pending_signals.empty() && pending_signals.back() >= value);
}

bool Semaphore::reserve_gpu_signal(uint64_t value) noexcept {
  std::lock_guard<std::mutex> lock(signal_mutex);
  // Above highest_set, the value is above the payload and every pending
  // signal: no payload read, one driver call a submission fewer (but one
  // every kUnprunedSignals, to prune what the GPU has reached).
  const bool known_above =
      above_all_set(value) && pending_signals.size() < kUnprunedSignals;
  if (!known_above) {
    uint64_t native = 0;
    if (!read_and_prune(&native)) return false;
    if (value <= native ||
        (!pending_signals.empty() && value <= pending_signals.back())) {
      return false;
    }
  }
  try {
    pending_signals.push_back(value);
  } catch (...) {
    return false;  // Out of host memory: the host signals it instead.
  }
  highest_set = std::max(highest_set, value);
  return true;
}

void Semaphore::unreserve_gpu_signal(uint64_t value) noexcept {
  std::lock_guard<std::mutex> lock(signal_mutex);
  if (!pending_signals.empty() && pending_signals.back() == value) {
    pending_signals.pop_back();
  }
}

halo_status_t Semaphore::query(uint64_t* out_value) noexcept {
  if (failed()) return shadow.query(out_value);
  HALO_SDK_RETURN_IF_ERROR(native_value(out_value));
  // A failure that landed meanwhile, here or on another side, still wins.
  if (adopt_failure(*out_value) || failed()) return shadow.query(out_value);
  return HALO_OK;
}

halo_status_t Semaphore::check_signal(uint64_t value,
                                      uint64_t native) noexcept {
  if (value <= native || value > HALO_SEMAPHORE_MAX_VALUE) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "halo_semaphore_signal: value %llu must be greater than the current "
        "payload %llu and at most HALO_SEMAPHORE_MAX_VALUE",
        static_cast<ull>(value), static_cast<ull>(native));
  }
  const uint64_t limit =
      device->adapter->capabilities.max_semaphore_value_difference;
  if (value - native > limit) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "halo_semaphore_signal: value %llu is more than the device's "
        "max_semaphore_value_difference %llu above the payload %llu",
        static_cast<ull>(value), static_cast<ull>(limit),
        static_cast<ull>(native));
  }
  prune_pending(native);
  if (!pending_signals.empty() && value >= pending_signals.front()) {
    return host.make_status(
        HALO_STATUS_FAILED_PRECONDITION,
        "halo_semaphore_signal: value %llu is not below %llu, which a queue "
        "submission already on the GPU will signal; Vulkan forbids host "
        "signals at or past a pending device signal",
        static_cast<ull>(value), static_cast<ull>(pending_signals.front()));
  }
  return HALO_OK;
}

bool Semaphore::signal_known_valid(uint64_t value) const noexcept {
  const uint64_t trailing = shadow.payload();
  return above_all_set(value) && pending_signals.empty() &&
         value <= HALO_SEMAPHORE_MAX_VALUE && trailing < value &&
         value - trailing <=
             device->adapter->capabilities.max_semaphore_value_difference;
}

halo_status_t Semaphore::signal(uint64_t value) noexcept {
  uint64_t native = 0;
  {
    std::lock_guard<std::mutex> lock(signal_mutex);
    if (failed()) return shadow.clone_failure();
    // A signal known valid goes to the driver without a payload read (one
    // driver call fewer on the signalling thread); an unshared semaphore's
    // failure is in its shadow, checked above.
    const bool read = !signal_known_valid(value);
    if (read) HALO_SDK_RETURN_IF_ERROR(native_value(&native));
    if (native < HALO_SEMAPHORE_FAILURE_VALUE) {
      if (read) HALO_SDK_RETURN_IF_ERROR(check_signal(value, native));
      VkSemaphoreSignalInfo info = {};
      info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO;
      info.semaphore = semaphore;
      info.value = value;
      HALO_VK_RETURN_IF_FAILED(
          host, "vkSignalSemaphore",
          device->vkd.vkSignalSemaphore(device->device, &info));
      highest_set = std::max(highest_set, value);
    }
  }
  // Outside the lock: timepoint callbacks may signal this semaphore again.
  if (adopt_failure(native)) return shadow.clone_failure();
  advance_shadow(value);
  return HALO_OK;
}

void Semaphore::fail(halo_status_t status) noexcept {
  shadow.fail(status);
  publish_failure();
  // Host waiters sleep in vkWaitSemaphores, which knows nothing of the
  // failure: the wake semaphore ends their wait so they look again.
  device->wake.wake();
}

halo_status_t Semaphore::wait(uint64_t value,
                              halo_time_ns_t deadline) noexcept {
  // The first time round, a value the shadow has not reached goes straight
  // to vkWaitSemaphores, which returns at once if the payload has: a
  // payload read fewer (one driver call) for a wait that blocks.
  bool read_first = false;
  for (;;) {
    const uint64_t wake_value = device->wake.current();
    // One load for both: a failure landing between two would read as the
    // value reached.
    const uint64_t shadow_payload = shadow.payload();
    if (shadow_payload >= HALO_SEMAPHORE_FAILURE_VALUE) {
      return shadow.clone_failure();
    }
    if (shadow_payload >= value) return HALO_OK;
    const uint64_t timeout = timeout_until(host, deadline);
    if (read_first || timeout == 0) {
      uint64_t native = 0;
      HALO_SDK_RETURN_IF_ERROR(native_value(&native));
      if (adopt_failure(native)) return shadow.clone_failure();
      if (native >= value) return HALO_OK;
      if (timeout == 0) return deadline_exceeded(host);
    }
    read_first = true;
    const VkSemaphore semaphores[2] = {semaphore, device->wake.semaphore()};
    const uint64_t values[2] = {value, wake_value + 1};
    VkResult result =
        wait_any(device->vkd, device->device, device->adapter->sliced_waits, 2,
                 semaphores, values, timeout);
    if (result == VK_TIMEOUT) {
      if (failed()) return shadow.clone_failure();
      uint64_t native = 0;
      HALO_SDK_RETURN_IF_ERROR(native_value(&native));
      if (adopt_failure(native)) return shadow.clone_failure();
      return native >= value ? HALO_OK : deadline_exceeded(host);
    }
    if (result != VK_SUCCESS) {
      return vk_status(host, "vkWaitSemaphores", result);
    }
  }
}

halo_status_t Semaphore::acquire_timepoint(
    halo_timepoint_t* timepoint) noexcept {
  HALO_SDK_RETURN_IF_ERROR(acquire_unwatched_timepoint(timepoint));
  if (shadow.pending_timepoints() != 0) device->semaphore_keeper->watch(this);
  return HALO_OK;
}

halo_status_t Semaphore::acquire_unwatched_timepoint(
    halo_timepoint_t* timepoint) noexcept {
  // The shadow trails GPU signals; bring it up to date so that a value
  // already reached runs the callback inline, as the contract asks. A
  // value nobody has set the payload to yet needs no read: a host signal
  // that reaches it meanwhile raises the shadow, which the acquire sees.
  bool reachable = true;
  {
    std::lock_guard<std::mutex> lock(signal_mutex);
    reachable = !above_all_set(timepoint->value);
  }
  if (reachable) sync_shadow();
  return shadow.acquire(timepoint);
}

bool Semaphore::cancel_timepoint(halo_timepoint_t* timepoint) noexcept {
  bool cancelled = shadow.cancel(timepoint);
  // Let the notification thread drop a semaphore nobody waits on any more.
  if (cancelled && watched.load(std::memory_order_relaxed) &&
      shadow.pending_timepoints() == 0) {
    device->wake.wake();
  }
  return cancelled;
}

halo_status_t wait_semaphores(Device* device, halo_wait_mode_t mode,
                              size_t count, halo_semaphore_t* const* semaphores,
                              const uint64_t* values,
                              halo_time_ns_t deadline) noexcept {
  if (count == 0) return HALO_OK;
  if (count == 1)
    return Semaphore::cast(semaphores[0])->wait(values[0], deadline);
  sdk::Host host = device->host;
  size_t reached = 0, first = 0;
  HALO_SDK_RETURN_IF_ERROR(scan(count, semaphores, values, &reached, &first));
  if (met(mode, count, reached)) return HALO_OK;
  if (deadline == HALO_DEADLINE_INFINITE_PAST) return deadline_exceeded(host);
  VkSemaphore inline_semaphores[kInlineWaits + 1];
  uint64_t inline_values[kInlineWaits + 1];
  VkSemaphore* vk_semaphores = inline_semaphores;
  uint64_t* vk_values = inline_values;
  if (count > kInlineWaits) {
    if (count > UINT32_MAX - 1) {
      return host.make_status_text(HALO_STATUS_RESOURCE_EXHAUSTED,
                                   "too many semaphores to wait on");
    }
    vk_semaphores = static_cast<VkSemaphore*>(
        host.allocate((count + 1) * sizeof(VkSemaphore), alignof(VkSemaphore)));
    vk_values = static_cast<uint64_t*>(
        host.allocate((count + 1) * sizeof(uint64_t), alignof(uint64_t)));
    if (vk_semaphores == nullptr || vk_values == nullptr) {
      host.deallocate(vk_semaphores);
      host.deallocate(vk_values);
      return host.make_status_text(HALO_STATUS_RESOURCE_EXHAUSTED,
                                   "out of memory for a multi-wait");
    }
  }
  halo_status_t status = block(device, mode, count, semaphores, values,
                               deadline, vk_semaphores, vk_values);
  if (vk_semaphores != inline_semaphores) {
    host.deallocate(vk_semaphores);
    host.deallocate(vk_values);
  }
  return status;
}

}  // namespace halo::vk
