// Host interface helpers: status formatting, logging, allocation and the
// exception-to-status conversion every C++ vtable entry relies on.
#include "halo/sdk/host.hpp"

#include <atomic>
#include <cstdio>
#include <exception>

namespace halo::sdk {
namespace {

// Large enough for every message the plugins write; longer ones are cut
// rather than allocated, so that reporting an error never needs memory.
constexpr size_t kMessageCapacity = 1024;

std::atomic<const halo_host_interface_t*> g_current_host{nullptr};

}  // namespace

void set_current_host(const halo_host_interface_t* host) noexcept {
  g_current_host.store(host, std::memory_order_release);
}

const halo_host_interface_t* current_host() noexcept {
  return g_current_host.load(std::memory_order_acquire);
}

bool Host::release_unless_last(halo_object_t* object) noexcept {
  std::atomic_ref<uint32_t> count(object->ref_count);
  uint32_t seen = count.load(std::memory_order_relaxed);
  while (seen > 1) {
    // Release: what this holder did with the object happens before the
    // destroy that the last holder's acquire-release decrement runs.
    if (count.compare_exchange_weak(seen, seen - 1, std::memory_order_release,
                                    std::memory_order_relaxed)) {
      return true;
    }
  }
  return false;
}

halo_status_t Host::make_status(halo_status_code_t code, const char* format,
                                ...) const noexcept {
  va_list arguments;
  va_start(arguments, format);
  halo_status_t status = make_status_v(code, format, arguments);
  va_end(arguments);
  return status;
}

halo_status_t Host::make_status_v(halo_status_code_t code, const char* format,
                                  va_list arguments) const noexcept {
  if (code == HALO_STATUS_OK) return HALO_OK;
  char message[kMessageCapacity];
  std::vsnprintf(message, sizeof(message), format, arguments);
  return interface_->status_create(code, message);
}

void Host::log(halo_log_level_t level, const char* format, ...) const noexcept {
  if (interface_ == nullptr || interface_->log == nullptr) return;
  char message[kMessageCapacity];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(message, sizeof(message), format, arguments);
  va_end(arguments);
  interface_->log(interface_->self, level, message);
}

void* Host::allocate(size_t size, size_t alignment) const noexcept {
  // The allocator contract asks for at least pointer alignment.
  if (alignment < sizeof(void*)) alignment = sizeof(void*);
  return interface_->allocator.allocate(interface_->allocator.self, size,
                                        alignment);
}

halo_status_t status_from_current_exception(Host host) noexcept {
  try {
    throw;
  } catch (const std::bad_alloc&) {
    return host.make_status_text(HALO_STATUS_RESOURCE_EXHAUSTED,
                                 "out of host memory");
  } catch (const std::exception& error) {
    return host.make_status(HALO_STATUS_INTERNAL, "unexpected exception: %s",
                            error.what());
  } catch (...) {
    return host.make_status_text(HALO_STATUS_INTERNAL,
                                 "unexpected exception of unknown type");
  }
}

}  // namespace halo::sdk
