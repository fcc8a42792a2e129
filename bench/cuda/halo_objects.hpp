// Owners of the halo objects the benchmarks make, and the few calls every
// halo side repeats: record a command buffer once, submit it, wait.
#ifndef HALO_BENCH_CUDA_HALO_OBJECTS_HPP_
#define HALO_BENCH_CUDA_HALO_OBJECTS_HPP_

#include <cstdint>
#include <memory>
#include <string>

#include "halo/halo.h"

namespace halo::bench {

// Calls Release on destruction; every halo release function accepts NULL.
template <class T, void (*Release)(T*)>
struct HaloReleaser {
  void operator()(T* object) const { Release(object); }
};

using SemaphorePtr =
    std::unique_ptr<halo_semaphore_t,
                    HaloReleaser<halo_semaphore_t, &halo_semaphore_release>>;
using BufferPtr =
    std::unique_ptr<halo_buffer_t,
                    HaloReleaser<halo_buffer_t, &halo_buffer_release>>;
using CommandBufferPtr = std::unique_ptr<
    halo_command_buffer_t,
    HaloReleaser<halo_command_buffer_t, &halo_command_buffer_release>>;
using ExecutablePtr =
    std::unique_ptr<halo_executable_t,
                    HaloReleaser<halo_executable_t, &halo_executable_release>>;

// One (semaphore, value) pair of a submission.
struct Timepoint {
  halo_semaphore_t* semaphore = nullptr;
  uint64_t value = 0;
};

// Creates a semaphore of |device| with payload |initial_value|.
SemaphorePtr make_semaphore(halo_device_t* device, uint64_t initial_value);

// Allocates a device-local buffer of |size| bytes that fills, copies and
// dispatches may use: cuMemAlloc memory in the plugin, as the raw side's.
BufferPtr make_buffer(halo_device_t* device, uint64_t size);

// Creates an executable of |device| from PTX text |ptx|. Returns NULL and
// fills |error| (the status, with the JIT log) when the device refuses it,
// so that only the benchmarks that dispatch it are lost.
ExecutablePtr make_executable(halo_device_t* device, const std::string& ptx,
                              std::string* error);

// Returns what |executable| reports of its entry point |name| (its ordinal
// in |out_ordinal|): the block size every launch of it uses, which the raw
// side launches with too. Returns false and fills |error| when there is no
// such entry point.
bool find_entry_point(halo_executable_t* executable, const char* name,
                      uint32_t* out_ordinal, halo_entry_point_info_t* out_info,
                      std::string* error);

// Creates a reusable command buffer and begins recording it; record into
// it, then end it with halo_command_buffer_end (through end_recording).
CommandBufferPtr begin_recording(halo_device_t* device);
void end_recording(halo_command_buffer_t* command_buffer);

// Records, in a command buffer of its own, a fill of the first |size|
// bytes of |buffer| with the 4-byte |pattern|; a copy of |size| bytes from
// |source| to |target|; one workgroup of entry point |entry| of
// |executable|. Each is recorded once per benchmark run and submitted per
// iteration.
CommandBufferPtr record_fill(halo_device_t* device, halo_buffer_t* buffer,
                             uint64_t size, uint32_t pattern);
CommandBufferPtr record_copy(halo_device_t* device, halo_buffer_t* source,
                             halo_buffer_t* target, uint64_t size);
CommandBufferPtr record_one_workgroup(halo_device_t* device,
                                      halo_executable_t* executable,
                                      uint32_t entry);

// Submits |command_buffer| (NULL: a barrier) on |device|, waiting for
// |wait| when its semaphore is not NULL and signalling |signal|. Never
// blocks.
void submit(halo_device_t* device, const Timepoint& wait,
            const Timepoint& signal, halo_command_buffer_t* command_buffer);

// Blocks until |timepoint| is reached: a blocking wait (infinite deadline)
// on the semaphore's host value, which the plugin's completion worker sets
// once its cuEventSynchronize on the submission's blocking-sync event
// returns.
void wait(const Timepoint& timepoint);

// Blocks until every submission of |device| has completed.
void wait_idle(halo_device_t* device);

// Runs |command_buffer| once and waits for it, outside any timed loop.
void run_once(halo_device_t* device, halo_command_buffer_t* command_buffer);

}  // namespace halo::bench

#endif  // HALO_BENCH_CUDA_HALO_OBJECTS_HPP_
