// Counted references of the C++ layer (halo/halo.hpp): halo::Ref over any C
// handle, and halo::Object for an object of any type.
#ifndef HALO_OBJECT_HPP_
#define HALO_OBJECT_HPP_

#include <utility>

#include "halo/status.hpp"

namespace halo {

// Selects the constructor of Ref that adds a reference instead of adopting one.
struct RetainTag {
  explicit RetainTag() = default;
};
inline constexpr RetainTag retain_ref{};

// A counted reference to a C handle of type T. Copying retains, destruction
// releases; a default-constructed or moved-from Ref holds NULL. Not
// synchronised: one Ref must not be assigned from two threads at once, though
// distinct Refs to one object may be used from any thread.
template <typename T, void (*RetainFn)(T*), void (*ReleaseFn)(T*)>
class Ref {
 public:
  using handle_type = T*;

  constexpr Ref() noexcept = default;
  // Adopts |handle|: takes ownership of one reference the caller holds.
  explicit Ref(T* handle) noexcept : handle_(handle) {}
  // Borrows |handle| and holds a new reference to it.
  Ref(RetainTag, T* handle) noexcept : handle_(handle) {
    if (handle_ != nullptr) {
      RetainFn(handle_);
    }
  }
  Ref(const Ref& other) noexcept : Ref(retain_ref, other.handle_) {}
  Ref(Ref&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Ref& operator=(const Ref& other) noexcept {
    Ref(other).swap(*this);
    return *this;
  }
  Ref& operator=(Ref&& other) noexcept {
    Ref(std::move(other)).swap(*this);
    return *this;
  }
  ~Ref() { ReleaseFn(handle_); }

  // Returns the handle, borrowed: valid while *this holds it.
  T* get() const noexcept { return handle_; }
  // Gives up ownership: returns the handle with the reference *this held.
  [[nodiscard]] T* release() noexcept { return std::exchange(handle_, nullptr); }
  // Releases the held reference and adopts |handle|.
  void reset(T* handle = nullptr) noexcept { Ref(handle).swap(*this); }
  void swap(Ref& other) noexcept { std::swap(handle_, other.handle_); }
  explicit operator bool() const noexcept { return handle_ != nullptr; }
  friend bool operator==(const Ref& a, const Ref& b) noexcept {
    return a.handle_ == b.handle_;
  }

 private:
  T* handle_ = nullptr;
};

// A counted reference to any halo object, whatever its type (halo/object.h):
// for code that keeps objects of several types together or asks one its
// type. Every object, a fence included, begins with a halo_object_t, which
// is what makes the cast below valid.
class Object : public Ref<halo_object_t, halo_object_retain, halo_object_release> {
 public:
  using Ref::Ref;
  // Borrows |handle| (a Semaphore, Buffer, Fence …) and holds a new
  // reference to its object.
  template <typename T, void (*RetainFn)(T*), void (*ReleaseFn)(T*)>
  explicit Object(const Ref<T, RetainFn, ReleaseFn>& handle) noexcept
      : Ref(retain_ref, reinterpret_cast<halo_object_t*>(handle.get())) {}

  // The type tag; HALO_OBJECT_TYPE_NONE when empty.
  halo_object_type_t type() const noexcept { return halo_object_type(get()); }
};

}  // namespace halo

#endif  // HALO_OBJECT_HPP_
