// The controls of held_status_opencl.cpp as a test finds them: with dlsym,
// in the library the plugin loaded (named by HALO_OPENCL_LIBRARY).
#ifndef HALO_TESTS_OPENCL_HELD_STATUS_CONTROLS_HPP_
#define HALO_TESTS_OPENCL_HELD_STATUS_CONTROLS_HPP_

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <type_traits>

#include "held_status_opencl.hpp"

namespace halo_opencl_test {

struct HeldStatusControls {
  decltype(&halo_test_hold_status) hold = nullptr;
  decltype(&halo_test_record_fills) record_fills = nullptr;
  decltype(&halo_test_wait_held_query) wait_held_query = nullptr;
  decltype(&halo_test_wait_status_queries) wait_status_queries = nullptr;
  decltype(&halo_test_answer_fills_from) answer_fills_from = nullptr;
  decltype(&halo_test_queue_fills_until_flush) queue_until_flush = nullptr;
  decltype(&halo_test_flushes) flushes = nullptr;
  decltype(&halo_test_let_status_through) let_through = nullptr;
  decltype(&halo_test_recorded_fills) recorded_fills = nullptr;
  decltype(&halo_test_status_queries) status_queries = nullptr;
  decltype(&halo_test_wait_fills_released) wait_fills_released = nullptr;
  decltype(&halo_test_forget_fills) forget_fills = nullptr;
};

// Finds every control in the library at |path|, which the plugin must have
// loaded already; on failure leaves |*out| all NULL.
inline ::testing::AssertionResult find_held_status_controls(
    const char* path, HeldStatusControls* out) {
  void* library = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
  if (library == nullptr) {
    return ::testing::AssertionFailure()
           << "the plugin did not load " << path
           << "; run with HALO_OPENCL_LIBRARY naming it";
  }
  const char* missing = nullptr;
  auto find = [&](const char* name, auto* function) {
    *function = reinterpret_cast<std::remove_pointer_t<decltype(function)>>(
        dlsym(library, name));
    if (*function == nullptr) missing = name;
  };
  find("halo_test_hold_status", &out->hold);
  find("halo_test_record_fills", &out->record_fills);
  find("halo_test_wait_held_query", &out->wait_held_query);
  find("halo_test_wait_status_queries", &out->wait_status_queries);
  find("halo_test_answer_fills_from", &out->answer_fills_from);
  find("halo_test_queue_fills_until_flush", &out->queue_until_flush);
  find("halo_test_flushes", &out->flushes);
  find("halo_test_let_status_through", &out->let_through);
  find("halo_test_recorded_fills", &out->recorded_fills);
  find("halo_test_status_queries", &out->status_queries);
  find("halo_test_wait_fills_released", &out->wait_fills_released);
  find("halo_test_forget_fills", &out->forget_fills);
  dlclose(library);
  if (missing != nullptr) {
    *out = HeldStatusControls{};
    return ::testing::AssertionFailure() << path << " lacks " << missing;
  }
  return ::testing::AssertionSuccess();
}

}  // namespace halo_opencl_test

#endif  // HALO_TESTS_OPENCL_HELD_STATUS_CONTROLS_HPP_
