// Buffers of the C++ layer (halo/halo.hpp): halo::Buffer and its typed,
// self-unmapping halo::Mapping, and bindings for dispatches.
#ifndef HALO_BUFFER_HPP_
#define HALO_BUFFER_HPP_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>

#include "halo/object.hpp"

namespace halo {

template <typename T>
class Mapping;

// A buffer (halo/buffer.h). Copies share one buffer. The host reads and
// writes it through map<T>(), whose Mapping ends the mapping when it goes.
// Ordering host access against device work is the application's (buffer.h,
// "Host access"): map after the work's signal is reached, and flush or
// invalidate on memory without HOST_COHERENT.
class Buffer : public Ref<halo_buffer_t, halo_buffer_retain, halo_buffer_release> {
 public:
  using Ref::Ref;

  // Bytes; 0 for an empty Buffer.
  std::uint64_t size() const noexcept { return halo_buffer_size(get()); }

  // Maps |count| elements of T from byte |offset| (HALO_WHOLE_BUFFER: every
  // whole T up to the end) and returns them as a Mapping<T>; a const T maps
  // for reading. Throws FAILED_PRECONDITION for memory that is not
  // HOST_VISIBLE, OUT_OF_RANGE for a range beyond the buffer, and
  // INVALID_ARGUMENT when the mapping is not aligned for T (the buffer
  // starts aligned; |offset| decides the rest).
  template <typename T = std::byte>
  Mapping<T> map(std::uint64_t offset = 0, std::uint64_t count = HALO_WHOLE_BUFFER) const;

  // Makes host writes to [|offset|, |offset| + |length|) visible to device
  // work that starts afterwards; needed without HOST_COHERENT.
  void flush(std::uint64_t offset = 0, std::uint64_t length = HALO_WHOLE_BUFFER) const {
    check(halo_buffer_flush_range(get(), offset, length));
  }
  // Makes device writes to the range, by work already reached, visible to
  // host reads through a mapping made since; needed without HOST_COHERENT.
  void invalidate(std::uint64_t offset = 0, std::uint64_t length = HALO_WHOLE_BUFFER) const {
    check(halo_buffer_invalidate_range(get(), offset, length));
  }
  // The bare map and unmap, for a mapping no scope holds: each map_range
  // needs an unmap_range of the same range. Prefer map<T>().
  [[nodiscard]] void* map_range(std::uint64_t offset, std::uint64_t length) const {
    void* pointer = nullptr;
    check(halo_buffer_map_range(get(), offset, length, &pointer));
    return pointer;
  }
  void unmap_range(std::uint64_t offset, std::uint64_t length) const {
    check(halo_buffer_unmap_range(get(), offset, length));
  }

  // Exports the buffer as a handle of |type| (halo/external.h): an fd the
  // caller owns, or a host pointer valid while the buffer lives. Needs a
  // buffer allocated with HALO_BUFFER_FLAG_EXPORTABLE on a device that
  // exports |type|.
  halo_external_handle_t export_handle(halo_external_handle_type_t type) const {
    halo_external_handle_t handle{};
    handle.struct_size = sizeof(handle);
    check(halo_buffer_export(get(), type, &handle));
    return handle;
  }
};

// A mapped range of a Buffer seen as |size()| elements of T, like a
// std::span<T> (data, size, iteration, indexing; a contiguous range that a
// std::span is made from), that ends the mapping when destroyed. It holds a
// reference to its buffer, so the memory cannot be freed under it, and is
// move-only, since a copy would unmap twice. T is trivially copyable: the
// bytes are the device's. The destructor drops an unmap error (destructors
// do not throw); unmap() reports it.
template <typename T>
class Mapping {
  static_assert(std::is_trivially_copyable_v<std::remove_cv_t<T>>,
                "halo::Mapping<T> needs a trivially copyable T: the bytes are the device's");

 public:
  using element_type = T;
  using value_type = std::remove_cv_t<T>;
  using size_type = std::size_t;
  using pointer = T*;
  using reference = T&;
  using iterator = T*;

