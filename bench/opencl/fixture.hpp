// What every benchmark of halo-bench-opencl shares, made once before any
// of them runs: both sides of the one device, and the buffers and kernel
// each side works on. Made up front, so that no repetition pays for an
// allocation, a first touch of memory or a kernel build.
#ifndef HALO_BENCH_OPENCL_FIXTURE_HPP_
#define HALO_BENCH_OPENCL_FIXTURE_HPP_

#include <cstddef>
#include <cstdint>
#include <string>

#include "halo_objects.hpp"
#include "halo_opencl.hpp"
#include "raw_objects.hpp"
#include "raw_opencl.hpp"
#include "settings.hpp"

namespace halo::bench {

// The size of each buffer of the fill and copy benchmarks.
inline constexpr size_t kTransferSize = size_t{64} << 20;
// The small dependent work of the event benchmarks fills one 32-bit word.
inline constexpr size_t kWordSize = sizeof(uint32_t);
// The 4-byte pattern of every fill, on both sides.
inline constexpr uint32_t kPattern = 0x5a5a5a5au;
// The kernel of BM_ClEmptyKernel (cts/testdata/kernels/empty.cl).
inline constexpr char kEmptyKernelName[] = "empty";

// One side's resources: the word the event benchmarks fill, the two
// kTransferSize buffers that fills and copies use, and the empty kernel.
// Where the device's compiler refused the kernel, |empty_error| says why
// and BM_ClEmptyKernel skips that side with it; the other benchmarks run.
struct HaloResources {
  BufferPtr word;
  BufferPtr source;
  BufferPtr target;
  ExecutablePtr empty;
  uint32_t empty_entry = 0;
  std::string empty_error;
};

struct RawResources {
  ClMem word;
  ClMem source;
  ClMem target;
  BuiltKernel empty;
  std::string empty_error;
};

class Fixture {
 public:
  Fixture() = default;
  // Releases the resources before the sides that own their device.
  ~Fixture() = default;
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

  // Opens the halo device of |settings|, the raw side on the same OpenCL
  // device, and makes both sides' resources. Returns false and fills
  // |error| when a device or the kernel file is missing; aborts when a
  // call fails on a device that is there.
  bool open(const Settings& settings, std::string* error);

  HaloOpenCl& halo() { return halo_; }
  RawOpenCl& raw() { return raw_; }
  const HaloResources& halo_resources() const { return halo_resources_; }
  const RawResources& raw_resources() const { return raw_resources_; }

 private:
  void make_halo_resources(const std::string& kernel_source);
  void make_raw_resources(const std::string& kernel_source);

  // Declared before the resources, so destroyed after them.
  HaloOpenCl halo_;
  RawOpenCl raw_;
  HaloResources halo_resources_;
  RawResources raw_resources_;
};

// The fixture the benchmarks use; set by main before they run.
Fixture& fixture();
void set_fixture(Fixture* fixture);

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_FIXTURE_HPP_
