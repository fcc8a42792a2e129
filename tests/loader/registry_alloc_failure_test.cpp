// A scan survives running out of memory at any point: each allocation that a
// registry_create makes fails once, in turn, and every time the result is a
// clean status or a registry (with the affected plugin skipped), never a
// crash, and nothing stays behind: once the registry is gone, the plugins'
// libraries are unloaded, which they are not while a driver or module leaks.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include "failing_new.hpp"
#include "loader_test_util.hpp"

namespace halo_test {
namespace {

bool unload_disabled() {
  const char* value = std::getenv("HALO_DISABLE_UNLOAD");
  return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

bool is_loaded(const std::string& library) {
  void* handle = dlopen(library.c_str(), RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

// Every record is loaded, or skipped for lack of memory.
void expect_records_sane(halo_registry_t* registry, long index) {
  size_t count = 0;
  ASSERT_EQ(halo_registry_plugin_count(registry, &count), nullptr);
  for (size_t i = 0; i < count; ++i) {
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    ASSERT_EQ(halo_registry_plugin_record(registry, i, &record), nullptr);
    if (record.state == HALO_PLUGIN_STATE_LOADED) continue;
    EXPECT_EQ(record.skip_code, HALO_STATUS_RESOURCE_EXHAUSTED)
        << "allocation " << index << ": " << record.name << ": "
        << record.skip_reason;
  }
}

class RegistryAllocFailureTest : public LoaderTest {};

TEST_F(RegistryAllocFailureTest, EveryAllocationMayFail) {
  // Bare libraries, not manifests: nlohmann::json's destructor allocates
  // (it flattens nested values onto a vector), so a failure there ends the
  // process inside the JSON library whatever libhalo does.
  const std::string first = good_library("test_good");
  const std::string second = good_library("test_alpha");
  const char* paths[] = {first.c_str(), second.c_str()};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 2;
  options.plugin_paths = paths;
  const bool check_unload = !unload_disabled();
  long index = 0;
  for (;; ++index) {
    halo_registry_t* registry = nullptr;
    halo_status_t status = nullptr;
    bool triggered = false;
    {
      AllocationFailure failure(index);
      status = halo_registry_create(&options, &registry);
      triggered = failure.triggered();
    }
    if (status != nullptr) {
      EXPECT_EQ(registry, nullptr);
      expect_status(status, HALO_STATUS_RESOURCE_EXHAUSTED, "out of memory");
    } else {
      ASSERT_NE(registry, nullptr);
      expect_records_sane(registry, index);
      if (!triggered) {  // Nothing failed: both plugins must have loaded.
        size_t drivers = 0;
        EXPECT_EQ(halo_registry_driver_count(registry, &drivers), nullptr);
        EXPECT_EQ(drivers, 2u);
      }
      halo_registry_release(registry);
    }
    if (check_unload) {
      ASSERT_FALSE(is_loaded(first))
          << "allocation " << index << " failing leaked test_good";
      ASSERT_FALSE(is_loaded(second))
          << "allocation " << index << " failing leaked test_alpha";
    }
    // Once the failure is no longer reached, every allocation failed once.
    if (!triggered) break;
  }
  // The scan allocates plenty; far fewer failures would mean the injection
  // never reached libhalo and this test tested nothing.
  EXPECT_GT(index, 20);
}

}  // namespace
}  // namespace halo_test
