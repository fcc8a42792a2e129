// What every benchmark of halo-bench-cuda shares, made once before any of
// them runs: both sides of the one device, and the memory and kernel each
// side works on. Made up front, so that no repetition pays for an
// allocation, a first touch of memory or a module load.
#ifndef HALO_BENCH_CUDA_FIXTURE_HPP_
#define HALO_BENCH_CUDA_FIXTURE_HPP_

#include <cstddef>
#include <cstdint>
#include <string>

#include "halo_cuda.hpp"
#include "halo_objects.hpp"
#include "raw_cuda.hpp"
#include "raw_objects.hpp"
#include "settings.hpp"

namespace halo::bench {

// The size of each buffer of the fill and copy benchmarks.
inline constexpr size_t kTransferSize = size_t{64} << 20;
// The small dependent work of the chain and host-signal benchmarks fills
// one 32-bit word.
inline constexpr size_t kWordSize = sizeof(uint32_t);
// The 4-byte pattern of every fill, on both sides: the plugin replays a
// 4-byte pattern as cuMemsetD32Async, which the raw side calls.
inline constexpr uint32_t kPattern = 0x5a5a5a5au;
// The empty kernel (cts/testdata/kernels/empty.cu): halo names the entry
// point by its source name; the PTX's .entry, which cuModuleGetFunction
// takes, is the C++-mangled one.
inline constexpr char kEmptyEntryPoint[] = "empty";
inline constexpr char kEmptyPtxFunction[] = "_Z5emptyv";

// One side's resources: the word the chain and host-signal benchmarks
// fill, the two kTransferSize buffers that fills and copies use, and the
// empty kernel. Where a side cannot launch the kernel, |empty_error| says
// why and BM_CuEmptyKernel skips that side with it; the other benchmarks
// run.
struct HaloResources {
  BufferPtr word;
  BufferPtr source;
  BufferPtr target;
  ExecutablePtr empty;
  uint32_t empty_entry = 0;
  std::string empty_error;
};

struct RawResources {
  DeviceMemory word;
  DeviceMemory source;
  DeviceMemory target;
  LoadedKernel empty;
  // The block the plugin launches the kernel with (the entry point's
  // workgroup size, from its .reqntid or .maxntid), so both launch alike.
  uint32_t empty_block[3] = {};
  std::string empty_error;
  // The host-written word the pre-issued host-signal variant waits on;
  // |wait_value_error| says why that variant skips when the device cannot
  // wait on a 64-bit value from a stream.
  HostWord gate;
  std::string wait_value_error;
};

class Fixture {
 public:
  Fixture() = default;
  // Makes the raw context current for the raw resources' release, which
  // runs before the sides that own their device.
  ~Fixture() {
    if (raw_.context() != nullptr) cuCtxSetCurrent(raw_.context());
  }
  Fixture(const Fixture&) = delete;
  Fixture& operator=(const Fixture&) = delete;

  // Initialises CUDA, opens the halo device of |settings| and the raw side
  // on the same CUdevice and primary context, and makes both sides'
  // resources. Returns false and fills |error| when CUDA, a device or the
  // kernel file is missing; aborts when a call fails on a device that is
  // there.
  bool open(const Settings& settings, std::string* error);

  HaloCuda& halo() { return halo_; }
  RawCuda& raw() { return raw_; }
  const HaloResources& halo_resources() const { return halo_resources_; }
  const RawResources& raw_resources() const { return raw_resources_; }

 private:
  void make_halo_resources(const std::string& ptx);
  void make_raw_resources(const std::string& ptx);
  void load_raw_kernel(const std::string& ptx);

  // Declared before the resources, so destroyed after them.
  HaloCuda halo_;
  RawCuda raw_;
  HaloResources halo_resources_;
  RawResources raw_resources_;
};

// The fixture the benchmarks use; set by main before they run.
Fixture& fixture();
void set_fixture(Fixture* fixture);

}  // namespace halo::bench

#endif  // HALO_BENCH_CUDA_FIXTURE_HPP_
