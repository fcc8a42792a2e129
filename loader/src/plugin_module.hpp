// One loaded plugin library: its dlopen handle and its descriptor. A module
// stays loaded while the registry that loaded it or the plugin's driver lives
// (DESIGN.md §6, "Unloading").
//
// The host interface a plugin receives is interned per library path and
// allocator, and lives for the whole process: two registries may load the
// same library (dlopen returns one mapping), and a plugin keeps the interface
// it was given in a global, so it must never dangle. Registries with
// different allocators (halo_registry_options_t) give the library different
// interfaces, each one's objects keeping their own; one interface is kept
// per distinct allocator, so the count grows only with the allocators an
// application uses.
#pragma once

#include <memory>
#include <mutex>
#include <string>

#include "halo/plugin.h"

namespace halo::loader {

class PluginModule {
 public:
  // dlopens |library_path|, whose plugin will take its host memory from
  // |allocator| (checked; NULL for libhalo's own). On failure returns NULL
  // and stores a status in |out_status| (UNAVAILABLE with dlerror's text).
  static std::shared_ptr<PluginModule> open(const std::string& library_path,
                                            const halo_allocator_t* allocator,
                                            halo_status_t* out_status);
  ~PluginModule();
  PluginModule(const PluginModule&) = delete;
  PluginModule& operator=(const PluginModule&) = delete;

  // Finds halo_plugin_query, calls it with this host's ABI range and checks
  // the descriptor's major version. Returns a status saying why not.
  halo_status_t query();

  // Calls the descriptor's create_driver and checks the driver it hands over
  // (plugin_objects.hpp): a broken one is given back and refused with
  // INTERNAL saying what is wrong. Returns a new reference in |out_driver|.
  // |function| names the public call in progress.
  halo_status_t create_driver(const char* function, halo_driver_t** out_driver);

  const halo_plugin_descriptor_t* descriptor() const { return descriptor_; }
  // The ABI version the descriptor declared, even one query() refused; 0
  // before a descriptor was seen.
  uint32_t declared_abi_version() const { return declared_abi_version_; }
  // Names the plugin in its log lines.
  void set_name(const std::string& name);

 private:
  PluginModule(void* handle, const std::string& library_path,
               const halo_allocator_t* allocator);

  void* handle_ = nullptr;
  const halo_plugin_descriptor_t* descriptor_ = nullptr;
  uint32_t declared_abi_version_ = 0;
  // The library's name and log; |host_interface_| is its interface for this
  // module's allocator.
  struct InternedHost* host_ = nullptr;
  const halo_host_interface_t* host_interface_ = nullptr;
};

// While alive on a thread, collects the last error the plugin being loaded
// logs there, so a skip reason can quote it.
class LoadErrorCapture {
 public:
  LoadErrorCapture();
  ~LoadErrorCapture();
  LoadErrorCapture(const LoadErrorCapture&) = delete;
  LoadErrorCapture& operator=(const LoadErrorCapture&) = delete;
  const std::string& last_error() const { return last_error_; }
  static void record(const char* message);

 private:
  LoadErrorCapture* previous_;
  std::string last_error_;
};

// Returns the name of the plugin whose library holds |address| (code or data
// of a loaded plugin): the name its manifest or descriptor gave, else the
// library's file name, else "unknown". Throws std::bad_alloc.
std::string plugin_name_at(const void* address);

// Keeps |module| loaded until |driver| is destroyed. Throws std::bad_alloc.
void attach_module_to_driver(halo_driver_t* driver,
                             std::shared_ptr<PluginModule> module);

// A dead driver's module reference, off the driver→module map. The |next|
// link lets the releasing thread park it without allocating.
struct ModuleHold {
  std::shared_ptr<PluginModule> module;
  ModuleHold* next = nullptr;
};

// Called with a driver whose last reference is gone, before its destroy
// runs: removes the driver's entry from the map and returns it (NULL when it
// has none). Allocates nothing and never throws. The caller keeps the hold
// until the plugin's code is off its stack.
std::unique_ptr<ModuleHold> take_module_of_driver(halo_driver_t* driver) noexcept;

}  // namespace halo::loader
