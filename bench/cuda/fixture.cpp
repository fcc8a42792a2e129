// Opening both sides and making their resources (see fixture.hpp).
#include "fixture.hpp"

#include <cstdio>
#include <utility>

namespace halo::bench {
namespace {

Fixture* g_fixture = nullptr;

// Says on stderr that |benchmark|/|side| will be skipped, and why.
void warn_skip(const char* benchmark, const char* side,
               const std::string& error) {
  std::fprintf(stderr, "halo-bench-cuda: %s/%s will be skipped: %s\n",
               benchmark, side, error.c_str());
}

}  // namespace

Fixture& fixture() { return *g_fixture; }

void set_fixture(Fixture* fixture) { g_fixture = fixture; }

bool Fixture::open(const Settings& settings, std::string* error) {
  // CUDA first: on a machine without a GPU its reason is the one to give.
  if (!raw_.init(error)) return false;
  std::string ptx;
  if (!read_file(settings.kernel, &ptx, error)) {
    *error += " (the empty kernel's PTX; set HALO_BENCH_CUDA_KERNEL)";
    return false;
  }
  if (!halo_.open(settings, error)) return false;
  if (!raw_.open(halo_.info(), error)) return false;
  make_halo_resources(ptx);
  make_raw_resources(ptx);
  return true;
}

void Fixture::make_halo_resources(const std::string& ptx) {
  halo_device_t* device = halo_.device();
  HaloResources& resources = halo_resources_;
  resources.word = make_buffer(device, kWordSize);
  resources.source = make_buffer(device, kTransferSize);
  resources.target = make_buffer(device, kTransferSize);
  // Touches every buffer once, so that their memory is in place before
  // any timed loop, and gives the copy source its contents.
  CommandBufferPtr warm_up = begin_recording(device);
  for (halo_buffer_t* buffer :
       {resources.word.get(), resources.source.get(), resources.target.get()}) {
    check(halo_command_buffer_fill(warm_up.get(), buffer, 0,
                                   halo_buffer_size(buffer), &kPattern,
                                   sizeof(kPattern)),
          "halo_command_buffer_fill");
  }
  end_recording(warm_up.get());
  run_once(device, warm_up.get());

  resources.empty = make_executable(device, ptx, &resources.empty_error);
  halo_entry_point_info_t info = {};
  if (resources.empty == nullptr ||
      !find_entry_point(resources.empty.get(), kEmptyEntryPoint,
                        &resources.empty_entry, &info,
                        &resources.empty_error)) {
    warn_skip("BM_CuEmptyKernel", "halo", resources.empty_error);
    return;
  }
  for (int d = 0; d < 3; ++d) {
    raw_resources_.empty_block[d] = info.workgroup_size[d];
  }
  // One launch before any timed one: the driver loads a module's code
  // lazily, at its first launch.
  CommandBufferPtr dispatch = record_one_workgroup(
      device, resources.empty.get(), resources.empty_entry);
  run_once(device, dispatch.get());
}

void Fixture::make_raw_resources(const std::string& ptx) {
  RawResources& resources = raw_resources_;
  resources.word = DeviceMemory(kWordSize);
  resources.source = DeviceMemory(kTransferSize);
  resources.target = DeviceMemory(kTransferSize);
  // The same first touch as the halo side's.
  const std::pair<CUdeviceptr, size_t> memory[] = {
      {resources.word.get(), kWordSize},
      {resources.source.get(), kTransferSize},
      {resources.target.get(), kTransferSize}};
  for (const auto& [address, size] : memory) {
    check_cu(cuMemsetD32Async(address, kPattern, size / sizeof(kPattern),
                              raw_.stream()),
             "cuMemsetD32Async");
  }
  check_cu(cuStreamSynchronize(raw_.stream()), "cuStreamSynchronize");

  resources.gate = HostWord::make();
  int can_wait = 0;
  check_cu(cuDeviceGetAttribute(&can_wait,
                                CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS,
                                raw_.device()),
           "cuDeviceGetAttribute(CAN_USE_64_BIT_STREAM_MEM_OPS)");
  if (can_wait == 0) {
    resources.wait_value_error =
        "the device cannot wait on 64-bit values from a stream "
        "(CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS is 0)";
    warn_skip("BM_CuHostSignalWake", "native_cuda_prequeued",
              resources.wait_value_error);
  }
  load_raw_kernel(ptx);
}

void Fixture::load_raw_kernel(const std::string& ptx) {
  RawResources& resources = raw_resources_;
  if (!halo_resources_.empty_error.empty()) {
    // The raw launch copies the plugin's block, which only the halo
    // executable reports.
    resources.empty_error =
        "the block size the plugin launches the kernel with is unknown: " +
        halo_resources_.empty_error;
  } else if (load_kernel(ptx, kEmptyPtxFunction, &resources.empty,
                         &resources.empty_error)) {
    const uint32_t* block = resources.empty_block;
    check_cu(cuLaunchKernel(resources.empty.function, 1, 1, 1, block[0],
                            block[1], block[2], 0, raw_.stream(), nullptr,
                            nullptr),
             "cuLaunchKernel");
    check_cu(cuStreamSynchronize(raw_.stream()), "cuStreamSynchronize");
    return;
  }
  warn_skip("BM_CuEmptyKernel", "native_cuda", resources.empty_error);
}

}  // namespace halo::bench
