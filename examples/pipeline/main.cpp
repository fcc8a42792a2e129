// halo-pipeline: frames streamed through stages on different devices and
// plugins — decode on the host, then filter, combine and blend (stages.hpp)
// each on a device of its own where there are enough, a check on the host —
// with several frames in flight, each stage awaited by a coroutine, the
// frames' memory shared with the devices where they import host memory.
// Every output is checked against a plain C++ reference, and the run is
// repeated with the host blocking between the stages, one frame at a time,
// for comparison.
//
//   halo-pipeline [--frames N] [--in-flight K] [--elements E]
//                 [--plugins filter,combine,blend] [--kernels DIR] [--copy]
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
#include "stages.hpp"

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

void describe(const std::string& stage, const StageDevice& device) {
  std::printf("  %-8s %s: %s (%s), %s\n", stage.c_str(), device.plugin.c_str(),
              device.name.c_str(), device.format.c_str(),
              device.shares_host_memory ? "shares the frames' memory (zero-copy)"
                                        : "host copies in and out");
}

int run(const RunOptions& options, std::vector<StageSpec> specs,
        const std::vector<std::string>& plugins, const std::string& kernels, bool copy) {
  const halo::Registry registry = halo::Registry::create();
  // Each stage takes a device no earlier stage took, where there is one.
  std::vector<StageDevice> devices(specs.size());
  std::vector<long> taken;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (i < plugins.size()) specs[i].plugins.insert(specs[i].plugins.begin(), plugins[i]);
    long index = -1;
    devices[i] = open_stage_device(registry, specs[i].kernel, kernels, specs[i].plugins, taken,
                                   &index);
    taken.push_back(index);
    if (copy) devices[i].shares_host_memory = false;
  }
  std::vector<StageDevice*> stage_devices;
  std::vector<std::string> names;
  for (size_t i = 0; i < specs.size(); ++i) {
    stage_devices.push_back(&devices[i]);
    names.push_back(specs[i].name);
  }
  std::printf("halo-pipeline: %u frames of %u floats, %u in flight\n", options.frames,
              options.elements, options.in_flight);
  std::printf("  decode   host\n");
  for (size_t i = 0; i < specs.size(); ++i) describe(specs[i].name, devices[i]);
  std::printf("  check    host\n");
  // Some drivers compile a kernel at its first dispatch: neither measured
  // run should pay for that.
  RunOptions warm_up = options;
  warm_up.frames = 2;
  run_host_blocking(specs, stage_devices, warm_up, [](uint32_t) {});
  const std::string awaited_name = std::to_string(options.in_flight) + " in flight, awaited";
  const RunResult awaited = run_awaited(specs, stage_devices, options,
                                        progress_line(awaited_name, options.frames));
  const RunResult blocking = run_host_blocking(specs, stage_devices, options,
                                               progress_line("host-blocking", options.frames));
  std::printf("%s", report_table(names, {{awaited_name, &awaited}, {"host-blocking", &blocking}})
                        .c_str());
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
  std::vector<std::string> plugins;
  std::string kernels = default_kernel_folder();
  app.add_option("--frames", options.frames, "frames to stream")->check(CLI::Range(1u, 100000u));
  app.add_option("--in-flight", options.in_flight, "frames in flight at once")
      ->check(CLI::Range(1u, 64u));
  app.add_option("--elements", options.elements, "floats per frame array")
      ->check(CLI::Range(64u, 1u << 26));
  app.add_option("--plugins", plugins,
                 "the plugins to try first for the device stages, in order (filter,combine,"
                 "blend); stages past the list take what is present")
      ->delimiter(',');
  app.add_option("--kernels", kernels, "folder of the saxpy and multiply_add kernels");
  bool copy = false;
  app.add_flag("--copy", copy,
               "hand frames to the devices through staging copies even where they could "
               "share the frames' memory");
  CLI11_PARSE(app, argc, argv);
  try {
    return run(options, device_stages(), plugins, kernels, copy);
  } catch (const halo::Error& error) {
    std::fprintf(stderr, "halo-pipeline: %s: %s\n", halo_status_code_name(error.code()),
                 std::string(error.message()).c_str());
    return 1;
  }
}
