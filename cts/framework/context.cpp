#include <algorithm>
#include <cstring>

#include "cts.hpp"

namespace halo::cts {
namespace {

std::vector<Case>& mutable_cases() {
  static std::vector<Case> cases;
  return cases;
}

struct NeedBit {
  Need need;
  halo_device_features_t feature;
  const char* feature_name;
};

constexpr NeedBit kFeatureNeeds[] = {
    {kNeedSemaphores, HALO_DEVICE_FEATURE_SEMAPHORES,
     "HALO_DEVICE_FEATURE_SEMAPHORES"},
    {kNeedQueues, HALO_DEVICE_FEATURE_QUEUES, "HALO_DEVICE_FEATURE_QUEUES"},
    {kNeedBuffers, HALO_DEVICE_FEATURE_BUFFERS, "HALO_DEVICE_FEATURE_BUFFERS"},
    {kNeedCommandBuffers, HALO_DEVICE_FEATURE_COMMAND_BUFFERS,
     "HALO_DEVICE_FEATURE_COMMAND_BUFFERS"},
    {kNeedDispatch, HALO_DEVICE_FEATURE_DISPATCH,
     "HALO_DEVICE_FEATURE_DISPATCH"},
};

}  // namespace

CaseRegistrar::CaseRegistrar(const Case& c) { mutable_cases().push_back(c); }

const std::vector<Case>& all_cases() {
  static const bool sorted = [] {
    auto& cases = mutable_cases();
    std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) {
      return std::strcmp(a.name, b.name) < 0;
    });
    return true;
  }();
  (void)sorted;
  return mutable_cases();
}

std::string missing_needs(uint64_t needs, const Context& context) {
  auto& mutable_context = const_cast<Context&>(context);
  const halo_device_capabilities_t& caps = mutable_context.capabilities();
  std::string missing;
  for (const NeedBit& bit : kFeatureNeeds) {
    if ((needs & bit.need) != 0 && (caps.features & bit.feature) == 0) {
      missing += missing.empty() ? "" : ", ";
      missing += bit.feature_name;
    }
  }
  if (!missing.empty()) {
    return "the device does not report " + missing;
  }
  if ((needs & kNeedSecondPlugin) != 0 &&
      mutable_context.foreign_device() == nullptr) {
    if (!mutable_context.peer_name().empty()) {
      return "the peer plugin " + mutable_context.peer_name() +
             " is not loaded or offers no device with semaphores";
    }
    return "no other loaded plugin offers a device with semaphores";
  }
  if ((needs & kNeedManifest) != 0 && context.manifest_path().empty()) {
    return context.manifest_missing_reason().empty()
               ? "certifying a bare library, no manifest"
               : context.manifest_missing_reason();
  }
  return {};
}

Context::Context(halo_registry_t* registry, halo_driver_t* driver,
                 std::string plugin_name, uint64_t seed,
                 std::string testdata_dir, size_t device_index,
                 std::string peer_name)
    : registry_(registry),
      driver_(driver),
      plugin_name_(std::move(plugin_name)),
      seed_(seed),
      testdata_dir_(std::move(testdata_dir)),
      device_index_(device_index),
      peer_name_(std::move(peer_name)) {}

Context::~Context() {
  // Work a case left in flight finishes before the worker tears down and
  // exits, so that no plugin thread is still releasing another plugin's
  // objects (a foreign semaphore a submission retained) while exit() runs.
  // Cases about releasing with work in flight do that themselves.
  for (halo_device_t* device : {device_, second_device_, foreign_device_}) {
    if (device != nullptr) {
      halo_status_free(halo_device_wait_idle(device, deadline_in_ms(kGenerousMs)));
    }
  }
  for (halo_semaphore_t* semaphore : semaphores_) {
    halo_semaphore_release(semaphore);
  }
  halo_device_release(foreign_device_);
  halo_device_release(second_device_);
  halo_device_release(device_);
}

halo_device_t* Context::create_device(halo_driver_t* driver, size_t index) {
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  halo_status_t status = halo_driver_query_device_info(driver, index, &info);
  if (status != nullptr) {
    // The driver's description says why a device may be missing in this
    // process (a platform that failed to start, say).
    halo_driver_info_t driver_info = {};
    driver_info.struct_size = sizeof(driver_info);
    halo_status_free(halo_driver_query_info(driver, &driver_info));
    fail(__FILE__, __LINE__, "halo_driver_query_device_info returned " +
                                 take_status_text(status) + " (driver: " +
                                 driver_info.description + ")");
  }
  halo_device_t* device = nullptr;
  status = halo_driver_create_device(driver, info.device_id, nullptr, &device);
  if (status != nullptr) {
    fail(__FILE__, __LINE__, std::string("halo_driver_create_device(") +
                                 info.name + ") returned " +
                                 take_status_text(status));
  }
  return device;
}

halo_device_t* Context::device() {
  if (device_ == nullptr) device_ = create_device(driver_, device_index_);
  return device_;
}

halo_device_t* Context::second_device() {
  if (second_device_ == nullptr) {
    size_t count = 0;
    halo_status_free(halo_driver_device_count(driver_, &count));
    second_device_ = create_device(
        driver_, count > 1 ? (device_index_ + 1) % count : device_index_);
  }
  return second_device_;
}

