#include "plugin_module.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <cstring>
#include <unordered_map>
#include <vector>

#include "abi_1_0_sizes.hpp"
#include "host_interface.hpp"
#include "log.hpp"
#include "plugin_objects.hpp"
#include "plugin_status.hpp"

namespace halo::loader {
namespace {

// Drivers alive → the module that must stay loaded for them. Touched only
// when a driver is created or destroyed, never on a hot path.
using DriverModules =
    std::unordered_map<halo_driver_t*, std::unique_ptr<ModuleHold>>;
std::mutex g_driver_modules_mutex;
DriverModules& driver_modules() {
  static auto* map = new DriverModules();
  return *map;
}

thread_local LoadErrorCapture* t_capture = nullptr;

bool unload_disabled() {
  const char* value = secure_getenv("HALO_DISABLE_UNLOAD");
  return value != nullptr && value[0] != '\0' && std::strcmp(value, "0") != 0;
}

}  // namespace

// The host interfaces of one library path, living as long as the process:
// |host| with libhalo's allocator, and one per application allocator
// (|allocator_hosts|, guarded by InternedHosts::mutex). All log as |this|.
struct InternedHost {
  std::mutex name_mutex;
  std::string name;
  halo_host_interface_t host = {};
  std::vector<std::unique_ptr<halo_host_interface_t>> allocator_hosts;

  // Called by plugins through a C function pointer, so nothing may escape:
  // a log line lost to a lack of memory is the lesser harm.
  static void log(void* self, halo_log_level_t level,
                  const char* message) noexcept {
    auto* interned = static_cast<InternedHost*>(self);
    if (message == nullptr) message = "";
    try {
      if (level == HALO_LOG_LEVEL_ERROR) LoadErrorCapture::record(message);
      if (!log_enabled(level)) return;
      std::string name;
      {
        std::lock_guard<std::mutex> lock(interned->name_mutex);
        name = interned->name;
      }
      log_message(level, "plugin %s: %s", name.c_str(), message);
    } catch (...) {
    }
  }
};

namespace {

struct InternedHosts {
  std::mutex mutex;
  std::unordered_map<std::string, std::unique_ptr<InternedHost>> by_path;
};

InternedHosts& interned_hosts() {
  // Never destroyed: plugins may use their host interface until exit.
  static auto* hosts = new InternedHosts();
  return *hosts;
}

bool same_allocator(const halo_allocator_t& a, const halo_allocator_t& b) {
  return a.self == b.self && a.allocate == b.allocate && a.free == b.free;
}

// Returns the interned host of |library_path| in |out_interned| and its
// interface for |allocator| (NULL: libhalo's own).
const halo_host_interface_t* intern_host(const std::string& library_path,
                                         const halo_allocator_t* allocator,
                                         InternedHost** out_interned) {
  InternedHosts& hosts = interned_hosts();
  std::lock_guard<std::mutex> lock(hosts.mutex);
  auto& slot = hosts.by_path[library_path];
  if (!slot) {
    slot = std::make_unique<InternedHost>();
    slot->host = make_host_interface(slot.get(), &InternedHost::log);
  }
  *out_interned = slot.get();
  if (allocator == nullptr) return &slot->host;
  for (const auto& host : slot->allocator_hosts) {
    if (same_allocator(host->allocator, *allocator)) return host.get();
  }
  slot->allocator_hosts.reserve(slot->allocator_hosts.size() + 1);
  slot->allocator_hosts.push_back(std::make_unique<halo_host_interface_t>(
      make_host_interface(slot.get(), &InternedHost::log, allocator)));
  return slot->allocator_hosts.back().get();
}

}  // namespace

LoadErrorCapture::LoadErrorCapture() : previous_(t_capture) {
  t_capture = this;
}

LoadErrorCapture::~LoadErrorCapture() { t_capture = previous_; }

void LoadErrorCapture::record(const char* message) {
  if (t_capture != nullptr) t_capture->last_error_ = message;
}

PluginModule::PluginModule(void* handle, const std::string& library_path,
                           const halo_allocator_t* allocator)
    : handle_(handle),
      host_interface_(intern_host(library_path, allocator, &host_)) {}

void PluginModule::set_name(const std::string& name) {
  std::lock_guard<std::mutex> lock(host_->name_mutex);
  host_->name = name;
}

PluginModule::~PluginModule() {
  if (handle_ != nullptr && !unload_disabled()) dlclose(handle_);
}

std::shared_ptr<PluginModule> PluginModule::open(const std::string& path,
                                                 const halo_allocator_t* allocator,
                                                 halo_status_t* out_status) {
  dlerror();
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* error = dlerror();
    *out_status = halo_status_format(HALO_STATUS_UNAVAILABLE,
                                     "dlopen(%s) failed: %s", path.c_str(),
                                     error != nullptr ? error : "unknown");
    return nullptr;
  }
  *out_status = nullptr;
  // Until the module owns |handle|, a throw must close it here; afterwards
  // the module's destructor does, exactly once.
  std::unique_ptr<PluginModule> module;
  try {
    module.reset(new PluginModule(handle, path, allocator));
  } catch (...) {
    dlclose(handle);
    throw;
  }
  return std::shared_ptr<PluginModule>(std::move(module));
}

