// A self-contained host interface for SDK unit tests: a small status
// implementation of its own, a malloc allocator, and object reference
// counting, so the SDK can be tested without libhalo.
#ifndef HALO_SDK_TESTING_FAKE_HOST_HPP_
#define HALO_SDK_TESTING_FAKE_HOST_HPP_

#include <atomic>
#include <cstddef>
#include <string>

#include "halo/plugin.h"
#include "halo/sdk/host.hpp"

namespace halo::sdk::testing {

// Returns the fake host interface (static; valid for the whole process).
const halo_host_interface_t* fake_host_interface() noexcept;
inline Host fake_host() noexcept { return Host(fake_host_interface()); }

// Statuses created and not yet freed; tests check it returns to its start.
long live_statuses() noexcept;
// Allocations made and not yet freed.
long live_allocations() noexcept;
// Blocks until live_allocations() is at most |count|: for a test whose
// objects are freed on another thread, after the last thing it could
// otherwise observe.
void await_live_allocations(long count) noexcept;
// Total allocations ever made (tests check hot paths allocate nothing).
long total_allocations() noexcept;

// Owns one status of the fake host for the duration of a test expression.
class StatusHolder {
 public:
  explicit StatusHolder(halo_status_t status) noexcept : status_(status) {}
  ~StatusHolder();
  StatusHolder(const StatusHolder&) = delete;
  StatusHolder& operator=(const StatusHolder&) = delete;
  halo_status_code_t code() const noexcept;
  std::string message() const;
  halo_status_t get() const noexcept { return status_; }

 private:
  halo_status_t status_;
};

}  // namespace halo::sdk::testing

#endif  // HALO_SDK_TESTING_FAKE_HOST_HPP_