// A device of |driver| with semaphores, or NULL. A plugin that cannot make
// one is not the plugin under test, so its errors end the search there
// instead of failing the case.
halo_device_t* Context::device_with_semaphores(halo_driver_t* driver) {
  size_t device_count = 0;
  halo_status_free(halo_driver_device_count(driver, &device_count));
  if (device_count == 0) return nullptr;
  halo_device_t* device = nullptr;
  try {
    device = create_device(driver, 0);
  } catch (const Failure&) {
    return nullptr;
  }
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  halo_status_t status = halo_device_query_capabilities(device, &caps);
  if (status != nullptr ||
      (caps.features & HALO_DEVICE_FEATURE_SEMAPHORES) == 0) {
    halo_status_free(status);
    halo_device_release(device);
    return nullptr;
  }
  return device;
}

namespace {

// The name |driver| reports, or "" when it cannot say.
std::string driver_name(halo_driver_t* driver) {
  halo_driver_info_t info = {};
  info.struct_size = sizeof(info);
  halo_status_t status = halo_driver_query_info(driver, &info);
  if (status != nullptr) {
    halo_status_free(status);
    return {};
  }
  return info.name;
}

}  // namespace

bool Context::is_peer(halo_driver_t* driver) const {
  if (peer_name_.empty()) return true;
  const std::string name = driver_name(driver);
  return !name.empty() && name == peer_name_;
}

halo_device_t* Context::foreign_device() {
  if (foreign_searched_) return foreign_device_;
  foreign_searched_ = true;
  size_t driver_count = 0;
  halo_status_free(halo_registry_driver_count(registry_, &driver_count));
  for (size_t i = 0; i < driver_count && foreign_device_ == nullptr; ++i) {
    halo_driver_t* other = nullptr;
    halo_status_t status = halo_registry_driver(registry_, i, &other);
    if (status != nullptr) {
      halo_status_free(status);
      continue;
    }
    if (other != driver_ && is_peer(other)) {
      foreign_device_ = device_with_semaphores(other);
      // The reports name the peer each case paired with.
      if (foreign_device_ != nullptr) foreign_plugin_name_ = driver_name(other);
    }
    halo_driver_release(other);
  }
  return foreign_device_;
}

void Context::set_manifest(std::string path, std::string missing_reason) {
  manifest_path_ = std::move(path);
  manifest_missing_reason_ = std::move(missing_reason);
}

const halo_device_capabilities_t& Context::capabilities() {
  if (!have_capabilities_) {
    capabilities_.struct_size = sizeof(capabilities_);
    halo_status_t status =
        halo_device_query_capabilities(device(), &capabilities_);
    if (status != nullptr) {
      fail(__FILE__, __LINE__, "halo_device_query_capabilities returned " +
                                   take_status_text(status));
    }
    have_capabilities_ = true;
  }
  return capabilities_;
}

halo_semaphore_t* Context::semaphore(uint64_t initial_value,
                                     halo_device_t* device) {
  if (device == nullptr) device = this->device();
  halo_semaphore_t* semaphore = nullptr;
  halo_status_t status = halo_semaphore_create(
      device, initial_value, HALO_SEMAPHORE_FLAG_NONE, &semaphore);
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         "halo_semaphore_create returned " + take_status_text(status));
  }
  semaphores_.push_back(semaphore);
  return semaphore;
}

void fail(const char* file, int line, const std::string& message) {
  const char* base = std::strrchr(file, '/');
  throw Failure(std::string(base != nullptr ? base + 1 : file) + ":" +
                std::to_string(line) + ": " + message);
}

bool find_plugin_record(halo_registry_t* registry, const std::string& name,
                        halo_plugin_record_t* out_record) {
  size_t count = 0;
  halo_status_free(halo_registry_plugin_count(registry, &count));
  for (size_t i = 0; i < count; ++i) {
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    halo_status_t status = halo_registry_plugin_record(registry, i, &record);
    if (status != nullptr) {
      halo_status_free(status);
      continue;
    }
    if (record.state == HALO_PLUGIN_STATE_LOADED && name == record.name) {
      *out_record = record;
      return true;
    }
  }
  return false;
}

std::string take_status_text(halo_status_t status) {
  if (status == nullptr) return "OK";
  std::string text = std::string(halo_status_code_name(halo_status_code(status))) +
                     ": " + halo_status_message(status);
  halo_status_free(status);
  return text;
}

halo_status_t queue_execute(halo_device_t* device,
                            const std::vector<halo_semaphore_t*>& waits,
                            const std::vector<uint64_t>& wait_values,
                            const std::vector<halo_semaphore_t*>& signals,
                            const std::vector<uint64_t>& signal_values) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = waits.size();
  info.wait_semaphores = waits.data();
  info.wait_values = wait_values.data();
  info.signal_count = signals.size();
  info.signal_semaphores = signals.data();
  info.signal_values = signal_values.data();
  return halo_device_queue_execute(device, &info);
}

halo_time_ns_t deadline_in_ms(int64_t milliseconds) {
  return halo_deadline_after_ns(milliseconds * 1000000);
}

}  // namespace halo::cts
