// The empty kernel's round trip: one workgroup of a kernel that does
// nothing, submitted and waited for, so the figure is the dispatch path
// alone.
//
// Both sides run cts/testdata/kernels/empty.cl, built once before any
// benchmark runs. The plugin enqueues a dispatch as clEnqueueNDRangeKernel
// over three dimensions, the global size being the workgroup count times
// the kernel's reqd_work_group_size, with that size as the local size; the
// raw side enqueues exactly that.
//
// A side whose compiler refused the kernel skips with the reason (see
// fixture.hpp): NVIDIA's OpenCL compiler, for one, fails on kernels without
// parameters when asked for -cl-kernel-arg-info, which the plugin builds
// with to read the bindings.
#include "fixture.hpp"
#include "opencl_benchmarks.hpp"

namespace halo::bench {

void empty_kernel_native(benchmark::State& state) {
  PinnedTimedThread pinned;
  cl_command_queue queue = fixture().raw().queue();
  const RawResources& resources = fixture().raw_resources();
  if (!resources.empty_error.empty()) {
    state.SkipWithError(resources.empty_error.c_str());
    return;
  }
  const BuiltKernel& empty = resources.empty;
  // One workgroup: the global size is the local size.
  const std::array<size_t, 3> global = empty.local_size;
  InstructionCount count(state, 1);
  for (auto _ : state) {
    cl_event done = nullptr;
    check_cl(clEnqueueNDRangeKernel(queue, empty.kernel.get(), 3, nullptr,
                                    global.data(), empty.local_size.data(), 0,
                                    nullptr, &done),
             "clEnqueueNDRangeKernel");
    wait_and_release(done);
  }
}

void empty_kernel_halo(benchmark::State& state) {
  PinnedTimedThread pinned;
  halo_device_t* device = fixture().halo().device();
  const HaloResources& resources = fixture().halo_resources();
  if (!resources.empty_error.empty()) {
    state.SkipWithError(resources.empty_error.c_str());
    return;
  }
  CommandBufferPtr dispatch = begin_recording(device);
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.entry_point = resources.empty_entry;
  params.executable = resources.empty.get();
  params.workgroup_count[0] = 1;
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  check(halo_command_buffer_dispatch(dispatch.get(), &params),
        "halo_command_buffer_dispatch");
  end_recording(dispatch.get());
  SemaphorePtr done = make_semaphore(device, 0);
  uint64_t value = 0;
  InstructionCount count(state, 1);
  for (auto _ : state) {
    ++value;
    submit(device, Timepoint{}, {done.get(), value}, dispatch.get());
    wait({done.get(), value});
  }
  check(halo_device_wait_idle(device, HALO_DEADLINE_INFINITE_FUTURE),
        "halo_device_wait_idle");
}

}  // namespace halo::bench
