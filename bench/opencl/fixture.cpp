// Opening both sides and making their resources (see fixture.hpp).
#include "fixture.hpp"

#include <cstdio>
#include <utility>

namespace halo::bench {
namespace {

Fixture* g_fixture = nullptr;

// Says on stderr that |side| will skip BM_ClEmptyKernel, and why.
void warn_no_kernel(const char* side, const std::string& error) {
  std::fprintf(stderr,
               "halo-bench-opencl: BM_ClEmptyKernel/%s will be skipped: %s\n",
               side, error.c_str());
}

}  // namespace

Fixture& fixture() { return *g_fixture; }

void set_fixture(Fixture* fixture) { g_fixture = fixture; }

bool Fixture::open(const Settings& settings, std::string* error) {
  std::string kernel_source;
  if (!read_file(settings.kernel, &kernel_source, error)) {
    *error += " (the empty kernel; set HALO_BENCH_OPENCL_KERNEL)";
    return false;
  }
  if (!halo_.open(settings, error)) return false;
  if (!raw_.open(halo_.info(), error)) return false;
  make_halo_resources(kernel_source);
  make_raw_resources(kernel_source);
  return true;
}

void Fixture::make_halo_resources(const std::string& kernel_source) {
  halo_device_t* device = halo_.device();
  HaloResources& resources = halo_resources_;
  resources.word = make_buffer(device, kWordSize);
  resources.source = make_buffer(device, kTransferSize);
  resources.target = make_buffer(device, kTransferSize);
  resources.empty =
      make_executable(device, kernel_source, &resources.empty_error);
  if (resources.empty != nullptr) {
    resources.empty_entry =
        entry_point(resources.empty.get(), kEmptyKernelName);
  } else {
    warn_no_kernel("halo", resources.empty_error);
  }
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
}

void Fixture::make_raw_resources(const std::string& kernel_source) {
  RawResources& resources = raw_resources_;
  resources.word = create_buffer(raw_.context(), kWordSize);
  resources.source = create_buffer(raw_.context(), kTransferSize);
  resources.target = create_buffer(raw_.context(), kTransferSize);
  if (!build_kernel(raw_.context(), raw_.device(), kernel_source,
                    kEmptyKernelName, &resources.empty,
                    &resources.empty_error)) {
    warn_no_kernel("native_opencl", resources.empty_error);
  }
  // The same first touch as the halo side's.
  const std::pair<cl_mem, size_t> buffers[] = {
      {resources.word.get(), kWordSize},
      {resources.source.get(), kTransferSize},
      {resources.target.get(), kTransferSize}};
  for (const auto& [buffer, size] : buffers) {
    check_cl(clEnqueueFillBuffer(raw_.queue(), buffer, &kPattern,
                                 sizeof(kPattern), 0, size, 0, nullptr,
                                 nullptr),
             "clEnqueueFillBuffer");
  }
  check_cl(clFinish(raw_.queue()), "clFinish");
}

}  // namespace halo::bench
