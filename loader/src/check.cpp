#include "check.hpp"

namespace halo::loader {

const char* object_type_name(uint32_t type) {
  switch (type) {
    case HALO_OBJECT_TYPE_DRIVER: return "driver";
    case HALO_OBJECT_TYPE_DEVICE: return "device";
    case HALO_OBJECT_TYPE_SEMAPHORE: return "semaphore";
    case HALO_OBJECT_TYPE_BUFFER: return "buffer";
    case HALO_OBJECT_TYPE_COMMAND_BUFFER: return "command buffer";
    case HALO_OBJECT_TYPE_EXECUTABLE: return "executable";
    case HALO_OBJECT_TYPE_FENCE: return "fence";
    default: return "unknown object";
  }
}

halo_status_t null_argument(const char* function, const char* argument) {
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT, "%s: %s is NULL",
                            function, argument);
}

halo_status_t bad_object(const void* object, halo_object_type_t type,
                         uint32_t min_vtable_size, const char* function,
                         const char* argument) {
  if (object == nullptr) return null_argument(function, argument);
  const halo_object_vtable_t* vtable =
      static_cast<const halo_object_t*>(object)->vtable;
  if (vtable == nullptr) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: %s has no vtable (not a halo object)",
                              function, argument);
  }
  if (vtable->type != static_cast<uint32_t>(type)) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "%s: %s must be a %s but is a %s (type 0x%08x)",
                              function, argument, object_type_name(type),
                              object_type_name(vtable->type), vtable->type);
  }
  if (vtable->struct_size < min_vtable_size) {
    return halo_status_format(
        HALO_STATUS_INVALID_ARGUMENT,
        "%s: %s has a %u-byte vtable, smaller than ABI 1.0's %u bytes",
        function, argument, vtable->struct_size, min_vtable_size);
  }
  return halo_status_format(HALO_STATUS_INTERNAL,
                            "%s: %s failed a check that now passes", function,
                            argument);
}

halo_status_t unimplemented(const char* function, const char* what) {
  return halo_status_format(HALO_STATUS_UNIMPLEMENTED,
                            "%s: the device's plugin does not implement %s",
                            function, what);
}

halo_status_t unknown_flags(uint64_t flags, uint64_t known,
                            const char* function, const char* argument) {
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                            "%s: %s has unknown bits 0x%llx", function, argument,
                            static_cast<unsigned long long>(flags & ~known));
}

}  // namespace halo::loader
