// From a handle to the plugin object behind it, checked or not.
//
// A plugin object type T begins with `halo_object_t header` (so the handle
// and the object share an address) and declares its vtable as a public
// static member `kVtable` (a halo_*_vtable_t whose first member is
// `object`). Then:
//
//   struct Buffer {
//     halo_object_t header;
//     static const halo_buffer_vtable_t kVtable;
//     static Buffer* from(halo_buffer_t* b) noexcept {
//       return sdk::object_from<Buffer>(b);
//     }
//     static Buffer* cast(halo_buffer_t* b) noexcept {
//       return sdk::object_cast<Buffer>(b);
//     }
//   };
//
// Use object_from where the handle may be another plugin's (a buffer named
// in a command, a command buffer of a submission) and object_cast where the
// vtable itself routed the call to T (every vtable entry).
#ifndef HALO_SDK_OBJECT_CAST_HPP_
#define HALO_SDK_OBJECT_CAST_HPP_

#include <cassert>

#include "halo/sdk/host.hpp"

namespace halo::sdk {

// True when |handle| (any plugin's, or NULL) is a T: its vtable is T's.
template <class T, class Handle>
bool is_object_of(Handle* handle) noexcept {
  return handle != nullptr && as_object(handle)->vtable == &T::kVtable.object;
}

// Returns the T behind |handle|, or NULL when |handle| is NULL or another
// type's (another plugin's, say). Borrows |handle|.
template <class T, class Handle>
T* object_from(Handle* handle) noexcept {
  return is_object_of<T>(handle) ? reinterpret_cast<T*>(handle) : nullptr;
}

// Returns the T behind |handle|, which must be a T: unchecked in release
// builds (the vtable entries' hot path), asserted in debug builds.
template <class T, class Handle>
T* object_cast(Handle* handle) noexcept {
  assert(is_object_of<T>(handle) && "handle is not of the expected type");
  return reinterpret_cast<T*>(handle);
}

}  // namespace halo::sdk

#endif  // HALO_SDK_OBJECT_CAST_HPP_
