// Drivers and registries of the C++ layer (halo/halo.hpp).
#ifndef HALO_REGISTRY_HPP_
#define HALO_REGISTRY_HPP_

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "halo/device.hpp"

namespace halo {

class Driver : public Ref<halo_driver_t, halo_driver_retain, halo_driver_release> {
 public:
  using Ref::Ref;

  halo_driver_info_t info() const {
    halo_driver_info_t info{};
    info.struct_size = sizeof(info);
    check(halo_driver_query_info(get(), &info));
    return info;
  }
  // Returns the devices of a fresh enumeration, ordered by type then name. A
  // device that disappears between the count and the query ends the list.
  std::vector<halo_device_info_t> devices() const {
    std::size_t count = 0;
    check(halo_driver_device_count(get(), &count));
    std::vector<halo_device_info_t> infos;
    infos.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      halo_device_info_t info{};
      info.struct_size = sizeof(info);
      StatusPtr status(halo_driver_query_device_info(get(), i, &info));
      if (halo_status_code(status.get()) == HALO_STATUS_OUT_OF_RANGE) {
        break;
      }
      check(status.release());
      infos.push_back(info);
    }
    return infos;
  }
  // Returns the number of devices, enumerated now.
  std::size_t device_count() const {
    std::size_t count = 0;
    check(halo_driver_device_count(get(), &count));
    return count;
  }
  // Creates device |device_id|; the Device knows its plugin (this driver's
  // name) but not its registry index, which a driver does not know.
  Device create_device(halo_device_id_t device_id,
                       const halo_device_params_t* params = nullptr) const {
    halo_device_t* device = nullptr;
    check(halo_driver_create_device(get(), device_id, params, &device));
    Device owned(device);
    std::string plugin = to_string(info().name);
    return Device(owned.release(), std::move(plugin), std::nullopt);
  }
};

// One plugin the registry considered, with its strings copied.
struct PluginRecord {
  std::string name;
  std::string manifest_path;
  std::string library_path;
  std::string source;
  halo_plugin_state_t state = HALO_PLUGIN_STATE_SKIPPED;
  std::uint32_t abi_version = 0;
  std::int32_t priority = 0;
  halo_status_code_t skip_code = HALO_STATUS_OK;
  std::string skip_reason;

  bool loaded() const noexcept { return state == HALO_PLUGIN_STATE_LOADED; }
};

// One device of the registry's snapshot and the index of its driver.
struct DeviceEntry {
  halo_device_info_t info;
  std::size_t driver_index;
};

// An owned registry: one scan's immutable snapshot. Move-only.
class Registry {
 public:
  Registry() noexcept = default;
  // Adopts |registry|.
  explicit Registry(halo_registry_t* registry) noexcept : registry_(registry) {}
  Registry(Registry&& other) noexcept
      : registry_(std::exchange(other.registry_, nullptr)) {}
  Registry& operator=(Registry&& other) noexcept {
    Registry(std::move(other)).swap(*this);
    return *this;
  }
  Registry(const Registry&) = delete;
  Registry& operator=(const Registry&) = delete;
  ~Registry() { halo_registry_release(registry_); }

  // Scans as |options| say: the form that also takes an allocator (ABI 1.2).
  static Registry create(const halo_registry_options_t& options) {
    halo_registry_t* registry = nullptr;
    check(halo_registry_create(&options, &registry));
    return Registry(registry);
  }
  // Scans for plugins: |plugin_paths| first (manifests, libraries or folders),
  // then the environment and the default folders unless |flags| say not to.
  static Registry create(const std::vector<std::string>& plugin_paths = {},
                         halo_registry_flags_t flags = 0) {
    std::vector<const char*> paths;
    paths.reserve(plugin_paths.size());
    for (const std::string& path : plugin_paths) {
      paths.push_back(path.c_str());
    }
    halo_registry_options_t options{};
    options.struct_size = sizeof(options);
    options.flags = flags;
    options.plugin_path_count = paths.size();
    options.plugin_paths = paths.empty() ? nullptr : paths.data();
    halo_registry_t* registry = nullptr;
    check(halo_registry_create(&options, &registry));
    return Registry(registry);
  }

