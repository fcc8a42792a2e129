// halo-pipeline: frames streamed through stages on different devices and
// plugins — decode on the host, a filter (saxpy) on one device, a combine
// (multiply_add) on another, a check on the host — with several frames in
// flight, each stage awaited by a coroutine, the frames' memory shared with
// the devices where they import host memory. Every output is checked
// against a plain C++ reference, and the run is repeated with the host
// blocking between the stages, one frame at a time, for comparison.
//
//   halo-pipeline [--frames N] [--in-flight K] [--elements E]
//                 [--filter-plugins a,b] [--combine-plugins a,b] [--kernels DIR]
//                 [--copy]
//
// Exit status 0 when every frame of both runs matches the reference.
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "report.hpp"
#include "run.hpp"
#include "stage_device.hpp"

namespace {

using namespace pipeline;

// A progress line on a terminal, rewritten in place; nothing otherwise.
Progress progress_line(const std::string& name, uint32_t frames) {
  if (!isatty(STDERR_FILENO)) return [](uint32_t) {};
  return [name, frames](uint32_t finished) {
    std::fprintf(stderr, "\rhalo-pipeline: %s: frame %u of %u", name.c_str(), finished, frames);
    if (finished == frames) std::fprintf(stderr, "\n");
  };
}

void describe(const char* stage, const StageDevice& device) {
  std::printf("  %-8s %s: %s (%s), %s\n", stage, device.plugin.c_str(), device.name.c_str(),
              device.format.c_str(),
              device.shares_host_memory ? "shares the frames' memory (zero-copy)"
                                        : "host copies in and out");
}

int run(const RunOptions& options, const std::vector<std::string>& filter_plugins,
        const std::vector<std::string>& combine_plugins, const std::string& kernels,
        bool copy) {
  const halo::Registry registry = halo::Registry::create();
  long filter_index = -1;
  long combine_index = -1;
  StageDevice filter =
      open_stage_device(registry, "saxpy", kernels, filter_plugins, -1, &filter_index);
  StageDevice combine = open_stage_device(registry, "multiply_add", kernels, combine_plugins,
                                          filter_index, &combine_index);
  if (copy) filter.shares_host_memory = combine.shares_host_memory = false;
  std::printf("halo-pipeline: %u frames of %u floats, %u in flight\n", options.frames,
              options.elements, options.in_flight);
  std::printf("  decode   host\n");
  describe("filter", filter);
  describe("combine", combine);
  std::printf("  check    host\n");
  // Some drivers compile a kernel at its first dispatch: neither measured
  // run should pay for that.
  RunOptions warm_up = options;
  warm_up.frames = 2;
  run_host_blocking(filter, combine, warm_up, [](uint32_t) {});
  const std::string awaited_name = std::to_string(options.in_flight) + " in flight, awaited";
  const RunResult awaited =
      run_awaited(filter, combine, options, progress_line(awaited_name, options.frames));
  const RunResult blocking = run_host_blocking(filter, combine, options,
                                               progress_line("host-blocking", options.frames));
  std::printf("%s", report_table({{awaited_name, &awaited}, {"host-blocking", &blocking}}).c_str());
  const size_t wrong = frames_wrong(awaited) + frames_wrong(blocking);
  if (wrong != 0) {
    std::printf("halo-pipeline: FAILED: %zu frame(s) differ from the reference\n", wrong);
    return 1;
  }
  std::printf("halo-pipeline: OK: %u frames, every element matches the reference\n",
              2 * options.frames);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Frames streamed through stages on different devices and plugins"};
  RunOptions options;
  std::vector<std::string> filter_plugins = {"vulkan", "cuda", "opencl", "cpu"};
  std::vector<std::string> combine_plugins = {"opencl", "cuda", "vulkan", "cpu"};
  std::string kernels = default_kernel_folder();
  app.add_option("--frames", options.frames, "frames to stream")->check(CLI::Range(1u, 100000u));
  app.add_option("--in-flight", options.in_flight, "frames in flight at once")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--elements", options.elements, "floats per frame array")
      ->check(CLI::Range(64u, 1u << 26));
  app.add_option("--filter-plugins", filter_plugins, "plugins to try for the filter, in order")
      ->delimiter(',');
  app.add_option("--combine-plugins", combine_plugins,
                 "plugins to try for the combine, in order")
      ->delimiter(',');
  app.add_option("--kernels", kernels, "folder of the saxpy and multiply_add kernels");
  bool copy = false;
  app.add_flag("--copy", copy,
               "hand frames to the devices through staging copies even where they could "
               "share the frames' memory");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options, filter_plugins, combine_plugins, kernels, copy);
  } catch (const halo::Error& error) {
    std::fprintf(stderr, "halo-pipeline: %s: %s\n", halo_status_code_name(error.code()),
                 std::string(error.message()).c_str());
    return 1;
  }
}
