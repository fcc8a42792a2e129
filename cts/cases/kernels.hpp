// The test kernels of cts/testdata/kernels (see the README there): finding
// the form that the device under test runs, creating executables from it,
// and recording dispatches of them. Each kernel has one entry point, named
// after the kernel, and processes 64 elements per workgroup in x.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "case_helpers.hpp"

namespace halo::cts {

// One kernel file: its format, path and bytes.
struct KernelFile {
  std::string format;
  std::string path;
  std::vector<uint8_t> bytes;
};

// The formats in |capabilities|.executable_formats, in the device's order.
std::vector<std::string> executable_formats(
    const halo_device_capabilities_t& capabilities);

// Reads <testdata>/kernels/<name>.<format> for the first format the device
// under test lists that has the file. Fails the case, naming the formats
// tried and the folder, when none has: a missing kernel is a broken
// installation or testdata folder, never a reason to skip.
KernelFile find_kernel(Context& context, const std::string& name);

// Creates an executable of |file| on |device|; fails the case unless OK.
ExecutableRef create_executable(halo_device_t* device, const KernelFile& file);

// Creates an executable of kernel |name| on |device| (default: the device
// under test).
ExecutableRef load_kernel(Context& context, const std::string& name,
                          halo_device_t* device = nullptr);

// Workgroups that cover |elements| at 64 elements per workgroup.
inline uint32_t workgroups_for(uint32_t elements) { return (elements + 63) / 64; }

// Dispatch parameters for entry point 0 of |executable| over |workgroups| in
// x. |bindings| and |constants| are borrowed and must outlive the use.
halo_dispatch_params_t dispatch_params(
    halo_executable_t* executable, uint32_t workgroups,
    const std::vector<halo_buffer_binding_t>& bindings, const void* constants,
    uint32_t constant_size);

// Records a dispatch of entry point 0 over whole buffers; fails the case
// unless OK.
void record_dispatch(halo_command_buffer_t* command_buffer,
                     halo_executable_t* executable, uint32_t workgroups,
                     const std::vector<halo_buffer_t*>& buffers,
                     const void* constants, uint32_t constant_size);

// Records a dispatch with a typed constant block.
template <typename Constants>
void record_dispatch(halo_command_buffer_t* command_buffer,
                     halo_executable_t* executable, uint32_t workgroups,
                     const std::vector<halo_buffer_t*>& buffers,
                     const Constants& constants) {
  record_dispatch(command_buffer, executable, workgroups, buffers, &constants,
                  sizeof(constants));
}

// Constant blocks, laid out as each kernel declares them (32-bit scalars in
// order: a C struct, a std430 push-constant block, OpenCL scalar arguments).
struct SaxpyConstants {  // saxpy(y, x)
  float a;
  uint32_t n;
};
struct FillIndexConstants {  // fill_index(out)
  uint32_t base;
  uint32_t n;
};
struct CountConstants {  // multiply_add(out, a, b, c) and add_one(data)
  uint32_t n;
};
struct MixedConstants {  // constants(out)
  uint32_t a;
  int32_t b;
  float c;
  uint32_t d;
  uint32_t n;
};

}  // namespace halo::cts
