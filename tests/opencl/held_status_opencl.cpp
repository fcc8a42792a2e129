// An OpenCL library for the tests whose status queries are answered when
// the test says (held_status_opencl.hpp).
//
// The opencl plugin's worker learns that work ended by querying its
// completion event, and it skips the query of a submission whose end a
// newer one shows (plugins/opencl/queue.hpp). Which queries it makes
// depends on timing, unless a query blocks: then every submission issued
// meanwhile is in the worker's hands before any answer comes. Like
// held_callback_opencl.cpp, it links the real loader, so the plugin finds
// every other entry point there.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include "held_status_opencl.hpp"

#include <CL/cl.h>

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "loader_entry.hpp"

namespace {

using halo_opencl_test::loader_entry;

struct Fill {
  cl_event event = nullptr;
  size_t status_queries = 0;
  // The references the plugin holds: the enqueue's, and its own retains
  // less its releases. The library's own reference is not among them, nor
  // any the implementation takes inside (PoCL's queue keeps its last
  // command's event).
  int64_t plugin_references = 1;
  // The queue it was enqueued in, and whether a clFlush of that queue came
  // after (halo_test_queue_fills_until_flush).
  cl_command_queue queue = nullptr;
  bool flushed = false;
};

std::mutex g_mutex;
std::condition_variable g_let_through;
std::condition_variable g_query_held;
// Notified after every clReleaseEvent of the plugin's.
std::condition_variable g_released;
// Notified after every status query of a recorded fill.
std::condition_variable g_queried;
bool g_holding = false;
bool g_recording = false;
bool g_queue_until_flush = false;
size_t g_flushes = 0;
size_t g_held_queries = 0;
// Recorded fills from this index on answer g_failure.
size_t g_first_failed = SIZE_MAX;
cl_int g_failure = CL_SUCCESS;
// In enqueue order; each holds a reference of its event, so that no later
// event takes its address.
std::vector<Fill> g_fills;

// Adds |change| to the plugin's references of |event| when it is a
// recorded fill's. With g_mutex held.
void count_plugin_reference(cl_event event, int64_t change) {
  for (Fill& fill : g_fills) {
    if (fill.event == event) fill.plugin_references += change;
  }
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) cl_int CL_API_CALL
clGetEventInfo(cl_event event, cl_event_info name, size_t size, void* value,
               size_t* size_ret) {
  auto get_info = loader_entry<decltype(&clGetEventInfo)>("clGetEventInfo");
  if (get_info == nullptr) return CL_OUT_OF_RESOURCES;
  if (name != CL_EVENT_COMMAND_EXECUTION_STATUS) {
    return get_info(event, name, size, value, size_ret);
  }
  std::unique_lock<std::mutex> lock(g_mutex);
  if (g_holding) {
    ++g_held_queries;
    g_query_held.notify_all();
    g_let_through.wait(lock, [] { return !g_holding; });
  }
  for (size_t i = 0; i < g_fills.size(); ++i) {
    if (g_fills[i].event != event) continue;
    ++g_fills[i].status_queries;
    g_queried.notify_all();
    cl_int answer = CL_SUCCESS;
    if (i >= g_first_failed) {
      answer = g_failure;
    } else if (g_queue_until_flush && !g_fills[i].flushed) {
      answer = CL_QUEUED;
    }
    if (answer != CL_SUCCESS && value != nullptr && size >= sizeof(cl_int)) {
      *static_cast<cl_int*>(value) = answer;
      if (size_ret != nullptr) *size_ret = sizeof(cl_int);
      return CL_SUCCESS;
    }
  }
  lock.unlock();
  return get_info(event, name, size, value, size_ret);
}

__attribute__((visibility("default"))) cl_int CL_API_CALL clEnqueueFillBuffer(
    cl_command_queue queue, cl_mem buffer, const void* pattern,
    size_t pattern_size, size_t offset, size_t size, cl_uint wait_count,
    const cl_event* waits, cl_event* event) {
  auto fill = loader_entry<decltype(&clEnqueueFillBuffer)>("clEnqueueFillBuffer");
  auto retain = loader_entry<decltype(&clRetainEvent)>("clRetainEvent");
  if (fill == nullptr || retain == nullptr) return CL_OUT_OF_RESOURCES;
  cl_int code = fill(queue, buffer, pattern, pattern_size, offset, size,
                     wait_count, waits, event);
  if (code != CL_SUCCESS || event == nullptr) return code;
  std::lock_guard<std::mutex> lock(g_mutex);
  if ((g_holding || g_recording) && retain(*event) == CL_SUCCESS) {
    Fill recorded;
    recorded.event = *event;
    recorded.queue = queue;
    g_fills.push_back(recorded);
  }
  return code;
}

__attribute__((visibility("default"))) cl_int CL_API_CALL
clFlush(cl_command_queue queue) {
  auto flush = loader_entry<decltype(&clFlush)>("clFlush");
  if (flush == nullptr) return CL_OUT_OF_RESOURCES;
  std::lock_guard<std::mutex> lock(g_mutex);
  ++g_flushes;
  for (Fill& fill : g_fills) fill.flushed |= fill.queue == queue;
  return flush(queue);
}

__attribute__((visibility("default"))) cl_int CL_API_CALL
clRetainEvent(cl_event event) {
  auto retain = loader_entry<decltype(&clRetainEvent)>("clRetainEvent");
  if (retain == nullptr) return CL_OUT_OF_RESOURCES;
  const cl_int code = retain(event);
  std::lock_guard<std::mutex> lock(g_mutex);
  if (code == CL_SUCCESS) count_plugin_reference(event, 1);
  return code;
}

__attribute__((visibility("default"))) cl_int CL_API_CALL
clReleaseEvent(cl_event event) {
  auto release = loader_entry<decltype(&clReleaseEvent)>("clReleaseEvent");
  if (release == nullptr) return CL_OUT_OF_RESOURCES;
  std::lock_guard<std::mutex> lock(g_mutex);
  // Under the lock, so that the event is still the recorded one: the
  // library's own reference keeps it alive.
  const cl_int code = release(event);
  if (code == CL_SUCCESS) count_plugin_reference(event, -1);
  g_released.notify_all();
  return code;
}

__attribute__((visibility("default"))) void halo_test_hold_status() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_holding = true;
}

