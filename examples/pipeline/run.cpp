// The two ways of running the pipeline.
#include "run.hpp"

#include <algorithm>
#include <memory>

#include "frames.hpp"
#include "halo/await.hpp"
#include "slot.hpp"

namespace pipeline {
namespace {

FrameLayout layout_for(const StageDevice& filter, const StageDevice& combine,
                       uint32_t elements) {
  uint64_t alignment = 4096;
  for (const StageDevice* device : {&filter, &combine}) {
    alignment = std::max({alignment, device->host_allocation_alignment,
                          device->capabilities.min_buffer_alignment});
  }
  return FrameLayout(elements, alignment);
}

void decode_into(Slot& slot, uint64_t frame, FrameTimes& times) {
  times.decode_start = halo_time_now_ns();
  decode(frame, slot.layout(), slot.memory());
  times.decode_end = halo_time_now_ns();
}

void check(Slot& slot, uint64_t frame, FrameTimes& times) {
  times.filter_done = slot.filter().done_at.settle();
  times.combine_done = slot.combine().done_at.settle();
  times.check_start = halo_time_now_ns();
  slot.finish();
  times.wrong = count_wrong(frame, slot.layout(), slot.memory());
  times.check_end = halo_time_now_ns();
}

// The frames |first|, |first| + |stride|, … of one slot. The combine stage
// waits for the filter on the device where the frame's memory is shared
// end to end; otherwise the host copies between the stages once the
// filter is reached.
halo::Task run_slot(halo::RunLoop& loop, Slot& slot, uint32_t first, uint32_t stride,
                    RunResult& result, uint32_t& finished, const Progress& progress) {
  for (uint32_t frame = first; frame < result.frames.size(); frame += stride) {
    FrameTimes& times = result.frames[frame];
    decode_into(slot, frame, times);
    slot.start_filter();
    if (!slot.shared_end_to_end()) {
      co_await halo::semaphore_reached(slot.filter().done, slot.count(), loop);
    }
    slot.start_combine();
    co_await halo::semaphore_reached(slot.combine().done, slot.count(), loop);
    check(slot, frame, times);
    progress(++finished);
  }
}

}  // namespace

RunResult run_awaited(StageDevice& filter, StageDevice& combine, const RunOptions& options,
                      const Progress& progress) {
  const FrameLayout layout = layout_for(filter, combine, options.elements);
  std::vector<std::unique_ptr<Slot>> slots;
  for (uint32_t i = 0; i < std::min(options.in_flight, options.frames); ++i) {
    slots.push_back(std::make_unique<Slot>(filter, combine, layout));
  }
  RunResult result;
  result.frames.resize(options.frames);
  uint32_t finished = 0;
  halo::RunLoop loop;
  result.start = halo_time_now_ns();
  std::vector<halo::Task> tasks;
  for (uint32_t i = 0; i < slots.size(); ++i) {
    tasks.push_back(run_slot(loop, *slots[i], i, static_cast<uint32_t>(slots.size()), result,
                             finished, progress));
  }
  loop.run_until([&] {
    return std::all_of(tasks.begin(), tasks.end(), [](const halo::Task& task) { return task.done(); });
  });
  result.end = halo_time_now_ns();
  for (const halo::Task& task : tasks) task.rethrow();
  return result;
}

RunResult run_host_blocking(StageDevice& filter, StageDevice& combine,
                            const RunOptions& options, const Progress& progress) {
  Slot slot(filter, combine, layout_for(filter, combine, options.elements));
  RunResult result;
  result.frames.resize(options.frames);
  result.start = halo_time_now_ns();
  for (uint32_t frame = 0; frame < options.frames; ++frame) {
    FrameTimes& times = result.frames[frame];
    decode_into(slot, frame, times);
    slot.start_filter();
    slot.filter().done.wait(slot.count());
    slot.start_combine();
    slot.combine().done.wait(slot.count());
    check(slot, frame, times);
    progress(frame + 1);
  }
  result.end = halo_time_now_ns();
  return result;
}

}  // namespace pipeline
