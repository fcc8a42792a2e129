// A thin, header-only C++20 layer over the halo C API for application authors.
//
// Nothing here crosses the plugin boundary: it only calls the HALO_API
// functions of libhalo, so applications get exceptions and RAII while plugins
// keep the plain C ABI (DESIGN.md §2, rule 6). Errors become halo::Error;
// handles are reference-counted values where copying retains and destruction
// releases. halo::Registry has no retain function in the C API, so it is
// move-only. Coroutine awaits of fences and semaphores are in halo/await.hpp.
#ifndef HALO_HALO_HPP_
#define HALO_HALO_HPP_

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "halo/halo.h"

namespace halo {

namespace detail {

// Frees an owned status; the unique_ptr below relies on it accepting NULL.
struct StatusDeleter {
  void operator()(halo_status_t status) const noexcept {
    halo_status_free(status);
  }
};

}  // namespace detail

// An owned status: frees it on destruction. Useful where a caller wants to
// inspect an error instead of throwing it.
using StatusPtr =
    std::unique_ptr<std::remove_pointer_t<halo_status_t>, detail::StatusDeleter>;

// Returns the C string |text| as a std::string; NULL becomes "".
inline std::string string_or_empty(const char* text) {
  return text != nullptr ? std::string(text) : std::string();
}

// Returns the fixed-size char array |text| (as found in the info structs) up to
// its first NUL, never reading past its end even when a plugin forgot the NUL.
// Deliberately not overloaded for const char*: an array argument would pick
// that non-template overload and read to a NUL that may not be there.
template <std::size_t N>
std::string to_string(const char (&text)[N]) {
  return std::string(text, std::find(text, text + N, '\0'));
}

// Returns "MAJOR.MINOR" for a HALO_MAKE_VERSION value.
inline std::string version_string(std::uint32_t version) {
  return std::to_string(HALO_VERSION_MAJOR(version)) + "." +
         std::to_string(HALO_VERSION_MINOR(version));
}

// Returns the upper-case name of |code| ("INVALID_ARGUMENT").
inline std::string_view code_name(halo_status_code_t code) noexcept {
  return halo_status_code_name(code);
}

// The exception every wrapper below throws: a status code and its message.
// what() is "CODE: message". Derives from std::runtime_error so copies never
// throw, as the standard asks of exception types.
class Error : public std::runtime_error {
 public:
  // Takes ownership of |status| and frees it, even when building the
  // exception's strings throws. A NULL |status| gives an OK code.
  explicit Error(halo_status_t status) : Error(StatusPtr(status)) {}

  Error(halo_status_code_t code, std::string_view message)
      : std::runtime_error(std::string(code_name(code)) + ": " +
                           std::string(message)),
        code_(code),
        message_offset_(code_name(code).size() + 2) {}

  halo_status_code_t code() const noexcept { return code_; }

  // The status message without the "CODE: " prefix; valid while *this lives.
  std::string_view message() const noexcept {
    return std::string_view(what()).substr(message_offset_);
  }

 private:
  explicit Error(StatusPtr status)
      : Error(halo_status_code(status.get()),
              halo_status_message(status.get())) {}

  halo_status_code_t code_;
  std::size_t message_offset_;
};

// Takes ownership of |status|: returns when it is OK (NULL), else throws it as
// a halo::Error.
inline void check(halo_status_t status) {
  if (status != nullptr) {
    throw Error(status);
  }
}

// Selects the constructor of Ref that adds a reference instead of adopting one.
struct RetainTag {
  explicit RetainTag() = default;
};
inline constexpr RetainTag retain_ref{};

// A counted reference to a C handle of type T. Copying retains, destruction
// releases; a default-constructed or moved-from Ref holds NULL. Not
// synchronised: one Ref must not be assigned from two threads at once, though
// distinct Refs to one object may be used from any thread.
template <typename T, void (*RetainFn)(T*), void (*ReleaseFn)(T*)>
class Ref {
 public:
  using handle_type = T*;

  constexpr Ref() noexcept = default;
  // Adopts |handle|: takes ownership of one reference the caller holds.
  explicit Ref(T* handle) noexcept : handle_(handle) {}
  // Borrows |handle| and holds a new reference to it.
  Ref(RetainTag, T* handle) noexcept : handle_(handle) {
    if (handle_ != nullptr) {
      RetainFn(handle_);
    }
  }
  Ref(const Ref& other) noexcept : Ref(retain_ref, other.handle_) {}
  Ref(Ref&& other) noexcept : handle_(std::exchange(other.handle_, nullptr)) {}
  Ref& operator=(const Ref& other) noexcept {
    Ref(other).swap(*this);
    return *this;
  }
  Ref& operator=(Ref&& other) noexcept {
    Ref(std::move(other)).swap(*this);
    return *this;
  }
  ~Ref() { ReleaseFn(handle_); }

