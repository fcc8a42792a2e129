// A list of OpenCL events that owns one reference to each, or borrows the
// first few: the wait lists a submission builds while it enqueues its
// commands.
#ifndef HALO_OPENCL_EVENT_LIST_HPP_
#define HALO_OPENCL_EVENT_LIST_HPP_

#include <array>
#include <cstddef>
#include <utility>
#include <vector>

#include "cl_library.hpp"
#include "halo/sdk/host.hpp"

namespace halo::cl {

class EventList {
 public:
  EventList(sdk::Host host, const Api* api)
      : api_(api), overflow_(sdk::HostAllocator<cl_event>(host)) {}
  ~EventList() { clear(); }
  EventList(const EventList&) = delete;
  EventList& operator=(const EventList&) = delete;

  // Takes ownership of one reference to |event|. Throws std::bad_alloc
  // after releasing it when memory runs out.
  void push(cl_event event) {
    try {
      append(event);
    } catch (...) {
      api_->clReleaseEvent(event);
      throw;
    }
  }
  // Adds |event| without a reference of its own: the caller keeps it alive
  // until the list lets go of it (clear, or the list's end). Only before
  // any pushed event. Throws std::bad_alloc.
  void push_borrowed(cl_event event) {
    append(event);
    ++borrowed_;
  }
  // Releases every event it owns and forgets the borrowed ones.
  void clear() noexcept {
    const cl_event* events = data();
    for (size_t i = borrowed_; i < size_; ++i) api_->clReleaseEvent(events[i]);
    size_ = 0;
    borrowed_ = 0;
    overflow_.clear();
  }
  void swap(EventList& other) noexcept {
    inline_.swap(other.inline_);
    overflow_.swap(other.overflow_);
    std::swap(size_, other.size_);
    std::swap(borrowed_, other.borrowed_);
  }
  // The one event of a list of one, its reference now the caller's; the
  // list is then empty. A borrowed one is retained first; when that fails,
  // returns clRetainEvent's error and leaves the list as it was.
  cl_int take_only(cl_event* out) noexcept {
    cl_event event = data()[0];
    if (borrowed_ != 0) {
      if (cl_int code = api_->clRetainEvent(event); code != CL_SUCCESS) {
        return code;
      }
    }
    *out = event;
    size_ = 0;
    borrowed_ = 0;
    overflow_.clear();
    return CL_SUCCESS;
  }

  bool empty() const noexcept { return size_ == 0; }
  cl_uint size() const noexcept { return static_cast<cl_uint>(size_); }
  // NULL when empty, as OpenCL wants for an empty wait list.
  const cl_event* data() const noexcept {
    if (size_ == 0) return nullptr;
    return overflow_.empty() ? inline_.data() : overflow_.data();
  }

 private:
  // A submission's wait list and a segment's events are mostly one or two:
  // those need no allocation per submission.
  static constexpr size_t kInline = 4;

  void append(cl_event event) {
    if (overflow_.empty() && size_ < kInline) {
      inline_[size_++] = event;
      return;
    }
    if (overflow_.empty()) {
      overflow_.assign(inline_.begin(), inline_.begin() + size_);
    }
    overflow_.push_back(event);
    size_ = overflow_.size();
  }

  const Api* api_;
  std::array<cl_event, kInline> inline_{};
  size_t size_ = 0;
  // The first |borrowed_| events are not the list's to release.
  size_t borrowed_ = 0;
  // Holds every event, the first kInline too, once there are more.
  std::vector<cl_event, sdk::HostAllocator<cl_event>> overflow_;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_EVENT_LIST_HPP_
