// The 4-byte fill of one word, on either side: the smallest command the
// device runs. It is the dependent work of the event benchmarks and the
// work of the latency benchmark, where a halo submission without command
// buffers would enqueue nothing at all (event_benchmarks.cpp says why that
// leaves the raw side nothing to compare with). Inline, as it was when only
// event_benchmarks.cpp used it, so that moving it here changed no timed
// loop's code.
#ifndef HALO_BENCH_OPENCL_WORD_FILL_HPP_
#define HALO_BENCH_OPENCL_WORD_FILL_HPP_

#include <CL/cl.h>

#include "checks.hpp"
#include "fixture.hpp"
#include "halo_objects.hpp"

namespace halo::bench {

// Enqueues the 4-byte fill of |word| after |wait_count| events of |waits|;
// returns its event.
inline cl_event enqueue_word_fill(cl_command_queue queue, cl_mem word,
                                  cl_uint wait_count, const cl_event* waits) {
  cl_event done = nullptr;
  check_cl(clEnqueueFillBuffer(queue, word, &kPattern, sizeof(kPattern), 0,
                               kWordSize, wait_count, waits, &done),
           "clEnqueueFillBuffer");
  return done;
}

// Records the 4-byte fill of the halo side's |word| in a reusable command
// buffer, once per benchmark run.
inline CommandBufferPtr record_word_fill(halo_device_t* device,
                                         halo_buffer_t* word) {
  CommandBufferPtr fill = begin_recording(device);
  check(halo_command_buffer_fill(fill.get(), word, 0, kWordSize, &kPattern,
                                 sizeof(kPattern)),
        "halo_command_buffer_fill");
  end_recording(fill.get());
  return fill;
}

}  // namespace halo::bench

#endif  // HALO_BENCH_OPENCL_WORD_FILL_HPP_
