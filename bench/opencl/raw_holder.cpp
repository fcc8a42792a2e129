#include "raw_holder.hpp"

#include "checks.hpp"

namespace halo::bench {

RawHolder::~RawHolder() {
  for (cl_event event : held_) {
    if (event != nullptr) check_cl(clReleaseEvent(event), "clReleaseEvent");
  }
}

void RawHolder::retire(cl_event event) {
  cl_event& slot = held_[next_];
  if (slot != nullptr) check_cl(clReleaseEvent(slot), "clReleaseEvent");
  slot = event;
  next_ = (next_ + 1) % kHeld;
}

}  // namespace halo::bench
