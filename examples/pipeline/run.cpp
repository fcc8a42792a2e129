// The two ways of running the pipeline.
#include "run.hpp"

#include <algorithm>
#include <memory>

#include "frames.hpp"
#include "halo/await.hpp"
#include "slot.hpp"

namespace pipeline {
namespace {

FrameLayout layout_for(const std::vector<StageDevice*>& devices, uint32_t elements) {
  uint64_t alignment = 4096;
  for (const StageDevice* device : devices) {
    alignment = std::max({alignment, device->host_allocation_alignment,
                          device->capabilities.min_buffer_alignment});
  }
  return FrameLayout(elements, alignment);
}

void decode_into(Slot& slot, uint64_t frame, FrameTimes& times) {
  times.decode_start = halo_time_now_ns();
  decode(frame, slot.layout(), slot.memory());
  times.decode_end = halo_time_now_ns();
  slot.next_frame();
}

void check(Slot& slot, uint64_t frame, FrameTimes& times) {
  for (size_t i = 0; i < slot.stage_count(); ++i) {
    times.stage_done.push_back(slot.stage(i).done_at.settle());
  }
  times.check_start = halo_time_now_ns();
  slot.collect(slot.stage_count() - 1);
  times.wrong = count_wrong(frame, slot.layout(), slot.memory());
  times.check_end = halo_time_now_ns();
}

// The frames |first|, |first| + |stride|, … of one slot. A stage whose
// input is shared with the stage before it is started at once, waiting for
// it on the device; otherwise the slot awaits that stage and the host
// copies between them. |loop| is where the Task resumes (co_await on a
// fence takes it from the promise).
halo::Task run_slot([[maybe_unused]] halo::RunLoop& loop, Slot& slot, uint32_t first,
                    uint32_t stride, RunResult& result, uint32_t& finished,
                    const Progress& progress) {
  const size_t last = slot.stage_count() - 1;
  for (uint32_t frame = first; frame < result.frames.size(); frame += stride) {
    FrameTimes& times = result.frames[frame];
    decode_into(slot, frame, times);
    for (size_t i = 0; i <= last; ++i) {
      if (!slot.starts_on_device(i)) {
        co_await slot.stage(i - 1).done.reached(slot.count());
        slot.collect(i - 1);
      }
      slot.start(i);
    }
    co_await slot.stage(last).done.reached(slot.count());
    check(slot, frame, times);
    progress(++finished);
  }
}

}  // namespace

RunResult run_awaited(const std::vector<StageSpec>& specs,
                      const std::vector<StageDevice*>& devices, const RunOptions& options,
                      const Progress& progress) {
  const FrameLayout layout = layout_for(devices, options.elements);
  std::vector<std::unique_ptr<Slot>> slots;
  for (uint32_t i = 0; i < std::min(options.in_flight, options.frames); ++i) {
    slots.push_back(std::make_unique<Slot>(specs, devices, layout));
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

RunResult run_host_blocking(const std::vector<StageSpec>& specs,
                            const std::vector<StageDevice*>& devices,
                            const RunOptions& options, const Progress& progress) {
  Slot slot(specs, devices, layout_for(devices, options.elements));
  RunResult result;
  result.frames.resize(options.frames);
  result.start = halo_time_now_ns();
  for (uint32_t frame = 0; frame < options.frames; ++frame) {
    FrameTimes& times = result.frames[frame];
    decode_into(slot, frame, times);
    for (size_t i = 0; i < slot.stage_count(); ++i) {
      slot.start(i);
      slot.stage(i).done.wait(slot.count());
      if (i + 1 < slot.stage_count()) slot.collect(i);
    }
    check(slot, frame, times);
    progress(frame + 1);
  }
  result.end = halo_time_now_ns();
  return result;
}

}  // namespace pipeline
