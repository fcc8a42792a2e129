// A plugin's library stays loaded while any of its drivers lives, even when a
// new driver takes the address of one being destroyed: the loader must tie
// each module to the right driver (no ABA on the driver→module map).
#include <dlfcn.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

#include "loader_test_util.hpp"

namespace halo_test {
namespace {

const std::string kRecycleLibrary =
    std::string(HALO_TEST_RECYCLE_DIR) + "/libhalo_plugin_test_recycle.so";
constexpr char kGateVariable[] = "HALO_TEST_PLUGIN_DESTROY_GATE";

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

// Scans the recycle plugin alone and returns a new reference to its driver,
// and the registry in |out_registry|.
halo_driver_t* load_recycle_driver(halo_registry_t** out_registry) {
  const char* paths[] = {kRecycleLibrary.c_str()};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  EXPECT_EQ(halo_registry_create(&options, out_registry), nullptr);
  halo_driver_t* driver = nullptr;
  EXPECT_EQ(halo_registry_driver(*out_registry, 0, &driver), nullptr);
  return driver;
}

// Closes the pipe and the gate whatever the test's outcome.
class Gate {
 public:
  Gate() {
    EXPECT_EQ(pipe(entered_), 0);
    EXPECT_EQ(pipe(proceed_), 0);
    setenv(kGateVariable,
           (std::to_string(entered_[1]) + "," + std::to_string(proceed_[0])).c_str(), 1);
  }
  ~Gate() {
    unsetenv(kGateVariable);
    for (int fd : {entered_[0], entered_[1], proceed_[0], proceed_[1]}) close(fd);
  }
  // Blocks until a destroy is in the gate.
  bool wait_entered() {
    char byte = 0;
    return read(entered_[0], &byte, 1) == 1;
  }
  void open() {
    char byte = 'p';
    EXPECT_EQ(write(proceed_[1], &byte, 1), 1);
  }

 private:
  int entered_[2] = {-1, -1};
  int proceed_[2] = {-1, -1};
};

class ModuleLifetimeTest : public LoaderTest {};

TEST_F(ModuleLifetimeTest, DriverAtTheAddressOfOneBeingDestroyedKeepsItsLibrary) {
  halo_registry_t* first_registry = nullptr;
  halo_driver_t* first = load_recycle_driver(&first_registry);
  ASSERT_NE(first, nullptr);
  halo_registry_release(first_registry);  // |first| alone keeps the plugin.

  halo_registry_t* second_registry = nullptr;
  halo_driver_t* second = nullptr;
  {
    Gate gate;
    // The last release of |first| runs its destroy, which frees the slot and
    // then waits in the gate while a new driver takes the slot.
    std::thread releaser([first] { halo_driver_release(first); });
    const bool entered = gate.wait_entered();
    if (entered) second = load_recycle_driver(&second_registry);
    gate.open();
    releaser.join();
    ASSERT_TRUE(entered);
  }
  ASSERT_EQ(second, first) << "the plugin must reuse its driver's address";
  halo_registry_release(second_registry);

  // |second| alone must now keep the library loaded.
  if (!unload_disabled()) {
    const bool loaded = is_loaded(kRecycleLibrary);
    EXPECT_TRUE(loaded) << "the library was unloaded under a live driver";
    // Releasing |second| would run unmapped code: leak it instead.
    if (!loaded) return;
  }
  halo_driver_release(second);
  if (!unload_disabled()) {
    EXPECT_FALSE(is_loaded(kRecycleLibrary))
        << "the library stayed loaded after its last driver was released";
  }
}

}  // namespace
}  // namespace halo_test
