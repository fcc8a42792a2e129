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
#include <vector>

#include "frames.hpp"
#include "halo/halo.hpp"
#include "stage_device.hpp"
#include "stages.hpp"

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
  uint64_t written_offset = 0;
  halo::Buffer buffer;
  halo::CommandBuffer commands;
  halo::Semaphore done;
  Stamp done_at;
};

class Slot {
 public:
  // |devices[i]| runs |specs[i]|.
  Slot(const std::vector<StageSpec>& specs, const std::vector<StageDevice*>& devices,
       const FrameLayout& layout);
  ~Slot();
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

  unsigned char* memory() const { return memory_; }
  const FrameLayout& layout() const { return layout_; }
  size_t stage_count() const { return stages_.size(); }
  SlotStage& stage(size_t index) { return stages_[index]; }
  // Frames started in this slot: the value the stages signal for the
  // newest one.
  uint64_t count() const { return count_; }

  // Counts a new frame in (after decode wrote the memory).
  void next_frame() { ++count_; }
  // Whether stage |index| may be started before the stage before it is
  // done: both devices share the frame's memory, so the stage waits on the
  // device for its input. Otherwise the host copies between them once the
  // earlier stage is done (collect, then start).
  bool starts_on_device(size_t index) const;
  // Starts stage |index| of the current frame behind the stage before it,
  // copying the frame into the device's staging buffer first where it does
  // not share the memory.
  void start(size_t index);
  // Copies what stage |index| wrote back to the frame's memory where its
  // device does not share it; call once the stage is done.
  void collect(size_t index);

 private:
  FrameLayout layout_;
  unsigned char* memory_ = nullptr;
  uint64_t count_ = 0;
  std::vector<SlotStage> stages_;
};

}  // namespace pipeline

#endif  // HALO_PIPELINE_SLOT_HPP_
