/* libhalo_bench_cl_call_timer.so: where a benchmark's OpenCL time goes, on a
 * machine without a profiler (bench/README.md, "OpenCL calls timed").
 *
 * It stands between a caller and the ICD loader for the calls a submission
 * makes, forwards each to the loader's own (the next definition after this
 * library), and adds up per call its count and the nanoseconds spent in it,
 * separately for the process's main thread (the benchmark's timed thread)
 * and for every other thread (the plugin's worker, the driver's callbacks).
 * Every other OpenCL symbol resolves to the loader, which this library
 * depends on. At exit it prints the totals to stderr.
 *
 * The opencl plugin loads it in place of the loader through
 * HALO_OPENCL_LIBRARY; a program linked with the loader, through LD_PRELOAD.
 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>

#define TIMED_CALLS(X)         \
  X(clEnqueueFillBuffer)       \
  X(clEnqueueNDRangeKernel)    \
  X(clEnqueueCopyBuffer)       \
  X(clEnqueueWriteBuffer)      \
  X(clRetainEvent)             \
  X(clReleaseEvent)            \
  X(clGetEventInfo)            \
  X(clSetEventCallback)        \
  X(clWaitForEvents)           \
  X(clFlush)                   \
  X(clCreateUserEvent)         \
  X(clSetUserEventStatus)
#define CALL_TIMER_NAME "cl_call_timer"
#include "call_timer.h"

/* Defines |name| with the return type, parameters and argument names given,
 * forwarding to the next definition and timing the call. */
#define TIMED(type, name, parameters, arguments)                        \
  CL_API_ENTRY type CL_API_CALL name parameters {                       \
    static type(CL_API_CALL * real) parameters = NULL;                  \
    if (real == NULL) real = next_definition(#name);                    \
    const uint64_t start = now_ns();                                    \
    type result = real arguments;                                       \
    add(index_##name, start);                                           \
    return result;                                                      \
  }

TIMED(cl_int, clEnqueueFillBuffer,
      (cl_command_queue queue, cl_mem buffer, const void* pattern,
       size_t pattern_size, size_t offset, size_t size, cl_uint wait_count,
       const cl_event* waits, cl_event* event),
      (queue, buffer, pattern, pattern_size, offset, size, wait_count, waits,
       event))
TIMED(cl_int, clEnqueueNDRangeKernel,
      (cl_command_queue queue, cl_kernel kernel, cl_uint dimensions,
       const size_t* offset, const size_t* global, const size_t* local,
       cl_uint wait_count, const cl_event* waits, cl_event* event),
      (queue, kernel, dimensions, offset, global, local, wait_count, waits,
       event))
TIMED(cl_int, clEnqueueCopyBuffer,
      (cl_command_queue queue, cl_mem source, cl_mem target,
       size_t source_offset, size_t target_offset, size_t size,
       cl_uint wait_count, const cl_event* waits, cl_event* event),
      (queue, source, target, source_offset, target_offset, size, wait_count,
       waits, event))
TIMED(cl_int, clEnqueueWriteBuffer,
      (cl_command_queue queue, cl_mem buffer, cl_bool blocking, size_t offset,
       size_t size, const void* data, cl_uint wait_count,
       const cl_event* waits, cl_event* event),
      (queue, buffer, blocking, offset, size, data, wait_count, waits, event))
TIMED(cl_int, clRetainEvent, (cl_event event), (event))
TIMED(cl_int, clReleaseEvent, (cl_event event), (event))
TIMED(cl_int, clGetEventInfo,
      (cl_event event, cl_event_info name, size_t size, void* value,
       size_t* size_out),
      (event, name, size, value, size_out))
TIMED(cl_int, clSetEventCallback,
      (cl_event event, cl_int status,
       void(CL_CALLBACK* callback)(cl_event, cl_int, void*), void* user_data),
      (event, status, callback, user_data))
TIMED(cl_int, clWaitForEvents, (cl_uint count, const cl_event* events),
      (count, events))
TIMED(cl_int, clFlush, (cl_command_queue queue), (queue))
TIMED(cl_event, clCreateUserEvent, (cl_context context, cl_int* error),
      (context, error))
TIMED(cl_int, clSetUserEventStatus, (cl_event event, cl_int status),
      (event, status))
