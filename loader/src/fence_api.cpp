// The fence's public C API (halo/fence.h): argument checks, then the
// semaphores' own public calls, so that a fence mixes devices and plugins
// and validation sees every semaphore it touches.
#include <new>

#include "abi_1_0_sizes.hpp"
#include "api_guard.hpp"
#include "check.hpp"
#include "fence.hpp"
#include "object_refs.hpp"

using namespace halo::loader;

namespace {

halo_status_t check_fence(halo_fence_t* fence, const char* function,
                          const char* argument = "fence") {
  return check_object(fence, HALO_OBJECT_TYPE_FENCE,
                      sizeof(halo_object_vtable_t), function, argument);
}

}  // namespace

extern "C" {

halo_status_t halo_fence_create(halo_fence_t** out_fence) try {
  if (out_fence == nullptr) return null_argument(__func__, "out_fence");
  *out_fence = nullptr;
  Fence* fence = new (std::nothrow) Fence();
  if (fence == nullptr) {
    return halo_status_format(HALO_STATUS_RESOURCE_EXHAUSTED,
                              "%s: out of memory", __func__);
  }
  *out_fence = fence->handle();
  return nullptr;
}
HALO_API_CATCH_ALL

void halo_fence_retain(halo_fence_t* fence) {
  retain_checked(as_object(fence), "halo_fence_retain");
}

void halo_fence_release(halo_fence_t* fence) {
  release_checked(as_object(fence), "halo_fence_release");
}

halo_status_t halo_fence_insert(halo_fence_t* fence,
                                halo_semaphore_t* semaphore,
                                uint64_t value) try {
  HALO_RETURN_IF_ERROR(check_fence(fence, __func__));
  HALO_RETURN_IF_ERROR(check_object(semaphore, HALO_OBJECT_TYPE_SEMAPHORE,
                                    abi_1_0_size<halo_semaphore_vtable_t>,
                                    __func__, "semaphore"));
  if (value > HALO_SEMAPHORE_MAX_VALUE) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: value %llu is above "
                              "HALO_SEMAPHORE_MAX_VALUE",
                              __func__, static_cast<unsigned long long>(value));
  }
  Fence::cast(fence)->insert(semaphore, value);
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_fence_join(halo_fence_t* fence, halo_fence_t* source) try {
  HALO_RETURN_IF_ERROR(check_fence(fence, __func__));
  HALO_RETURN_IF_ERROR(check_fence(source, __func__, "source"));
  // A snapshot, so that the two fences' locks are never held together.
  for (const FenceTimepoint& timepoint : Fence::cast(source)->snapshot()) {
    Fence::cast(fence)->insert(timepoint.semaphore, timepoint.value);
  }
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_fence_timepoints(halo_fence_t* fence, size_t capacity,
                                    halo_semaphore_t** out_semaphores,
                                    uint64_t* out_values,
                                    size_t* out_count) try {
  HALO_RETURN_IF_ERROR(check_fence(fence, __func__));
  if (out_count == nullptr) return null_argument(__func__, "out_count");
  if (capacity > 0 && out_semaphores == nullptr) {
    return null_argument(__func__, "out_semaphores");
  }
  if (capacity > 0 && out_values == nullptr) {
    return null_argument(__func__, "out_values");
  }
  Fence* self = Fence::cast(fence);
  std::lock_guard<std::mutex> lock(self->mutex);
  *out_count = self->timepoints.size();
  for (size_t i = 0; i < capacity && i < self->timepoints.size(); ++i) {
    out_semaphores[i] = self->timepoints[i].semaphore;
    out_values[i] = self->timepoints[i].value;
  }
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_fence_query(halo_fence_t* fence, bool* out_reached) try {
  HALO_RETURN_IF_ERROR(check_fence(fence, __func__));
  if (out_reached == nullptr) return null_argument(__func__, "out_reached");
  *out_reached = false;
  bool reached = true;
  // Every semaphore is queried: a failure anywhere wins over a pending one.
  for (const FenceTimepoint& timepoint : Fence::cast(fence)->snapshot()) {
    uint64_t payload = 0;
    HALO_RETURN_IF_ERROR(halo_semaphore_query(timepoint.semaphore, &payload));
    if (payload < timepoint.value) reached = false;
  }
  *out_reached = reached;
  return nullptr;
}
HALO_API_CATCH_ALL

halo_status_t halo_fence_wait(halo_fence_t* fence,
                              halo_time_ns_t deadline) try {
  HALO_RETURN_IF_ERROR(check_fence(fence, __func__));
  const TimepointLists lists(Fence::cast(fence)->snapshot());
  return halo_semaphores_wait(HALO_WAIT_MODE_ALL, lists.semaphores.size(),
                              lists.semaphores.data(), lists.values.data(),
                              deadline);
}
HALO_API_CATCH_ALL

halo_status_t halo_fence_signal(halo_fence_t* fence) try {
  HALO_RETURN_IF_ERROR(check_fence(fence, __func__));
  halo_status_t first = nullptr;
  for (const FenceTimepoint& timepoint : Fence::cast(fence)->snapshot()) {
    uint64_t payload = 0;
    halo_status_t status = halo_semaphore_query(timepoint.semaphore, &payload);
    if (status == nullptr && payload < timepoint.value) {
      status = halo_semaphore_signal(timepoint.semaphore, timepoint.value);
      // Another signal may have passed the value meanwhile: that is the
      // timepoint reached, not an error. A failure since is the one kept.
      if (status != nullptr &&
          halo_status_code(status) == HALO_STATUS_INVALID_ARGUMENT) {
        halo_status_t requery =
            halo_semaphore_query(timepoint.semaphore, &payload);
        if (requery != nullptr || payload >= timepoint.value) {
          halo_status_free(status);
          status = requery;
        }
      }
    }
    if (first == nullptr) {
      first = status;
    } else {
      halo_status_free(status);
    }
  }
  return first;
}
HALO_API_CATCH_ALL

halo_status_t halo_device_queue_execute_fences(
    halo_device_t* device, halo_queue_affinity_t affinity,
    halo_fence_t* wait_fence, halo_fence_t* signal_fence,
    size_t command_buffer_count,
    halo_command_buffer_t* const* command_buffers) try {
  if (wait_fence != nullptr) {
    HALO_RETURN_IF_ERROR(check_fence(wait_fence, __func__, "wait_fence"));
  }
  if (signal_fence != nullptr) {
    HALO_RETURN_IF_ERROR(check_fence(signal_fence, __func__, "signal_fence"));
  }
  const TimepointLists waits(wait_fence != nullptr
                                 ? Fence::cast(wait_fence)->snapshot()
                                 : std::vector<FenceTimepoint>());
  const TimepointLists signals(signal_fence != nullptr
                                   ? Fence::cast(signal_fence)->snapshot()
                                   : std::vector<FenceTimepoint>());
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = affinity;
  info.wait_count = waits.semaphores.size();
  info.wait_semaphores = waits.semaphores.data();
  info.wait_values = waits.values.data();
  info.signal_count = signals.semaphores.size();
  info.signal_semaphores = signals.semaphores.data();
  info.signal_values = signals.values.data();
  info.command_buffer_count = command_buffer_count;
  info.command_buffers = command_buffers;
  return halo_device_queue_execute(device, &info);
}
HALO_API_CATCH_ALL

}  // extern "C"
