// Shared argument checks for buffers and command buffers (see commands.hpp).
#include "halo/sdk/commands.hpp"

#include <cstdio>

namespace halo::sdk {
namespace {

using ull = unsigned long long;

constexpr halo_buffer_usage_t kKnownUsage =
    HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET |
    HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;

halo_status_t check_usage(Host host, const char *function, const char *argument,
                          const BufferFacts &buffer, halo_buffer_usage_t needed,
                          const char *needed_name) {
  if ((buffer.usage & needed) != 0)
    return HALO_OK;
  return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                          "%s: %s was allocated without %s usage (usage 0x%x)",
                          function, argument, needed_name, buffer.usage);
}

} // namespace

halo_status_t check_buffer_params(Host host,
                                  const halo_device_capabilities_t &caps,
                                  const halo_buffer_params_t &params,
                                  const char *function) noexcept {
  if (params.memory_type == 0 ||
      (params.memory_type & ~caps.memory_types) != 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->memory_type 0x%x is not a non-zero "
                            "subset of the device's memory types 0x%x",
                            function, params.memory_type, caps.memory_types);
  }
  if (params.usage == 0 || (params.usage & ~kKnownUsage) != 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->usage 0x%x is not a non-zero set of "
                            "HALO_BUFFER_USAGE_* bits",
                            function, params.usage);
  }
  if (params.size == 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->size is 0", function);
  }
  if (params.size > caps.max_buffer_size) {
    return host.make_status(HALO_STATUS_RESOURCE_EXHAUSTED,
                            "%s: params->size %llu exceeds the device's "
                            "max_buffer_size %llu",
                            function, static_cast<ull>(params.size),
                            static_cast<ull>(caps.max_buffer_size));
  }
  return HALO_OK;
}

halo_status_t resolve_range(Host host, const char *function,
                            const char *argument, uint64_t size,
                            uint64_t offset, uint64_t *length) noexcept {
  if (offset > size) {
    return host.make_status(HALO_STATUS_OUT_OF_RANGE,
                            "%s: offset %llu is past the end of %s (%llu "
                            "bytes)",
                            function, static_cast<ull>(offset), argument,
                            static_cast<ull>(size));
  }
  if (*length == HALO_WHOLE_BUFFER) {
    *length = size - offset;
  } else if (*length > size - offset) {
    return host.make_status(HALO_STATUS_OUT_OF_RANGE,
                            "%s: range [%llu, +%llu) exceeds %s (%llu bytes)",
                            function, static_cast<ull>(offset),
                            static_cast<ull>(*length), argument,
                            static_cast<ull>(size));
  }
  return HALO_OK;
}

halo_status_t check_host_range(Host host, const char *function,
                               const BufferFacts &buffer, uint64_t offset,
                               uint64_t *length) noexcept {
  if ((buffer.memory_type & HALO_MEMORY_TYPE_HOST_VISIBLE) == 0) {
    return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                            "%s: buffer memory (type 0x%x) is not "
                            "HOST_VISIBLE",
                            function, buffer.memory_type);
  }
  return resolve_range(host, function, "buffer", buffer.size, offset, length);
}

halo_status_t check_map(Host host, const BufferFacts &buffer, uint64_t offset,
                        uint64_t *length) noexcept {
  return check_host_range(host, "halo_buffer_map_range", buffer, offset,
                          length);
}

