// Running one dispatch: every workgroup of the grid is one call of the
// entry point, spread over the device's worker pool.
#ifndef HALO_CPU_DISPATCH_HPP_
#define HALO_CPU_DISPATCH_HPP_

#include <cstdint>

#include "entry_point.hpp"
#include "worker_pool.hpp"

namespace halo::cpu {

// A dispatch ready to run; everything it points at is owned by the command
// buffer (and the executable it retains) and outlives the run.
struct DispatchWork {
  const EntryPoint* entry_point = nullptr;
  uint32_t workgroup_count[3] = {0, 0, 0};
  // The product of workgroup_count.
  uint64_t workgroups = 0;
  // entry_point->binding_count() buffer addresses (offsets applied).
  void* const* bindings = nullptr;
  // entry_point->constant_size() bytes, 8-byte aligned.
  const uint8_t* constants = nullptr;
};

// Runs every workgroup of |work| on |pool| (with the calling thread) and
// returns when all have run; their writes are then visible to the caller.
void run_dispatch(WorkerPool& pool, const DispatchWork& work) noexcept;

}  // namespace halo::cpu

#endif  // HALO_CPU_DISPATCH_HPP_