__attribute__((visibility("default"))) void halo_test_record_fills() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_recording = true;
}

__attribute__((visibility("default"))) bool halo_test_wait_status_queries(
    size_t index, size_t count, int64_t timeout_ms) {
  std::unique_lock<std::mutex> lock(g_mutex);
  return g_queried.wait_for(lock, std::chrono::milliseconds(timeout_ms), [&] {
    return index < g_fills.size() && g_fills[index].status_queries >= count;
  });
}

__attribute__((visibility("default"))) void
halo_test_queue_fills_until_flush() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_queue_until_flush = true;
}

__attribute__((visibility("default"))) size_t halo_test_flushes() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_flushes;
}

__attribute__((visibility("default"))) void halo_test_wait_held_query() {
  std::unique_lock<std::mutex> lock(g_mutex);
  g_query_held.wait(lock, [] { return g_held_queries > 0; });
}

__attribute__((visibility("default"))) void halo_test_answer_fills_from(
    size_t first, int32_t status) {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_first_failed = first;
  g_failure = status;
}

__attribute__((visibility("default"))) void halo_test_let_status_through() {
  auto wait = loader_entry<decltype(&clWaitForEvents)>("clWaitForEvents");
  std::vector<cl_event> events;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (const Fill& fill : g_fills) events.push_back(fill.event);
  }
  if (wait != nullptr && !events.empty()) {
    wait(static_cast<cl_uint>(events.size()), events.data());
  }
  std::lock_guard<std::mutex> lock(g_mutex);
  g_holding = false;
  g_let_through.notify_all();
}

__attribute__((visibility("default"))) size_t halo_test_recorded_fills() {
  std::lock_guard<std::mutex> lock(g_mutex);
  return g_fills.size();
}

__attribute__((visibility("default"))) size_t halo_test_status_queries(
    size_t index) {
  std::lock_guard<std::mutex> lock(g_mutex);
  return index < g_fills.size() ? g_fills[index].status_queries : 0;
}

__attribute__((visibility("default"))) size_t halo_test_wait_fills_released(
    int64_t timeout_ms) {
  // With g_mutex held: how many recorded fills the plugin still holds.
  const auto still_held = [] {
    size_t held = 0;
    for (const Fill& fill : g_fills) held += fill.plugin_references > 0;
    return held;
  };
  std::unique_lock<std::mutex> lock(g_mutex);
  g_released.wait_for(lock, std::chrono::milliseconds(timeout_ms),
                      [&] { return still_held() == 0; });
  return still_held();
}

__attribute__((visibility("default"))) void halo_test_forget_fills() {
  auto release = loader_entry<decltype(&clReleaseEvent)>("clReleaseEvent");
  std::vector<Fill> fills;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    fills.swap(g_fills);
    g_held_queries = 0;
    g_first_failed = SIZE_MAX;
    g_failure = CL_SUCCESS;
    g_recording = false;
    g_queue_until_flush = false;
  }
  for (const Fill& fill : fills) {
    if (release != nullptr) release(fill.event);
  }
}

}  // extern "C"