halo_status_t check_fill(Host host, const BufferFacts &target, uint64_t offset,
                         uint64_t *length, size_t pattern_length) noexcept {
  static const char kFunction[] = "halo_command_buffer_fill";
  // libhalo already refuses other lengths; checked again because a zero
  // length would divide by zero below.
  if (pattern_length != 1 && pattern_length != 2 && pattern_length != 4) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: pattern_length %zu is not 1, 2 or 4",
                            kFunction, pattern_length);
  }
  HALO_SDK_RETURN_IF_ERROR(check_usage(host, kFunction, "target", target,
                                       HALO_BUFFER_USAGE_TRANSFER_TARGET,
                                       "TRANSFER_TARGET"));
  HALO_SDK_RETURN_IF_ERROR(
      resolve_range(host, kFunction, "target", target.size, offset, length));
  if (offset % pattern_length != 0 || *length % pattern_length != 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: offset %llu and length %llu must be "
                            "multiples of pattern_length %zu",
                            kFunction, static_cast<ull>(offset),
                            static_cast<ull>(*length), pattern_length);
  }
  return HALO_OK;
}

halo_status_t check_update(Host host, const BufferFacts &target,
                           uint64_t offset, uint64_t length) noexcept {
  static const char kFunction[] = "halo_command_buffer_update";
  HALO_SDK_RETURN_IF_ERROR(check_usage(host, kFunction, "target", target,
                                       HALO_BUFFER_USAGE_TRANSFER_TARGET,
                                       "TRANSFER_TARGET"));
  if (length == HALO_WHOLE_BUFFER) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: length must be the size of source, not "
                            "HALO_WHOLE_BUFFER",
                            kFunction);
  }
  return resolve_range(host, kFunction, "target", target.size, offset, &length);
}

halo_status_t check_copy(Host host, const BufferFacts &source,
                         uint64_t source_offset, const BufferFacts &target,
                         uint64_t target_offset, uint64_t length,
                         bool same_buffer) noexcept {
  static const char kFunction[] = "halo_command_buffer_copy";
  HALO_SDK_RETURN_IF_ERROR(check_usage(host, kFunction, "source", source,
                                       HALO_BUFFER_USAGE_TRANSFER_SOURCE,
                                       "TRANSFER_SOURCE"));
  HALO_SDK_RETURN_IF_ERROR(check_usage(host, kFunction, "target", target,
                                       HALO_BUFFER_USAGE_TRANSFER_TARGET,
                                       "TRANSFER_TARGET"));
  if (length == HALO_WHOLE_BUFFER) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: length must be explicit, not "
                            "HALO_WHOLE_BUFFER",
                            kFunction);
  }
  uint64_t source_length = length;
  uint64_t target_length = length;
  HALO_SDK_RETURN_IF_ERROR(resolve_range(host, kFunction, "source", source.size,
                                         source_offset, &source_length));
  HALO_SDK_RETURN_IF_ERROR(resolve_range(host, kFunction, "target", target.size,
                                         target_offset, &target_length));
  if (same_buffer && length != 0 && source_offset < target_offset + length &&
      target_offset < source_offset + length) {
    return host.make_status(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: source [%llu, +%llu) and target [%llu, "
        "+%llu) overlap in one buffer",
        kFunction, static_cast<ull>(source_offset), static_cast<ull>(length),
        static_cast<ull>(target_offset), static_cast<ull>(length));
  }
  return HALO_OK;
}

halo_status_t check_dispatch(Host host, const halo_dispatch_params_t &params,
                             const halo_entry_point_info_t &entry_point,
                             uint32_t entry_point_count) noexcept {
  static const char kFunction[] = "halo_command_buffer_dispatch";
  if (params.entry_point >= entry_point_count) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->entry_point %u is not below the "
                            "executable's %u entry points",
                            kFunction, params.entry_point, entry_point_count);
  }
  if (params.binding_count != entry_point.binding_count) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->binding_count %zu, but entry point "
                            "'%s' takes %u bindings",
                            kFunction, params.binding_count, entry_point.name,
                            entry_point.binding_count);
  }
  if (params.constant_size != entry_point.constant_size) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: params->constant_size %u, but entry point "
                            "'%s' takes %u bytes of constants",
                            kFunction, params.constant_size, entry_point.name,
                            entry_point.constant_size);
  }
  return HALO_OK;
}

