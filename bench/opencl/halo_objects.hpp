// Owners of the halo objects the benchmarks make, and the few calls every
// halo side repeats: record a command buffer once, submit it, wait.
#ifndef HALO_BENCH_OPENCL_HALO_OBJECTS_HPP_
#define HALO_BENCH_OPENCL_HALO_OBJECTS_HPP_

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
// dispatches may use: what clCreateBuffer(CL_MEM_READ_WRITE) gives the raw
// side.
BufferPtr make_buffer(halo_device_t* device, uint64_t size);

// Creates an executable of |device| from OpenCL C |source|. Returns NULL
// and fills |error| (the status, with the build log) when the device cannot
// build it: an implementation's compiler may refuse a kernel that others
// take, and that should cost only the benchmarks that dispatch it.
ExecutablePtr make_executable(halo_device_t* device, const std::string& source,
                              std::string* error);

// Returns the ordinal of entry point |name| of |executable|.
uint32_t entry_point(halo_executable_t* executable, const char* name);

// Creates a reusable command buffer and begins recording it; record into
// it, then end it with halo_command_buffer_end (through end_recording).
CommandBufferPtr begin_recording(halo_device_t* device);
void end_recording(halo_command_buffer_t* command_buffer);

// Submits |command_buffer| (NULL: a barrier) on |device|, waiting for
// |wait| when its semaphore is not NULL and signalling |signal|. Never
// blocks.
void submit(halo_device_t* device, const Timepoint& wait,
            const Timepoint& signal, halo_command_buffer_t* command_buffer);

// Blocks until |timepoint| is reached: the same blocking wait (infinite
// deadline) that the raw side's clWaitForEvents is.
void wait(const Timepoint& timepoint);

// Runs |command_buffer| once and waits for it, outside any timed loop.
void run_once(halo_device_t* device, halo_command_buffer_t* command_buffer);

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_HALO_OBJECTS_HPP_
