// abi.*: version negotiation and struct-size growth (DESIGN.md §2.2–2.3).
//
// The newer_* cases load plugins from the testdata folder
// (<testdata>/abi/libhalo_plugin_future_{major,minor}.so, built by halo's
// tests/abi_compat and installed beside halo-cts). They do not depend on the
// plugin under test; when the files are missing the case fails, naming the
// path, rather than skipping: a missing file is a broken install, not a
// missing capability.
#include <sys/stat.h>

#include <cstring>
#include <string>

#include "cts.hpp"

namespace {

using namespace halo::cts;

constexpr unsigned char kCanary = 0xA5;
constexpr size_t kExtra = 64;

// The path of testdata plugin |file|; fails the case when it is missing.
std::string testdata_plugin(Context& ctx, const char* file) {
  const std::string path = ctx.testdata_dir() + "/abi/" + file;
  struct stat info;
  if (stat(path.c_str(), &info) != 0) {
    fail(__FILE__, __LINE__,
         "testdata missing: " + path +
             " (built by halo's tests/abi_compat; point --testdata at a "
             "folder that has it)");
  }
  return path;
}

// A registry that considers exactly one plugin file, and its record.
class SinglePluginRegistry {
 public:
  explicit SinglePluginRegistry(const std::string& path) : path_(path) {
    const char* paths[] = {path_.c_str()};
    halo_registry_options_t options = {};
    options.struct_size = sizeof(options);
    options.flags = HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT |
                    HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS;
    options.plugin_path_count = 1;
    options.plugin_paths = paths;
    CTS_ASSERT_OK(halo_registry_create(&options, &registry_));
    size_t count = 0;
    CTS_ASSERT_OK(halo_registry_plugin_count(registry_, &count));
    CTS_ASSERT_EQ(count, size_t{1});
    record_.struct_size = sizeof(record_);
    CTS_ASSERT_OK(halo_registry_plugin_record(registry_, 0, &record_));
  }
  ~SinglePluginRegistry() { halo_registry_release(registry_); }
  SinglePluginRegistry(const SinglePluginRegistry&) = delete;
  SinglePluginRegistry& operator=(const SinglePluginRegistry&) = delete;

  halo_registry_t* registry() const { return registry_; }
  const halo_plugin_record_t& record() const { return record_; }
  std::string describe() const {
    return std::string("state ") + std::to_string(record_.state) + ", " +
           halo_status_code_name(record_.skip_code) + ": " +
           (record_.skip_reason != nullptr ? record_.skip_reason : "");
  }

