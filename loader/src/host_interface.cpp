#include "host_interface.hpp"

#include <cstdlib>

#include "object_refs.hpp"

namespace halo::loader {
namespace {

void* host_allocate(void*, size_t size, size_t alignment) {
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  void* pointer = nullptr;
  if (posix_memalign(&pointer, alignment, size == 0 ? 1 : size) != 0) {
    return nullptr;
  }
  return pointer;
}

void host_free(void*, void* pointer) { std::free(pointer); }

// The plugins' own: unchecked, as they retain and release their internal
// objects too (object_refs.hpp).
void host_retain(halo_object_t* object) { retain_object(object); }
void host_release(halo_object_t* object) { release_object(object); }

}  // namespace

halo_host_interface_t make_host_interface(
    void* self,
    void (*log)(void* self, halo_log_level_t level, const char* message),
    const halo_allocator_t* allocator) {
  halo_host_interface_t host = {};
  host.struct_size = sizeof(host);
  host.abi_version = HALO_ABI_VERSION;
  host.self = self;
  // The plugin sees a whole halo_allocator_t of this header, whatever size
  // the application's was: only the 1.0 members exist, and they were given.
  host.allocator.struct_size = sizeof(host.allocator);
  if (allocator != nullptr) {
    host.allocator.self = allocator->self;
    host.allocator.allocate = allocator->allocate;
    host.allocator.free = allocator->free;
  } else {
    host.allocator.allocate = host_allocate;
    host.allocator.free = host_free;
  }
  host.status_create = halo_status_create;
  host.status_format = halo_status_format;
  host.status_clone = halo_status_clone;
  host.status_free = halo_status_free;
  host.status_code = halo_status_code;
  host.status_message = halo_status_message;
  host.status_annotate = halo_status_annotate;
  host.log = log;
  host.object_retain = host_retain;
  host.object_release = host_release;
  host.time_now_ns = halo_time_now_ns;
  host.status_from_code = halo_status_from_code;
  return host;
}

}  // namespace halo::loader
