// Running the pipeline over its frames, two ways: stages handed off by
// awaits with several frames in flight (coroutines on a run loop, device
// stages ordered by semaphores and sharing the frames' memory where both
// devices can), and one frame at a time with the host blocking between
// stages. Both record when each frame passed each stage.
#ifndef HALO_PIPELINE_RUN_HPP_
#define HALO_PIPELINE_RUN_HPP_

#include <cstdint>
#include <functional>
#include <vector>

#include "stage_device.hpp"
#include "stages.hpp"

namespace pipeline {

// When one frame passed each stage (CLOCK_MONOTONIC ns), and its check.
struct FrameTimes {
  int64_t decode_start = 0;
  int64_t decode_end = 0;
  // When each device stage's semaphore reached the frame, as a timepoint
  // saw it.
  std::vector<int64_t> stage_done;
  int64_t check_start = 0;
  int64_t check_end = 0;
  size_t wrong = 0;
};

struct RunOptions {
  uint32_t elements = 1u << 20;
  uint32_t frames = 32;
  uint32_t in_flight = 3;
};

struct RunResult {
  std::vector<FrameTimes> frames;
  int64_t start = 0;
  int64_t end = 0;
};

// Called after each frame with the number finished.
using Progress = std::function<void(uint32_t finished)>;

// |devices[i]| runs |specs[i]|.
RunResult run_awaited(const std::vector<StageSpec>& specs,
                      const std::vector<StageDevice*>& devices, const RunOptions& options,
                      const Progress& progress);
RunResult run_host_blocking(const std::vector<StageSpec>& specs,
                            const std::vector<StageDevice*>& devices,
                            const RunOptions& options, const Progress& progress);

}  // namespace pipeline

#endif  // HALO_PIPELINE_RUN_HPP_
