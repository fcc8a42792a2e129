// The controls of held_status_opencl.cpp, an OpenCL library for the tests
// that holds back every answer to a query of a command's execution status
// until the test lets them through, counts the queries of each fill
// enqueued meanwhile, can answer for some of them with a status of the
// test's (a failure, or a command not yet ended), can act as an
// implementation that runs commands only once flushed, counts flushes, and
// tells when the plugin has released their events. The
// plugin loads the library (named by HALO_OPENCL_LIBRARY); a test finds
// these functions in it with dlsym.
#ifndef HALO_TESTS_OPENCL_HELD_STATUS_OPENCL_HPP_
#define HALO_TESTS_OPENCL_HELD_STATUS_OPENCL_HPP_

#include <cstddef>
#include <cstdint>

extern "C" {

// From now on, a clGetEventInfo of CL_EVENT_COMMAND_EXECUTION_STATUS blocks
// until halo_test_let_status_through, and the events of clEnqueueFillBuffer
// are recorded, in enqueue order, each with a reference of the library's.
void halo_test_hold_status();
// From now on the events of clEnqueueFillBuffer are recorded as
// halo_test_hold_status records them, with status queries not held.
void halo_test_record_fills();
// Blocks until the status of recorded fill |index| has been queried
// |count| times (true), or |timeout_ms| passes (false).
bool halo_test_wait_status_queries(size_t index, size_t count,
                                   int64_t timeout_ms);
// From now on a recorded fill answers a status query with CL_QUEUED until
// a clFlush of its queue comes after its enqueue, as an implementation
// that holds enqueued commands back until a flush would.
void halo_test_queue_fills_until_flush();
// How many times clFlush was called.
size_t halo_test_flushes();
// Blocks until some thread is blocked in a held status query.
void halo_test_wait_held_query();
// Queries of the status of recorded fill |first| and every later one
// answer |status| (once let through, while held): a negative cl_int, as an
// implementation answers for a failed command and the commands waiting on
// it, or CL_SUBMITTED or CL_RUNNING, for work that has not ended.
// |first| SIZE_MAX stops it.
void halo_test_answer_fills_from(size_t first, int32_t status);
// Waits (clWaitForEvents, no status query) until every recorded fill has
// completed, then lets every held and later status query through.
void halo_test_let_status_through();
// How many fills were recorded.
size_t halo_test_recorded_fills();
// How many times the status of recorded fill |index| was queried.
size_t halo_test_status_queries(size_t index);
// Waits until the plugin has released every reference it took of a
// recorded fill's event (the enqueue's and its clRetainEvent calls, less
// its clReleaseEvent calls), or |timeout_ms| passes; returns how many fills
// it still holds.
size_t halo_test_wait_fills_released(int64_t timeout_ms);
// Releases the recorded fills, forgets them, and records, answers and
// queues no more.
void halo_test_forget_fills();

}  // extern "C"

#endif  // HALO_TESTS_OPENCL_HELD_STATUS_OPENCL_HPP_