halo_status_t check_binding(Host host, size_t index, const BufferFacts &buffer,
                            uint64_t offset, uint64_t *length,
                            uint64_t min_alignment) noexcept {
  static const char kFunction[] = "halo_command_buffer_dispatch";
  char argument[48];
  std::snprintf(argument, sizeof(argument), "params->bindings[%zu]", index);
  HALO_SDK_RETURN_IF_ERROR(check_usage(host, kFunction, argument, buffer,
                                       HALO_BUFFER_USAGE_DISPATCH_STORAGE,
                                       "DISPATCH_STORAGE"));
  if (min_alignment > 1 && offset % min_alignment != 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s.offset %llu is not a multiple of the "
                            "device's min_buffer_alignment %llu",
                            kFunction, argument, static_cast<ull>(offset),
                            static_cast<ull>(min_alignment));
  }
  HALO_SDK_RETURN_IF_ERROR(
      resolve_range(host, kFunction, argument, buffer.size, offset, length));
  if (*length == 0) {
    return host.make_status(HALO_STATUS_INVALID_ARGUMENT, "%s: %s is empty",
                            kFunction, argument);
  }
  return HALO_OK;
}

halo_status_t
check_command_buffer_mode(Host host, halo_command_buffer_mode_t mode) noexcept {
  if (mode == HALO_COMMAND_BUFFER_MODE_ONE_SHOT ||
      mode == HALO_COMMAND_BUFFER_MODE_REUSABLE) {
    return HALO_OK;
  }
  return host.make_status(HALO_STATUS_INVALID_ARGUMENT,
                          "halo_command_buffer_create: mode 0x%x is not "
                          "exactly one of ONE_SHOT and REUSABLE",
                          mode);
}

halo_status_t RecordingState::begin(Host host) noexcept {
  if (state_.load(std::memory_order_relaxed) != kInitial) {
    return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                            "halo_command_buffer_begin: the command buffer "
                            "was already begun (a command buffer is "
                            "recorded once)");
  }
  state_.store(kRecording, std::memory_order_relaxed);
  return HALO_OK;
}

halo_status_t RecordingState::end(Host host) noexcept {
  HALO_SDK_RETURN_IF_ERROR(check_recording(host, "halo_command_buffer_end"));
  // Release: a submit on another thread that sees kExecutable sees every
  // recorded command.
  state_.store(kExecutable, std::memory_order_release);
  return HALO_OK;
}

halo_status_t RecordingState::check_recording(Host host,
                                              const char *function) noexcept {
  if (state_.load(std::memory_order_relaxed) == kRecording)
    return HALO_OK;
  return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                          "%s: the command buffer is not recording (call "
                          "halo_command_buffer_begin first, and record "
                          "before halo_command_buffer_end)",
                          function);
}

halo_status_t RecordingState::acquire_for_submit(Host host,
                                                 size_t index) noexcept {
  uint32_t expected = kExecutable;
  bool ok = mode_ == HALO_COMMAND_BUFFER_MODE_ONE_SHOT
                ? state_.compare_exchange_strong(expected, kConsumed,
                                                 std::memory_order_acquire)
                : state_.load(std::memory_order_acquire) == kExecutable;
  if (ok)
    return HALO_OK;
  if (mode_ == HALO_COMMAND_BUFFER_MODE_ONE_SHOT && expected == kConsumed) {
    return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                            "halo_device_queue_execute: "
                            "info->command_buffers[%zu] is ONE_SHOT and was "
                            "already submitted",
                            index);
  }
  return host.make_status(HALO_STATUS_FAILED_PRECONDITION,
                          "halo_device_queue_execute: "
                          "info->command_buffers[%zu] has not been ended",
                          index);
}

void RecordingState::release_unsubmitted() noexcept {
  if (mode_ == HALO_COMMAND_BUFFER_MODE_ONE_SHOT) {
    state_.store(kExecutable, std::memory_order_release);
  }
}

} // namespace halo::sdk
