// A list of OpenCL events that owns one reference to each: the wait lists a
// submission builds while it enqueues its commands.
#ifndef HALO_OPENCL_EVENT_LIST_HPP_
#define HALO_OPENCL_EVENT_LIST_HPP_

#include <utility>
#include <vector>

#include "cl_library.hpp"
#include "halo/sdk/host.hpp"

namespace halo::cl {

class EventList {
 public:
  EventList(sdk::Host host, const Api* api)
      : api_(api), events_(sdk::HostAllocator<cl_event>(host)) {}
  ~EventList() { clear(); }
  EventList(const EventList&) = delete;
  EventList& operator=(const EventList&) = delete;

  // Takes ownership of one reference to |event|. Throws std::bad_alloc
  // after releasing it when memory runs out.
  void push(cl_event event) {
    try {
      events_.push_back(event);
    } catch (...) {
      api_->clReleaseEvent(event);
      throw;
    }
  }
  // Releases every event.
  void clear() noexcept {
    for (cl_event event : events_) api_->clReleaseEvent(event);
    events_.clear();
  }
  void swap(EventList& other) noexcept { events_.swap(other.events_); }
  // The one event of a list of one, its reference now the caller's; the
  // list is then empty.
  cl_event take_only() noexcept {
    cl_event event = events_.front();
    events_.clear();
    return event;
  }

  bool empty() const noexcept { return events_.empty(); }
  cl_uint size() const noexcept { return static_cast<cl_uint>(events_.size()); }
  // NULL when empty, as OpenCL wants for an empty wait list.
  const cl_event* data() const noexcept {
    return events_.empty() ? nullptr : events_.data();
  }

 private:
  const Api* api_;
  std::vector<cl_event, sdk::HostAllocator<cl_event>> events_;
};

}  // namespace halo::cl

#endif  // HALO_OPENCL_EVENT_LIST_HPP_
