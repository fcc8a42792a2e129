// One workgroup of the empty kernel (cts/testdata/kernels/empty.comp, the
// same SPIR-V file on both sides): a command buffer recorded once, then
// submitted and waited on per iteration, so the figure is the cost of a
// dispatch's round trip.
//
// The raw pipeline has no descriptor set, as an application would make it
// for a kernel without bindings; the plugin's always has one set (empty
// here) that it binds before the dispatch. That bind is part of the halo
// figure.
#include <utility>

#include "halo_objects.hpp"
#include "raw_objects.hpp"
#include "vulkan_benchmarks.hpp"

namespace halo::bench {
namespace {

// The entry point's name in the SPIR-V (glslangValidator -e empty).
constexpr char kEntryPoint[] = "empty";

std::vector<uint32_t>& kernel_words() {
  static std::vector<uint32_t> words;
  return words;
}

}  // namespace

void set_empty_kernel(std::vector<uint32_t> spirv) {
  kernel_words() = std::move(spirv);
}

const std::vector<uint32_t>& empty_kernel() { return kernel_words(); }

namespace {

// The raw empty dispatch; |how|: whether and how each submission is also
// retired as it ends (RawRetirer).
void empty_dispatch_raw(benchmark::State& state, Retiring how) {
  std::unique_ptr<RawRetirer> retirer = retirer_if(how);
  PinTimedThread pin;
  const RawDevice& raw = raw_device();
  RawPipeline pipeline(empty_kernel(), kEntryPoint);
  RawCommands commands;
  raw.vk.vkCmdBindPipeline(commands.get(), VK_PIPELINE_BIND_POINT_COMPUTE,
                           pipeline.get());
  raw.vk.vkCmdDispatch(commands.get(), 1, 1, 1);
  commands.end();
  RawSemaphore done;
  uint64_t value = 0;
  run_timed(state, [&] {
    ++value;
    raw_submit(raw, VK_NULL_HANDLE, 0, done.get(), value, commands.get(),
               retirer.get());
    raw_wait(raw, done.get(), value);
  });
  raw_finish_run(raw);
}

}  // namespace

void empty_dispatch_native(benchmark::State& state) {
  empty_dispatch_raw(state, Retiring::kNo);
}

void empty_dispatch_native_retiring(benchmark::State& state) {
  empty_dispatch_raw(state, Retiring::kWaiting);
}

void empty_dispatch_native_retiring_polling(benchmark::State& state) {
  empty_dispatch_raw(state, Retiring::kPolling);
}

void empty_dispatch_halo(benchmark::State& state) {
  HaloDeviceScope device;
  PinTimedThread pin;
  HaloExecutable executable(device.get(), empty_kernel());
  HaloCommands commands(device.get());
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.entry_point = executable.entry_point(kEntryPoint);
  params.executable = executable.get();
  params.workgroup_count[0] = 1;
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  check_halo(halo_command_buffer_dispatch(commands.get(), &params),
             "halo_command_buffer_dispatch");
  commands.end();
  HaloSemaphore done(device.get());
  uint64_t value = 0;
  run_timed(state, [&] {
    ++value;
    halo_submit(device.get(), nullptr, 0, done.get(), value, commands.get());
    halo_wait(done.get(), value);
  });
}

}  // namespace halo::bench
