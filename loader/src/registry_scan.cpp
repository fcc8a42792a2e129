// The scan: candidates → manifests → filters → dlopen → query → driver →
// devices. Every step can skip one plugin with a recorded reason; none can
// fail the registry (DESIGN.md §6, "Each plugin fails alone").
#include <fnmatch.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <set>
#include <sstream>
#include <type_traits>

#include "api_guard.hpp"
#include "check.hpp"
#include "device_enumeration.hpp"
#include "discovery.hpp"
#include "log.hpp"
#include "manifest.hpp"
#include "object_refs.hpp"
#include "registry.hpp"
#include "regular_file.hpp"
#include "validation/object_table.hpp"

namespace halo::loader {
namespace {

using Record = halo_registry_t::Record;

// The public call a scan runs in, named in the statuses libhalo makes.
constexpr char kFunction[] = "halo_registry_create";

struct Filters {
  std::vector<std::string> disable;
  std::vector<std::string> select;
};

std::vector<std::string> split_globs(const char* text) {
  std::vector<std::string> globs;
  if (text == nullptr) return globs;
  std::stringstream stream(text);
  std::string glob;
  while (std::getline(stream, glob, ',')) {
    glob.erase(0, glob.find_first_not_of(" \t"));
    glob.erase(glob.find_last_not_of(" \t") + 1);
    if (!glob.empty()) globs.push_back(glob);
  }
  return globs;
}

bool matches_any(const std::vector<std::string>& globs, const std::string& name) {
  return std::any_of(globs.begin(), globs.end(), [&](const std::string& glob) {
    return fnmatch(glob.c_str(), name.c_str(), 0) == 0;
  });
}

// Returns the reason |name| is filtered out, or "" when it may load. Disable
// is applied before select.
std::string filter_reason(const Filters& filters, const std::string& name) {
  if (matches_any(filters.disable, name)) {
    return "disabled by HALO_PLUGINS_DISABLE";
  }
  if (!filters.select.empty() && !matches_any(filters.select, name)) {
    return "not matched by HALO_PLUGINS_SELECT";
  }
  return {};
}

void skip(Record* record, halo_status_t status) {
  // Freed even when copying its message throws.
  const std::unique_ptr<std::remove_pointer_t<halo_status_t>,
                        decltype(&halo_status_free)>
      owned(status, &halo_status_free);
  record->state = HALO_PLUGIN_STATE_SKIPPED;
  record->skip_code = halo_status_code(status);
  record->skip_reason = halo_status_message(status);
  log_message(HALO_LOG_LEVEL_WARN, "skipped plugin %s (%s): %s: %s",
              record->name.c_str(), record->library_path.c_str(),
              halo_status_code_name(record->skip_code),
              record->skip_reason.c_str());
}

bool is_manifest(const std::string& path) {
  return std::filesystem::path(path).extension() == ".json";
}

// The name a plugin gets before its manifest or descriptor is read.
std::string provisional_name(const std::string& path) {
  std::string stem = std::filesystem::path(path).stem().string();
  const std::string prefix = "libhalo_plugin_";
  if (stem.rfind(prefix, 0) == 0) stem.erase(0, prefix.size());
  return stem;
}

// Releases the driver reference it holds.
struct DriverReleaser {
  void operator()(halo_driver_t* driver) const noexcept {
    release_object(reinterpret_cast<halo_object_t*>(driver));
  }
};
using DriverRef = std::unique_ptr<halo_driver_t, DriverReleaser>;

class Scanner {
 public:
  // |allocator| (checked; NULL for libhalo's own) is the one every plugin
  // loaded takes its host memory from.
  Scanner(halo_registry_t* registry, Filters filters,
          const halo_allocator_t* allocator)
      : registry_(registry),
        filters_(std::move(filters)),
        allocator_(allocator) {}

  // Loads |candidate| or records why not. Throws only when the record
  // itself cannot be stored (out of memory).
  void consider(const Candidate& candidate);

 private:
  halo_status_t evaluate(Record* record, bool from_manifest);
  halo_status_t read_and_filter_manifest(Record* record);
  halo_status_t check_duplicate(Record* record);
  halo_status_t load(Record* record, bool filter_after_query);
  halo_status_t check_name(Record* record, PluginModule& module,
                           bool filter_after_query);
  void commit(const Record& record, std::shared_ptr<PluginModule> module,
              DriverRef driver, const std::vector<halo_device_info_t>& devices);

