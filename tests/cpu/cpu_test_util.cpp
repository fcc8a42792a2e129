// Shared helpers of the cpu plugin tests.
#include "cpu_test_util.hpp"

#if defined(__SANITIZE_ADDRESS__)
// GCC 12's sanitizer runtime mistakes some dynamic TLS blocks (those of the
// dlopen'ed plugin's thread_local variables) for glibc 2.19 ones when the
// block happens to start 16 bytes into a page, and hands LeakSanitizer a
// garbage range that crashes its tracer at exit (google/sanitizers#1322;
// fixed in LLVM 17). Turning off that interception is the documented
// workaround; only leaks held solely in dynamic TLS go unnoticed. A hook
// rather than an environment variable, so any way of running the binary gets
// it.
extern "C" __attribute__((visibility("default"), used)) const char*
__asan_default_options() {
  return "intercept_tls_get_addr=0";
}
#endif

namespace halo_cpu_test {

std::string Status::describe() const {
  if (ok()) return "OK";
  return std::string(halo_status_code_name(code())) + ": " + message();
}

halo_time_ns_t deadline_in_ms(int64_t milliseconds) {
  return halo_deadline_after_ns(milliseconds * 1000000);
}

void CpuTest::SetUp() {
  const char* paths[] = {HALO_TEST_CPU_MANIFEST};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  HALO_ASSERT_OK(halo_registry_create(&options, &registry_));
  HALO_ASSERT_OK(halo_registry_find_driver(registry_, "cpu", &driver_));
  HALO_ASSERT_OK(halo_driver_create_device(driver_, 0, nullptr, &device_));
}

void CpuTest::TearDown() {
  halo_device_release(device_);
  halo_driver_release(driver_);
  halo_registry_release(registry_);
}

SemaphorePtr CpuTest::make_semaphore(uint64_t initial_value) {
  halo_semaphore_t* semaphore = nullptr;
  HALO_EXPECT_OK(halo_semaphore_create(device_, initial_value,
                                       HALO_SEMAPHORE_FLAG_NONE, &semaphore));
  return SemaphorePtr(semaphore);
}

std::vector<SemaphorePtr> CpuTest::make_semaphores(size_t count) {
  std::vector<SemaphorePtr> semaphores;
  for (size_t i = 0; i < count; ++i) semaphores.push_back(make_semaphore(0));
  return semaphores;
}

DevicePtr CpuTest::make_device() {
  halo_device_t* device = nullptr;
  HALO_EXPECT_OK(halo_driver_create_device(driver_, 0, nullptr, &device));
  return DevicePtr(device);
}

uint64_t CpuTest::query(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  HALO_EXPECT_OK(halo_semaphore_query(semaphore, &value));
  return value;
}

void CpuTest::submit(const std::vector<halo_semaphore_t*>& waits,
                     const std::vector<uint64_t>& wait_values,
                     const std::vector<halo_semaphore_t*>& signals,
                     const std::vector<uint64_t>& signal_values,
                     halo_device_t* device) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = waits.size();
  info.wait_semaphores = waits.data();
  info.wait_values = wait_values.data();
  info.signal_count = signals.size();
  info.signal_semaphores = signals.data();
  info.signal_values = signal_values.data();
  HALO_EXPECT_OK(halo_device_queue_execute(device ? device : device_, &info));
}

}  // namespace halo_cpu_test