  // Returns the handle, borrowed: valid while *this holds it.
  T* get() const noexcept { return handle_; }
  // Gives up ownership: returns the handle with the reference *this held.
  [[nodiscard]] T* release() noexcept { return std::exchange(handle_, nullptr); }
  // Releases the held reference and adopts |handle|.
  void reset(T* handle = nullptr) noexcept { Ref(handle).swap(*this); }
  void swap(Ref& other) noexcept { std::swap(handle_, other.handle_); }
  explicit operator bool() const noexcept { return handle_ != nullptr; }
  friend bool operator==(const Ref& a, const Ref& b) noexcept {
    return a.handle_ == b.handle_;
  }

 private:
  T* handle_ = nullptr;
};

class Semaphore
    : public Ref<halo_semaphore_t, halo_semaphore_retain, halo_semaphore_release> {
 public:
  using Ref::Ref;

  // Returns the payload; throws the failure status if the semaphore failed.
  std::uint64_t query() const {
    std::uint64_t value = 0;
    check(halo_semaphore_query(get(), &value));
    return value;
  }
  void signal(std::uint64_t value) const {
    check(halo_semaphore_signal(get(), value));
  }
  // Fails the semaphore with a new status of |code| (not OK) and |message|.
  void fail(halo_status_code_t code, const char* message) const {
    check(halo_semaphore_fail(get(), halo_status_create(code, message)));
  }
  // Returns true once the payload reaches |value|, false when |deadline|
  // passes first; throws on failure. The default deadline blocks.
  bool wait(std::uint64_t value,
            halo_time_ns_t deadline = HALO_DEADLINE_INFINITE_FUTURE) const {
    StatusPtr status(halo_semaphore_wait(get(), value, deadline));
    if (halo_status_code(status.get()) == HALO_STATUS_DEADLINE_EXCEEDED) {
      return false;
    }
    check(status.release());
    return true;
  }
};

// A pollable wait handle (halo_fence_create_wait_handle): owns its fd, which
// becomes readable once the fence's timepoints were reached or one failed.
// Move-only; destruction cancels it and closes the fd.
class WaitHandle {
 public:
  WaitHandle() noexcept = default;
  explicit WaitHandle(halo_wait_handle_t* handle) noexcept : handle_(handle) {}
  WaitHandle(WaitHandle&& other) noexcept
      : handle_(std::exchange(other.handle_, nullptr)) {}
  WaitHandle& operator=(WaitHandle&& other) noexcept {
    WaitHandle(std::move(other)).swap(*this);
    return *this;
  }
  WaitHandle(const WaitHandle&) = delete;
  WaitHandle& operator=(const WaitHandle&) = delete;
  ~WaitHandle() { halo_wait_handle_destroy(handle_); }

  halo_wait_handle_t* get() const noexcept { return handle_; }
  void swap(WaitHandle& other) noexcept { std::swap(handle_, other.handle_); }
  explicit operator bool() const noexcept { return handle_ != nullptr; }
  // The fd to poll for POLLIN; owned by the handle.
  int fd() const noexcept { return halo_wait_handle_fd(handle_); }
  // True once reached; throws the failure once one failed; false before.
  bool ready() const {
    bool ready = false;
    check(halo_wait_handle_status(handle_, &ready));
    return ready;
  }

 private:
  halo_wait_handle_t* handle_ = nullptr;
};

// A set of (semaphore, value) timepoints over any devices and plugins
// (halo/fence.h). Copies share one fence.
class Fence : public Ref<halo_fence_t, halo_fence_retain, halo_fence_release> {
 public:
  using Ref::Ref;

  // A new, empty fence.
  static Fence create() {
    halo_fence_t* fence = nullptr;
    check(halo_fence_create(&fence));
    return Fence(fence);
  }
  // A new fence holding the one timepoint (|semaphore|, |value|).
  static Fence at(const Semaphore& semaphore, std::uint64_t value) {
    Fence fence = create();
    fence.insert(semaphore, value);
    return fence;
  }