  halo_registry_t* registry_;
  Filters filters_;
  const halo_allocator_t* allocator_;
  std::set<std::string> loaded_realpaths_;
  std::set<std::string> loaded_names_;
};

halo_status_t Scanner::read_and_filter_manifest(Record* record) {
  Manifest manifest;
  HALO_RETURN_IF_ERROR(read_manifest(record->manifest_path, &manifest));
  record->name = manifest.name;
  record->library_path = manifest.library_path;
  record->abi_version = manifest.abi_version;
  record->priority = manifest.priority;
  if (HALO_VERSION_MAJOR(manifest.abi_version) != HALO_ABI_VERSION_MAJOR) {
    return halo_status_format(
        HALO_STATUS_FAILED_PRECONDITION,
        "the manifest declares ABI %u.%u; this host speaks ABI %u.0 to %u.%u",
        HALO_VERSION_MAJOR(manifest.abi_version),
        HALO_VERSION_MINOR(manifest.abi_version), HALO_ABI_VERSION_MAJOR,
        HALO_ABI_VERSION_MAJOR, HALO_ABI_VERSION_MINOR);
  }
  std::string reason = filter_reason(filters_, record->name);
  if (!reason.empty()) {
    return halo_status_create(HALO_STATUS_CANCELLED, reason.c_str());
  }
  return nullptr;
}

halo_status_t Scanner::check_duplicate(Record* record) {
  char resolved[PATH_MAX];
  if (realpath(record->library_path.c_str(), resolved) == nullptr) {
    if (errno == ENOENT) {
      return halo_status_format(HALO_STATUS_NOT_FOUND,
                                "the library %s does not exist",
                                record->library_path.c_str());
    }
    return nullptr;  // dlopen reports other problems in its own words.
  }
  record->library_path = resolved;
  if (loaded_realpaths_.count(resolved) != 0) {  // Same file, other path.
    return halo_status_format(HALO_STATUS_ALREADY_EXISTS,
                              "duplicate: %s is already loaded", resolved);
  }
  // dlopen of a FIFO would wait for a writer for ever.
  return require_regular_file(record->library_path, "library");
}

halo_status_t Scanner::load(Record* record, bool filter_after_query) {
  halo_status_t status = nullptr;
  auto module = PluginModule::open(record->library_path, allocator_, &status);
  if (module == nullptr) return status;
  module->set_name(record->name);
  status = module->query();
  if (module->declared_abi_version() != 0) {
    record->abi_version = module->declared_abi_version();
  }
  if (status != nullptr) return status;
  HALO_RETURN_IF_ERROR(check_name(record, *module, filter_after_query));
  halo_driver_t* created = nullptr;
  HALO_RETURN_IF_ERROR(module->create_driver(kFunction, &created));
  // Released on every way out until the registry owns it, a throw included;
  // declared after |module| so the library outlives the driver's destroy.
  DriverRef driver(created);
  if (validation::enabled()) [[unlikely]] {
    validation::on_created_for(registry_->validation, created,
                               HALO_OBJECT_TYPE_DRIVER, kFunction);
  }
  attach_module_to_driver(driver.get(), module);
  std::vector<halo_device_info_t> devices;
  status = enumerate_sorted_devices(driver.get(), kFunction, &devices);
  if (status != nullptr) {
    return halo_status_annotate(status, "enumerate_devices failed");
  }
  commit(*record, std::move(module), std::move(driver), devices);
  return nullptr;
}

// Names the plugin from its descriptor and checks the name: it must match
// the manifest's, pass the filters (when there was no manifest to filter on)
// and not be loaded already.
halo_status_t Scanner::check_name(Record* record, PluginModule& module,
                                  bool filter_after_query) {
  const halo_plugin_descriptor_t* descriptor = module.descriptor();
  if (filter_after_query) {
    record->name = descriptor->name;
    module.set_name(record->name);
    std::string reason = filter_reason(filters_, record->name);
    if (!reason.empty()) {
      return halo_status_create(HALO_STATUS_CANCELLED, reason.c_str());
    }
  } else if (record->name != descriptor->name) {
    return halo_status_format(
        HALO_STATUS_INVALID_ARGUMENT,
        "the manifest names the plugin '%s' but its descriptor says '%s'",
        record->name.c_str(), descriptor->name);
  }
  if (loaded_names_.count(record->name) != 0) {
    return halo_status_format(
        HALO_STATUS_ALREADY_EXISTS,
        "duplicate: a plugin named '%s' is already loaded",
        record->name.c_str());
  }
  return nullptr;
}

// Hands a loaded plugin to the registry. Everything that can throw happens
// before the first change, so a failure leaves the registry and the scanner
// as they were (and |driver| released by its owner).
void Scanner::commit(const Record& record, std::shared_ptr<PluginModule> module,
                     DriverRef driver, const std::vector<halo_device_info_t>& devices) {
  registry_->modules.reserve(registry_->modules.size() + 1);
  registry_->drivers.reserve(registry_->drivers.size() + 1);
  registry_->devices.reserve(registry_->devices.size() + devices.size());
  halo_registry_t::Driver entry{nullptr, record.name, record.priority};
  auto realpath_slot = loaded_realpaths_.insert(record.library_path).first;
  try {
    loaded_names_.insert(record.name);
  } catch (...) {
    loaded_realpaths_.erase(realpath_slot);
    throw;
  }
  // From here on nothing throws: every vector has room.
  registry_->modules.push_back(std::move(module));
  entry.driver = driver.release();
  registry_->drivers.push_back(std::move(entry));
  for (const auto& info : devices) {
    // The driver index is fixed up once drivers are sorted.
    registry_->devices.push_back({info, registry_->drivers.size() - 1});
  }
}

// Every step of one candidate, each of which may skip it with a status.
halo_status_t Scanner::evaluate(Record* record, bool from_manifest) {
  if (from_manifest) HALO_RETURN_IF_ERROR(read_and_filter_manifest(record));
  HALO_RETURN_IF_ERROR(check_duplicate(record));
  return load(record, !from_manifest);
}

void Scanner::consider(const Candidate& candidate) {
  Record record;
  record.source = candidate.source;
  record.name = provisional_name(candidate.path);
  const bool from_manifest = is_manifest(candidate.path);
  if (from_manifest) {
    record.manifest_path = candidate.path;
  } else {
    record.library_path = candidate.path;
  }
  halo_status_t status = nullptr;
  // One plugin's trouble, even an exception such as running out of memory
  // while reading its manifest, skips that plugin alone.
  try {
    status = evaluate(&record, from_manifest);
  } catch (...) {
    status = status_from_current_exception("loading the plugin");
  }
  if (status != nullptr) {
    skip(&record, status);
  } else {
    record.state = HALO_PLUGIN_STATE_LOADED;
    log_message(HALO_LOG_LEVEL_INFO, "loaded plugin %s (%s)",
                record.name.c_str(), record.library_path.c_str());
  }
  registry_->records.push_back(std::move(record));
}

// Orders drivers by priority (high first), then name, and devices by driver
// order, then type, then name (enumerate_sorted_devices already did the last
// two within each driver).
void sort_drivers_and_devices(halo_registry_t* registry) {
  std::vector<size_t> order(registry->drivers.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    const auto& left = registry->drivers[a];
    const auto& right = registry->drivers[b];
    if (left.priority != right.priority) return left.priority > right.priority;
    return left.name < right.name;
  });
  std::vector<size_t> new_index(order.size());
  std::vector<halo_registry_t::Driver> drivers;
  for (size_t i = 0; i < order.size(); ++i) {
    new_index[order[i]] = i;
    drivers.push_back(registry->drivers[order[i]]);
  }
  registry->drivers = std::move(drivers);
  for (auto& device : registry->devices) {
    device.driver_index = new_index[device.driver_index];
  }
  std::stable_sort(registry->devices.begin(), registry->devices.end(),
                   [](const auto& a, const auto& b) {
                     return a.driver_index < b.driver_index;
                   });
}

}  // namespace

void scan_plugins(const halo_registry_options_t& options,
                  halo_registry_t* registry) {
  Filters filters;
  if ((options.flags & HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT) == 0) {
    filters.disable = split_globs(secure_getenv("HALO_PLUGINS_DISABLE"));
    filters.select = split_globs(secure_getenv("HALO_PLUGINS_SELECT"));
  }
  Scanner scanner(registry, std::move(filters), options.allocator);
  for (const auto& candidate : discover_candidates(options)) {
    scanner.consider(candidate);
  }
  sort_drivers_and_devices(registry);
}

}  // namespace halo::loader