halo_status_t PluginModule::query() {
  dlerror();
  void* symbol = dlsym(handle_, HALO_PLUGIN_QUERY_SYMBOL);
  if (symbol == nullptr) {
    return halo_status_create(HALO_STATUS_NOT_FOUND,
                              "the library exports no " HALO_PLUGIN_QUERY_SYMBOL
                              " symbol");
  }
  halo_plugin_query_params_t params = {};
  params.struct_size = sizeof(params);
  params.abi_version_min = HALO_MAKE_VERSION(HALO_ABI_VERSION_MAJOR, 0);
  params.abi_version_max = HALO_ABI_VERSION;
  params.host = host_interface_;
  auto query_fn = reinterpret_cast<halo_plugin_query_fn_t>(symbol);
  LoadErrorCapture capture;
  const halo_plugin_descriptor_t* descriptor = query_fn(&params);
  if (descriptor == nullptr) {
    const std::string& error = capture.last_error();
    return halo_status_format(
        HALO_STATUS_FAILED_PRECONDITION,
        HALO_PLUGIN_QUERY_SYMBOL " returned NULL%s%s",
        error.empty() ? "" : ": ", error.c_str());
  }
  const uint32_t minimum = abi_1_0_size<halo_plugin_descriptor_t>;
  if (descriptor->struct_size >= offsetof(halo_plugin_descriptor_t, name)) {
    declared_abi_version_ = descriptor->abi_version;
  }
  if (descriptor->struct_size < minimum) {
    return halo_status_format(HALO_STATUS_FAILED_PRECONDITION,
                              "the plugin descriptor is %u bytes, smaller "
                              "than ABI 1.0's %u",
                              descriptor->struct_size, minimum);
  }
  if (HALO_VERSION_MAJOR(descriptor->abi_version) != HALO_ABI_VERSION_MAJOR) {
    return halo_status_format(
        HALO_STATUS_FAILED_PRECONDITION,
        "the plugin speaks ABI %u.%u; this host speaks ABI %u.0 to %u.%u",
        HALO_VERSION_MAJOR(descriptor->abi_version),
        HALO_VERSION_MINOR(descriptor->abi_version), HALO_ABI_VERSION_MAJOR,
        HALO_ABI_VERSION_MAJOR, HALO_ABI_VERSION_MINOR);
  }
  if (descriptor->name == nullptr || descriptor->name[0] == '\0' ||
      descriptor->create_driver == nullptr) {
    return halo_status_create(HALO_STATUS_FAILED_PRECONDITION,
                              "the plugin descriptor lacks a name or "
                              "create_driver");
  }
  descriptor_ = descriptor;
  return nullptr;
}

halo_status_t PluginModule::create_driver(const char* function,
                                          halo_driver_t** out_driver) {
  *out_driver = nullptr;
  halo_status_t status = call_plugin(function, descriptor_->create_driver,
                                     host_interface_, out_driver);
  if (status != nullptr) {
    return halo_status_annotate(status, "create_driver failed");
  }
  auto* driver = reinterpret_cast<halo_object_t*>(*out_driver);
  if (driver == nullptr) {
    return halo_status_create(HALO_STATUS_INTERNAL,
                              "create_driver returned OK but no driver");
  }
  halo_status_t defect = object_defect(driver, HALO_OBJECT_TYPE_DRIVER);
  if (defect != nullptr) {
    // Given back while this module still maps the plugin's code.
    discard_object(driver);
    *out_driver = nullptr;
    return halo_status_annotate(defect, "create_driver returned a broken driver");
  }
  return nullptr;
}

std::string plugin_name_at(const void* address) {
  Dl_info info = {};
  if (dladdr(address, &info) == 0 || info.dli_fname == nullptr) {
    return "unknown";
  }
  // dladdr names the library by the path it was opened with, which is the
  // interned host's key.
  {
    InternedHosts& hosts = interned_hosts();
    std::lock_guard<std::mutex> lock(hosts.mutex);
    auto it = hosts.by_path.find(info.dli_fname);
    if (it != hosts.by_path.end()) {
      std::lock_guard<std::mutex> name_lock(it->second->name_mutex);
      if (!it->second->name.empty()) return it->second->name;
    }
  }
  const char* slash = std::strrchr(info.dli_fname, '/');
  return slash != nullptr ? slash + 1 : info.dli_fname;
}

void attach_module_to_driver(halo_driver_t* driver,
                             std::shared_ptr<PluginModule> module) {
  auto hold = std::make_unique<ModuleHold>();
  hold->module = std::move(module);
  std::lock_guard<std::mutex> lock(g_driver_modules_mutex);
  driver_modules()[driver] = std::move(hold);
}

std::unique_ptr<ModuleHold> take_module_of_driver(halo_driver_t* driver) noexcept {
  std::lock_guard<std::mutex> lock(g_driver_modules_mutex);
  auto it = driver_modules().find(driver);
  if (it == driver_modules().end()) return nullptr;
  std::unique_ptr<ModuleHold> hold = std::move(it->second);
  driver_modules().erase(it);
  return hold;
}

}  // namespace halo::loader
