// The native side of halo-bench-device-wait (device_wait_native.cpp), built
// where the Vulkan loader and the CUDA toolkit are.
#ifndef HALO_BENCH_DEVICE_WAIT_NATIVE_HPP_
#define HALO_BENCH_DEVICE_WAIT_NATIVE_HPP_

#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

namespace halo::bench {

// Registers BM_ThreeHops/|name|/chain_1/{device,host,host_device_signal,
// device_device_signal}/native for the GPU
// whose Vulkan and CUDA devices have |uuid|; each skips, saying why, where
// the set-up fails.
void register_native_three_hops(const uint8_t uuid[16], const std::string& name);

}  // namespace halo::bench

#endif  // HALO_BENCH_DEVICE_WAIT_NATIVE_HPP_