  halo_registry_t* get() const noexcept { return registry_; }
  [[nodiscard]] halo_registry_t* release() noexcept {
    return std::exchange(registry_, nullptr);
  }
  void reset(halo_registry_t* registry = nullptr) noexcept {
    Registry(registry).swap(*this);
  }
  void swap(Registry& other) noexcept { std::swap(registry_, other.registry_); }
  explicit operator bool() const noexcept { return registry_ != nullptr; }

  // Every plugin considered, loaded or skipped, in load order.
  std::vector<PluginRecord> plugins() const {
    std::size_t count = 0;
    check(halo_registry_plugin_count(registry_, &count));
    std::vector<PluginRecord> records;
    records.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      halo_plugin_record_t record{};
      record.struct_size = sizeof(record);
      check(halo_registry_plugin_record(registry_, i, &record));
      records.push_back(PluginRecord{
          string_or_empty(record.name), string_or_empty(record.manifest_path),
          string_or_empty(record.library_path), string_or_empty(record.source),
          static_cast<halo_plugin_state_t>(record.state), record.abi_version,
          record.priority, record.skip_code, string_or_empty(record.skip_reason)});
    }
    return records;
  }

  std::size_t driver_count() const {
    std::size_t count = 0;
    check(halo_registry_driver_count(registry_, &count));
    return count;
  }
  Driver driver(std::size_t index) const {
    halo_driver_t* driver = nullptr;
    check(halo_registry_driver(registry_, index, &driver));
    return Driver(driver);
  }
  // Loaded drivers ordered by priority (high first), then name.
  std::vector<Driver> drivers() const {
    std::vector<Driver> drivers;
    const std::size_t count = driver_count();
    drivers.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      drivers.push_back(driver(i));
    }
    return drivers;
  }
  // Returns the driver of the plugin called |name|, or an empty Driver when
  // no loaded plugin has that name.
  Driver find_driver(const std::string& name) const {
    halo_driver_t* driver = nullptr;
    StatusPtr status(halo_registry_find_driver(registry_, name.c_str(), &driver));
    if (halo_status_code(status.get()) == HALO_STATUS_NOT_FOUND) {
      return Driver();
    }
    check(status.release());
    return Driver(driver);
  }

  std::size_t device_count() const {
    std::size_t count = 0;
    check(halo_registry_device_count(registry_, &count));
    return count;
  }
  // Every device of the snapshot, ordered by driver, then type, then name.
  std::vector<DeviceEntry> devices() const {
    std::size_t count = 0;
    check(halo_registry_device_count(registry_, &count));
    std::vector<DeviceEntry> entries;
    entries.reserve(count);
    for (std::size_t i = 0; i < count; ++i) {
      DeviceEntry entry{};
      entry.info.struct_size = sizeof(entry.info);
      check(halo_registry_device_info(registry_, i, &entry.info,
                                      &entry.driver_index));
      entries.push_back(entry);
    }
    return entries;
  }
  // Creates device |index| of devices(); the Device knows its plugin's
  // name and |index|. Created first, so that a bad index or |params| is
  // refused as halo_registry_create_device refuses it.
  Device create_device(std::size_t index,
                       const halo_device_params_t* params = nullptr) const {
    halo_device_t* device = nullptr;
    check(halo_registry_create_device(registry_, index, params, &device));
    Device owned(device);
    halo_device_info_t info{};
    info.struct_size = sizeof(info);
    std::size_t driver_index = 0;
    check(halo_registry_device_info(registry_, index, &info, &driver_index));
    std::string plugin = to_string(driver(driver_index).info().name);
    return Device(owned.release(), std::move(plugin), index);
  }

 private:
  halo_registry_t* registry_ = nullptr;
};

}  // namespace halo

#endif  // HALO_REGISTRY_HPP_
