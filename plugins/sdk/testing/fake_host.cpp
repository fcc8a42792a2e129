// The fake host interface used by the SDK unit tests.
#include "testing/fake_host.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <ctime>

// The fake's own status layout; only this file knows it, as only libhalo
// knows the real one.
struct halo_status_s {
  halo_status_code_t code;
  std::string message;
};

namespace halo::sdk::testing {
namespace {

std::atomic<long> g_live_statuses{0};
std::atomic<long> g_live_allocations{0};
std::atomic<long> g_total_allocations{0};

halo_status_t status_create(halo_status_code_t code, const char* message) {
  if (code == HALO_STATUS_OK) return nullptr;
  g_live_statuses.fetch_add(1);
  return new halo_status_s{code, message != nullptr ? message : ""};
}

halo_status_t status_format(halo_status_code_t code, const char* format, ...) {
  char buffer[1024];
  va_list arguments;
  va_start(arguments, format);
  std::vsnprintf(buffer, sizeof(buffer), format, arguments);
  va_end(arguments);
  return status_create(code, buffer);
}

halo_status_t status_clone(halo_status_t status) {
  return status == nullptr ? nullptr
                           : status_create(status->code,
                                           status->message.c_str());
}

// One status per code that is never freed, like libhalo's.
halo_status_s* immortal_statuses() {
  static halo_status_s* statuses = [] {
    auto* all = new halo_status_s[HALO_STATUS_CODE_COUNT_];
    for (int code = 0; code < HALO_STATUS_CODE_COUNT_; ++code) {
      all[code].code = static_cast<halo_status_code_t>(code);
    }
    return all;
  }();
  return statuses;
}

bool is_immortal(halo_status_t status) {
  halo_status_s* all = immortal_statuses();
  return status >= all && status < all + HALO_STATUS_CODE_COUNT_;
}

halo_status_t status_from_code(halo_status_code_t code) {
  if (code == HALO_STATUS_OK) return nullptr;
  return &immortal_statuses()[code];
}

void status_free(halo_status_t status) {
  if (status == nullptr || is_immortal(status)) return;
  g_live_statuses.fetch_sub(1);
  delete status;
}

halo_status_code_t status_code(halo_status_t status) {
  return status == nullptr ? HALO_STATUS_OK : status->code;
}

const char* status_message(halo_status_t status) {
  return status == nullptr ? "" : status->message.c_str();
}

halo_status_t status_annotate(halo_status_t status, const char* prefix) {
  if (status == nullptr) return nullptr;
  status->message = std::string(prefix) + ": " + status->message;
  return status;
}

void log(void*, halo_log_level_t, const char*) {}

void object_retain(halo_object_t* object) {
  std::atomic_ref<uint32_t>(object->ref_count)
      .fetch_add(1, std::memory_order_relaxed);
}

void object_release(halo_object_t* object) {
  if (object == nullptr) return;
  if (std::atomic_ref<uint32_t>(object->ref_count)
          .fetch_sub(1, std::memory_order_acq_rel) == 1) {
    object->vtable->destroy(object);
  }
}

halo_time_ns_t time_now_ns() {
  struct timespec now = {};
  clock_gettime(CLOCK_MONOTONIC, &now);
  return static_cast<halo_time_ns_t>(now.tv_sec) * 1000000000 + now.tv_nsec;
}

void* allocate(void*, size_t size, size_t alignment) {
  void* pointer = nullptr;
  if (posix_memalign(&pointer, alignment, size == 0 ? 1 : size) != 0) {
    return nullptr;
  }
  g_live_allocations.fetch_add(1);
  g_total_allocations.fetch_add(1);
  return pointer;
}

void deallocate(void*, void* pointer) {
  if (pointer == nullptr) return;
  std::free(pointer);
  g_live_allocations.fetch_sub(1);
  g_live_allocations.notify_all();
}

const halo_host_interface_t kInterface = {
    sizeof(halo_host_interface_t),
    HALO_ABI_VERSION,
    nullptr,
    {sizeof(halo_allocator_t), 0, nullptr, &allocate, &deallocate},
    &status_create,
    &status_format,
    &status_clone,
    &status_free,
    &status_code,
    &status_message,
    &status_annotate,
    &log,
    &object_retain,
    &object_release,
    &time_now_ns,
    &status_from_code,
};

}  // namespace

const halo_host_interface_t* fake_host_interface() noexcept {
  return &kInterface;
}

long live_statuses() noexcept { return g_live_statuses.load(); }
long live_allocations() noexcept { return g_live_allocations.load(); }
void await_live_allocations(long count) noexcept {
  for (long live = g_live_allocations.load(); live > count;
       live = g_live_allocations.load()) {
    g_live_allocations.wait(live);
  }
}
long total_allocations() noexcept { return g_total_allocations.load(); }

StatusHolder::~StatusHolder() { status_free(status_); }

halo_status_code_t StatusHolder::code() const noexcept {
  return status_code(status_);
}

std::string StatusHolder::message() const { return status_message(status_); }

}  // namespace halo::sdk::testing