 private:
  std::string path_;
  halo_registry_t* registry_ = nullptr;
  halo_plugin_record_t record_ = {};
};

// A struct of type T inside a buffer kExtra bytes larger, with struct_size
// claiming the whole buffer (a caller built against a newer header).
template <typename T>
struct Oversized {
  Oversized() {
    std::memset(bytes, kCanary, sizeof(bytes));
    get()->struct_size = sizeof(bytes);
  }
  T* get() { return reinterpret_cast<T*>(bytes); }
  // Checks the known part was written and nothing after it.
  void check(const char* what) {
    CTS_ASSERT_MSG(get()->struct_size == sizeof(T),
                   std::string(what) + ": struct_size came back as " +
                       std::to_string(get()->struct_size) + ", expected " +
                       std::to_string(sizeof(T)));
    for (size_t i = sizeof(T); i < sizeof(bytes); ++i) {
      CTS_ASSERT_MSG(bytes[i] == kCanary,
                     std::string(what) + ": byte " + std::to_string(i) +
                         " past the known struct was written");
    }
  }
  alignas(T) unsigned char bytes[sizeof(T) + kExtra];
};

HALO_CTS_CASE("abi.unknown_struct_size", kNeedNothing,
              "info structs with a larger struct_size than the library knows get the known part and struct_size set back") {
  {
    Oversized<halo_driver_info_t> info;
    CTS_ASSERT_OK(halo_driver_query_info(ctx.driver(), info.get()));
    info.check("halo_driver_query_info");
    CTS_ASSERT_EQ(std::string(info.get()->name), ctx.plugin_name());
  }
  {
    Oversized<halo_device_info_t> info;
    CTS_ASSERT_OK(halo_driver_query_device_info(ctx.driver(), 0, info.get()));
    info.check("halo_driver_query_device_info");
    CTS_ASSERT(info.get()->name[0] != '\0');
  }
  {
    Oversized<halo_device_info_t> info;
    CTS_ASSERT_OK(halo_device_query_info(ctx.device(), info.get()));
    info.check("halo_device_query_info");
    CTS_ASSERT(info.get()->name[0] != '\0');
  }
  {
    Oversized<halo_device_capabilities_t> caps;
    CTS_ASSERT_OK(halo_device_query_capabilities(ctx.device(), caps.get()));
    caps.check("halo_device_query_capabilities");
    CTS_ASSERT_EQ(caps.get()->features, ctx.capabilities().features);
  }
  {
    Oversized<halo_plugin_record_t> record;
    CTS_ASSERT_OK(halo_registry_plugin_record(ctx.registry(), 0, record.get()));
    record.check("halo_registry_plugin_record");
  }
}

HALO_CTS_CASE("abi.newer_major_refused", kNeedNothing,
              "a plugin built for ABI 2.0 is skipped with FAILED_PRECONDITION and a reason naming the ABI") {
  SinglePluginRegistry scan(
      testdata_plugin(ctx, "libhalo_plugin_future_major.so"));
  const halo_plugin_record_t& record = scan.record();
  CTS_ASSERT_MSG(record.state == HALO_PLUGIN_STATE_SKIPPED, scan.describe());
  CTS_ASSERT_MSG(record.skip_code == HALO_STATUS_FAILED_PRECONDITION,
                 scan.describe());
  CTS_ASSERT_MSG(record.skip_reason != nullptr &&
                     std::strstr(record.skip_reason, "ABI") != nullptr,
                 scan.describe());
  size_t drivers = 0;
  CTS_ASSERT_OK(halo_registry_driver_count(scan.registry(), &drivers));
  CTS_ASSERT_EQ(drivers, size_t{0});
}

HALO_CTS_CASE("abi.newer_minor_loads", kNeedNothing,
              "a plugin built for ABI 1.7 with a larger descriptor loads, and its semaphores and queue work") {
  SinglePluginRegistry scan(
      testdata_plugin(ctx, "libhalo_plugin_future_minor.so"));
  const halo_plugin_record_t& record = scan.record();
  CTS_ASSERT_MSG(record.state == HALO_PLUGIN_STATE_LOADED, scan.describe());
  CTS_ASSERT_EQ(record.abi_version, HALO_MAKE_VERSION(1, 7));
  CTS_ASSERT_EQ(std::string(record.name), std::string("future_minor"));

  halo_driver_t* driver = nullptr;
  CTS_ASSERT_OK(halo_registry_find_driver(scan.registry(), "future_minor", &driver));
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  halo_status_t status = halo_driver_query_device_info(driver, 0, &info);
  halo_device_t* device = nullptr;
  if (status == nullptr) {
    status = halo_driver_create_device(driver, info.device_id, nullptr, &device);
  }
  halo_driver_release(driver);
  CTS_ASSERT_OK(status);

  halo_semaphore_t* semaphores[2] = {};
  for (auto*& semaphore : semaphores) {
    status = halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE, &semaphore);
    if (status != nullptr) break;
  }
  const uint64_t one = 1;
  halo_queue_execute_info_t execute = {};
  execute.struct_size = sizeof(execute);
  execute.affinity = HALO_QUEUE_AFFINITY_ANY;
  execute.wait_count = 1;
  execute.wait_semaphores = &semaphores[0];
  execute.wait_values = &one;
  execute.signal_count = 1;
  execute.signal_semaphores = &semaphores[1];
  execute.signal_values = &one;
  if (status == nullptr) status = halo_device_queue_execute(device, &execute);
  if (status == nullptr) status = halo_semaphore_signal(semaphores[0], 1);
  if (status == nullptr) {
    status = halo_semaphore_wait(semaphores[1], 1, deadline_in_ms(kGenerousMs));
  }
  if (status == nullptr) {
    status = halo_device_wait_idle(device, deadline_in_ms(kGenerousMs));
  }
  for (auto* semaphore : semaphores) halo_semaphore_release(semaphore);
  halo_device_release(device);
  CTS_ASSERT_OK(status);
}

}  // namespace