  // Adds a timepoint, keeping the larger value for a semaphore held already.
  const Fence& insert(const Semaphore& semaphore, std::uint64_t value) const {
    check(halo_fence_insert(get(), semaphore.get(), value));
    return *this;
  }
  // Adds every timepoint of |other|.
  const Fence& join(const Fence& other) const {
    check(halo_fence_join(get(), other.get()));
    return *this;
  }
  // The timepoints, in insertion order.
  std::vector<std::pair<Semaphore, std::uint64_t>> timepoints() const {
    std::size_t count = 0;
    check(halo_fence_timepoints(get(), 0, nullptr, nullptr, &count));
    std::vector<halo_semaphore_t*> semaphores(count);
    std::vector<std::uint64_t> values(count);
    check(halo_fence_timepoints(get(), count, semaphores.data(), values.data(), &count));
    std::vector<std::pair<Semaphore, std::uint64_t>> result;
    for (std::size_t i = 0; i < std::min(count, semaphores.size()); ++i) {
      result.emplace_back(Semaphore(retain_ref, semaphores[i]), values[i]);
    }
    return result;
  }
  // True once every timepoint is reached; throws a member's failure.
  bool reached() const {
    bool reached = false;
    check(halo_fence_query(get(), &reached));
    return reached;
  }
  // True once reached, false when |deadline| passes first; throws on
  // failure. The default deadline blocks.
  bool wait(halo_time_ns_t deadline = HALO_DEADLINE_INFINITE_FUTURE) const {
    StatusPtr status(halo_fence_wait(get(), deadline));
    if (halo_status_code(status.get()) == HALO_STATUS_DEADLINE_EXCEEDED) {
      return false;
    }
    check(status.release());
    return true;
  }
  // Signals every timepoint from the host.
  void signal() const { check(halo_fence_signal(get())); }
  // A pollable handle for the timepoints held now.
  WaitHandle wait_handle() const {
    halo_wait_handle_t* handle = nullptr;
    check(halo_fence_create_wait_handle(get(), &handle));
    return WaitHandle(handle);
  }
};

class Device : public Ref<halo_device_t, halo_device_retain, halo_device_release> {
 public:
  using Ref::Ref;

  halo_device_info_t info() const {
    halo_device_info_t info{};
    info.struct_size = sizeof(info);
    check(halo_device_query_info(get(), &info));
    return info;
  }
  halo_device_capabilities_t capabilities() const {
    halo_device_capabilities_t capabilities{};
    capabilities.struct_size = sizeof(capabilities);
    check(halo_device_query_capabilities(get(), &capabilities));
    return capabilities;
  }
  Semaphore create_semaphore(
      std::uint64_t initial_value = 0,
      halo_semaphore_flags_t flags = HALO_SEMAPHORE_FLAG_NONE) const {
    halo_semaphore_t* semaphore = nullptr;
    check(halo_semaphore_create(get(), initial_value, flags, &semaphore));
    return Semaphore(semaphore);
  }
  halo_semaphore_compatibility_t semaphore_compatibility(
      const Semaphore& semaphore) const {
    halo_semaphore_compatibility_t compatibility = 0;
    check(halo_device_semaphore_compatibility(get(), semaphore.get(),
                                              &compatibility));
    return compatibility;
  }
  // Submits |info| without blocking (see halo_device_queue_execute).
  void queue_execute(const halo_queue_execute_info_t& info) const {
    check(halo_device_queue_execute(get(), &info));
  }
  // Submits |command_buffers| to wait on |waits| and signal |signals|
  // (either may be empty: no list) without blocking.
  void queue_execute(const Fence& waits, const Fence& signals,
                     const std::vector<halo_command_buffer_t*>& command_buffers = {},
                     halo_queue_affinity_t affinity = HALO_QUEUE_AFFINITY_ANY) const {
    check(halo_device_queue_execute_fences(get(), affinity, waits.get(), signals.get(),
                                           command_buffers.size(), command_buffers.data()));
  }
  void queue_flush(halo_queue_affinity_t affinity = HALO_QUEUE_AFFINITY_ANY) const {
    check(halo_device_queue_flush(get(), affinity));
  }
  // Returns true once idle, false when |deadline| passes first.
  bool wait_idle(halo_time_ns_t deadline = HALO_DEADLINE_INFINITE_FUTURE) const {
    StatusPtr status(halo_device_wait_idle(get(), deadline));
    if (halo_status_code(status.get()) == HALO_STATUS_DEADLINE_EXCEEDED) {
      return false;
    }
    check(status.release());
    return true;
  }
};

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
  Device create_device(halo_device_id_t device_id,
                       const halo_device_params_t* params = nullptr) const {
    halo_device_t* device = nullptr;
    check(halo_driver_create_device(get(), device_id, params, &device));
    return Device(device);
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
  Device create_device(std::size_t index,
                       const halo_device_params_t* params = nullptr) const {
    halo_device_t* device = nullptr;
    check(halo_registry_create_device(registry_, index, params, &device));
    return Device(device);
  }

 private:
  halo_registry_t* registry_ = nullptr;
};

}  // namespace halo

#endif  // HALO_HALO_HPP_