  Mapping() noexcept = default;
  Mapping(Mapping&& other) noexcept
      : buffer_(std::move(other.buffer_)),
        offset_(other.offset_),
        data_(std::exchange(other.data_, nullptr)),
        size_(std::exchange(other.size_, 0)) {}
  Mapping& operator=(Mapping&& other) noexcept {
    Mapping(std::move(other)).swap(*this);
    return *this;
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  ~Mapping() {
    if (buffer_) {
      halo_status_free(halo_buffer_unmap_range(buffer_.get(), offset_, size_bytes()));
    }
  }

  T* data() const noexcept { return data_; }
  std::size_t size() const noexcept { return size_; }
  std::size_t size_bytes() const noexcept { return size_ * sizeof(T); }
  bool empty() const noexcept { return size_ == 0; }
  T* begin() const noexcept { return data_; }
  T* end() const noexcept { return data_ + size_; }
  T& operator[](std::size_t index) const noexcept { return data_[index]; }
  // A std::span<T> over the elements, also made by std::span's own range
  // constructor, which refuses a temporary Mapping that would dangle.
  std::span<T> span() const noexcept { return std::span<T>(data_, size_); }
  // The mapped buffer, empty once unmapped, and the mapping's byte offset.
  const Buffer& buffer() const noexcept { return buffer_; }
  std::uint64_t offset() const noexcept { return offset_; }
  // True until unmapped or moved from (a mapping of 0 elements included).
  explicit operator bool() const noexcept { return static_cast<bool>(buffer_); }

  // Buffer::flush and Buffer::invalidate over the mapped range.
  void flush() const {
    check(halo_buffer_flush_range(buffer_.get(), offset_, size_bytes()));
  }
  void invalidate() const {
    check(halo_buffer_invalidate_range(buffer_.get(), offset_, size_bytes()));
  }
  // Ends the mapping now, throwing an error the destructor would drop; the
  // Mapping is empty afterwards, whatever the outcome.
  void unmap() {
    if (!buffer_) {
      return;
    }
    const Buffer buffer = std::move(buffer_);
    const std::uint64_t length = size_bytes();
    data_ = nullptr;
    size_ = 0;
    check(halo_buffer_unmap_range(buffer.get(), offset_, length));
  }
  void swap(Mapping& other) noexcept {
    buffer_.swap(other.buffer_);
    std::swap(offset_, other.offset_);
    std::swap(data_, other.data_);
    std::swap(size_, other.size_);
  }

 private:
  friend class Buffer;
  // Adopts the mapping of |size| elements at |data|, byte |offset| of |buffer|.
  Mapping(Buffer buffer, std::uint64_t offset, T* data, std::size_t size) noexcept
      : buffer_(std::move(buffer)), offset_(offset), data_(data), size_(size) {}

  Buffer buffer_;
  std::uint64_t offset_ = 0;
  T* data_ = nullptr;
  std::size_t size_ = 0;
};

template <typename T>
Mapping<T> Buffer::map(std::uint64_t offset, std::uint64_t count) const {
  constexpr std::uint64_t kElement = sizeof(T);
  if (count == HALO_WHOLE_BUFFER) {
    // Past the end maps 0 bytes at |offset|, which the C API refuses with
    // OUT_OF_RANGE as it would the whole range.
    const std::uint64_t bytes = size();
    count = offset <= bytes ? (bytes - offset) / kElement : 0;
  } else if (count > std::numeric_limits<std::size_t>::max() / kElement) {
    throw Error(HALO_STATUS_OUT_OF_RANGE,
                "halo::Buffer::map: " + std::to_string(count) + " elements of " +
                    std::to_string(kElement) + " bytes overflow a size");
  }
  // The unmap must name the very range mapped, so HALO_WHOLE_BUFFER is
  // resolved here rather than passed on.
  void* pointer = nullptr;
  check(halo_buffer_map_range(get(), offset, count * kElement, &pointer));
  Mapping<T> mapping(*this, offset, static_cast<T*>(pointer), static_cast<std::size_t>(count));
  if (reinterpret_cast<std::uintptr_t>(pointer) % alignof(T) != 0) {
    throw Error(HALO_STATUS_INVALID_ARGUMENT,
                "halo::Buffer::map: offset " + std::to_string(offset) +
                    " is not aligned to the " + std::to_string(alignof(T)) +
                    " bytes the element type needs");
  }
  return mapping;
}

// A binding of bytes [|offset|, |offset| + |length|) of |buffer| to a
// dispatch. Borrows |buffer|: the command buffer retains it when it records
// the dispatch.
inline halo_buffer_binding_t bind(const Buffer& buffer, std::uint64_t offset = 0,
                                  std::uint64_t length = HALO_WHOLE_BUFFER) noexcept {
  return halo_buffer_binding_t{buffer.get(), offset, length};
}

}  // namespace halo

#endif  // HALO_BUFFER_HPP_
