// An OpenCL library for the tests whose CL_COMPLETE callbacks arrive when
// the test says, in the order it says (held_callback_opencl.hpp).
//
// OpenCL does not order the callbacks of different events, and drivers
// deliver them late (NVIDIA's by milliseconds): a callback may come after
// a host thread has seen the work done, and after the callback of work that
// ran later. This library makes both happen on demand. Like
// in_order_opencl.cpp, it links the real loader, so the plugin finds every
// other entry point there; only clSetEventCallback is its own.
#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 300
#endif
#include "held_callback_opencl.hpp"

#include <CL/cl.h>

#include <algorithm>
#include <condition_variable>
#include <mutex>
#include <thread>
#include <vector>

#include "loader_entry.hpp"

namespace {

using halo_opencl_test::loader_entry;

using Notify = void(CL_CALLBACK*)(cl_event, cl_int, void*);

// A callback held back, and what the device said about its command.
struct Held {
  cl_event event = nullptr;
  Notify notify = nullptr;
  void* user_data = nullptr;
  cl_int status = CL_QUEUED;
};

std::mutex g_mutex;
std::condition_variable g_command_done;
bool g_holding = false;
// In registration order; each owns a reference to its event.
std::vector<Held*> g_held;
// How many of g_held have their command done.
size_t g_done_count = 0;

void CL_CALLBACK on_command_done(cl_event, cl_int status, void* user_data) {
  std::lock_guard<std::mutex> lock(g_mutex);
  auto* held = static_cast<Held*>(user_data);
  held->status = status;
  ++g_done_count;
  g_command_done.notify_all();
}

}  // namespace

extern "C" {

__attribute__((visibility("default"))) cl_int CL_API_CALL
clSetEventCallback(cl_event event, cl_int type, Notify notify,
                   void* user_data) {
  auto set_callback = loader_entry<decltype(&clSetEventCallback)>("clSetEventCallback");
  auto retain = loader_entry<decltype(&clRetainEvent)>("clRetainEvent");
  auto release = loader_entry<decltype(&clReleaseEvent)>("clReleaseEvent");
  if (set_callback == nullptr || retain == nullptr || release == nullptr) {
    return CL_OUT_OF_RESOURCES;
  }
  Held* held = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    if (g_holding && type == CL_COMPLETE && notify != nullptr) {
      held = new Held{event, notify, user_data};
      g_held.push_back(held);
    }
  }
  if (held == nullptr) return set_callback(event, type, notify, user_data);
  retain(event);
  cl_int code = set_callback(event, CL_COMPLETE, &on_command_done, held);
  if (code != CL_SUCCESS) {
    {
      std::lock_guard<std::mutex> lock(g_mutex);
      g_held.erase(std::find(g_held.begin(), g_held.end(), held));
    }
    release(event);
    delete held;
  }
  return code;
}

__attribute__((visibility("default"))) void halo_test_hold_callbacks() {
  std::lock_guard<std::mutex> lock(g_mutex);
  g_holding = true;
}

__attribute__((visibility("default"))) void halo_test_wait_held_commands(
    size_t count) {
  std::unique_lock<std::mutex> lock(g_mutex);
  g_command_done.wait(lock, [count] { return g_done_count >= count; });
}

__attribute__((visibility("default"))) void halo_test_deliver_held_callbacks(
    bool reversed) {
  std::vector<Held*> held;
  {
    std::unique_lock<std::mutex> lock(g_mutex);
    g_command_done.wait(lock, [] { return g_done_count == g_held.size(); });
    held.swap(g_held);
    g_done_count = 0;
    g_holding = false;
  }
  if (reversed) std::reverse(held.begin(), held.end());
  auto release = loader_entry<decltype(&clReleaseEvent)>("clReleaseEvent");
  // On a thread of the library's own, as an implementation delivers them.
  std::thread([&] {
    for (Held* callback : held) {
      callback->notify(callback->event, callback->status, callback->user_data);
      if (release != nullptr) release(callback->event);
      delete callback;
    }
  }).join();
}

}  // extern "C"
