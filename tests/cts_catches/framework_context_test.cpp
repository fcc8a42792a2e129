// The CTS framework's search for a device of another plugin: a plugin that
// lists devices but cannot create one is passed over for the next, and the
// reference taken on its driver is given back.
#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <string>

#include <gtest/gtest.h>

#include "cts.hpp"

namespace halo::cts {
namespace {

#if defined(HALO_TEST_CPU_MANIFEST)

bool unload_disabled() {
  const char* value = std::getenv("HALO_DISABLE_UNLOAD");
  return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

bool is_loaded(const char* library) {
  void* handle = dlopen(library, RTLD_NOW | RTLD_NOLOAD);
  if (handle == nullptr) return false;
  dlclose(handle);
  return true;
}

TEST(FrameworkContextTest, ForeignDeviceSkipsAPluginThatCannotCreateDevices) {
  // The failing plugin comes first (highest priority), so the search meets
  // it before the cpu plugin.
  const char* paths[] = {HALO_TEST_BAD_DEVICE_MANIFEST, HALO_TEST_GOOD_LIBRARY,
                         HALO_TEST_CPU_MANIFEST};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 3;
  options.plugin_paths = paths;
  halo_registry_t* registry = nullptr;
  ASSERT_EQ(halo_registry_create(&options, &registry), nullptr);
  halo_driver_t* first = nullptr;
  ASSERT_EQ(halo_registry_driver(registry, 0, &first), nullptr);
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  EXPECT_EQ(halo_driver_query_info(first, &info), nullptr);
  halo_driver_release(first);
  ASSERT_STREQ(info.name, "test_bad_device") << "the failing plugin must come first";

  halo_driver_t* under_test = nullptr;
  ASSERT_EQ(halo_registry_find_driver(registry, "test_good", &under_test), nullptr);
  {
    Context context(registry, under_test, "test_good", 1, "");
    halo_device_t* foreign = nullptr;
    ASSERT_NO_THROW(foreign = context.foreign_device());
    ASSERT_NE(foreign, nullptr) << "the cpu plugin's device was not found";
    halo_device_info_t device_info = {};
    device_info.struct_size = sizeof(device_info);
    EXPECT_EQ(halo_device_query_info(foreign, &device_info), nullptr);
    EXPECT_EQ(missing_needs(kNeedSecondPlugin, context), "");
  }
  halo_driver_release(under_test);
  halo_registry_release(registry);
  if (!unload_disabled()) {
    EXPECT_FALSE(is_loaded(HALO_TEST_BAD_DEVICE_LIBRARY))
        << "a reference to the failing plugin's driver was leaked";
  }
}

#endif  // HALO_TEST_CPU_MANIFEST

}  // namespace
}  // namespace halo::cts
