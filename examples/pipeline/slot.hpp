// One frame in flight: its host memory, each device stage's buffer over it
// (an import of that memory where the device shares host memory, else a
// staging buffer of the device's own that the host copies through), the
// stages' recorded command buffers, and a semaphore per stage that counts
// the frames the slot has run through it.
#ifndef HALO_PIPELINE_SLOT_HPP_
#define HALO_PIPELINE_SLOT_HPP_

#include <atomic>
#include <cstdint>
#include <memory>

#include "frames.hpp"
#include "halo/halo.hpp"
#include "stage_device.hpp"

namespace pipeline {

// When a semaphore reached a value, as its timepoint callback saw it.
class Stamp {
 public:
  Stamp() = default;
  Stamp(const Stamp&) = delete;
  Stamp& operator=(const Stamp&) = delete;
  ~Stamp() { settle(); }

  // Notes the time |semaphore| reaches |value|.
  void arm(const halo::Semaphore& semaphore, uint64_t value);
  // The time noted (0 when it failed or never came): cancels the timepoint
  // first, so its callback has finished with this storage.
  int64_t settle();

 private:
  static void on_reached(void* user_data, halo_timepoint_t*, halo_status_t status);

  halo_timepoint_t timepoint_ = {};
  halo::Semaphore semaphore_;
  std::atomic<int64_t> at_{0};
};

// One device stage of one slot.
struct SlotStage {
  StageDevice* device = nullptr;
  halo::Buffer buffer;
  halo::CommandBuffer commands;
  halo::Semaphore done;
  Stamp done_at;
};

class Slot {
 public:
  Slot(StageDevice& filter, StageDevice& combine, const FrameLayout& layout);
  ~Slot();
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  unsigned char* memory() const { return memory_; }
  const FrameLayout& layout() const { return layout_; }
  // Frames started in this slot: the value the stages signal for the
  // newest one.
  uint64_t count() const { return count_; }
  bool shared_end_to_end() const {
    return filter_.device->shares_host_memory && combine_.device->shares_host_memory;
  }
  SlotStage& filter() { return filter_; }
  SlotStage& combine() { return combine_; }

  // Starts the next frame's filter stage (after decode wrote the memory),
  // copying x and y in first where the device does not share the memory.
  void start_filter();
  // Starts its combine stage behind the filter's signal; the copies around
  // it (y out of the filter's staging, x and y into the combine's) need the
  // filter done, which the caller awaits first unless shared_end_to_end().
  void start_combine();
  // Copies out back to the host memory where the combine device does not
  // share it; call once combine is done.
  void finish();

 private:
  void submit(SlotStage& stage, const halo::Semaphore* wait);

  FrameLayout layout_;
  unsigned char* memory_ = nullptr;
  uint64_t count_ = 0;
  SlotStage filter_;
  SlotStage combine_;
};

}  // namespace pipeline

#endif  // HALO_PIPELINE_SLOT_HPP_
