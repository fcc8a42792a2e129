#include "object_table.hpp"

#include <algorithm>
#include <deque>
#include <mutex>
#include <unordered_map>

#include "../check.hpp"
#include "report.hpp"

namespace halo::loader::validation {
namespace {

// Released objects remembered at once: enough for a use after release of any
// recently released object, bounded for programs that create many.
constexpr size_t kMaxTombstones = 16384;

struct Table {
  std::mutex mutex;
  std::unordered_map<const void*, ObjectInfo> entries;
  // Tombstoned addresses with their serials, oldest first; an address whose
  // entry changed since (re-tracked) is skipped when evicted.
  std::deque<std::pair<const void*, uint64_t>> tombstones;
  uint64_t next_serial = 1;
};

// Never destroyed: objects are released from plugin threads and exit
// handlers after static destructors may have run.
Table& table() {
  static Table* instance = new Table();
  return *instance;
}

void evict_old_tombstones(Table& t) {
  while (t.tombstones.size() > kMaxTombstones) {
    const auto [address, serial] = t.tombstones.front();
    t.tombstones.pop_front();
    auto it = t.entries.find(address);
    if (it != t.entries.end() && it->second.released &&
        it->second.serial == serial) {
      t.entries.erase(it);
    }
  }
}

}  // namespace

void track(const void* object, halo_object_type_t type, const char* creator,
           std::shared_ptr<const RegistryValidation> settings) noexcept {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  try {
    ObjectInfo& info = t.entries[object];
    info.type = type;
    info.creator = creator;
    info.settings = std::move(settings);
    info.released = false;
    info.serial = t.next_serial++;
    info.application_references = 1;
  } catch (...) {
    // Out of memory: this object goes untracked.
  }
}

void on_created_for(std::shared_ptr<const RegistryValidation> settings,
                    const void* object, halo_object_type_t type,
                    const char* creator) noexcept {
  if (settings != nullptr) {
    track(object, type, creator, std::move(settings));
    return;
  }
  Table& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.entries.find(object);
  if (it != t.entries.end() && it->second.released) t.entries.erase(it);
}

void on_created(const void* parent, const void* object,
                halo_object_type_t type, const char* creator) noexcept {
  on_created_for(settings_of(parent), object, type, creator);
}

ReferenceCheck count_application_reference(const void* object, int delta,
                                           ObjectInfo* out_info) noexcept {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.entries.find(object);
  if (it == t.entries.end()) return ReferenceCheck::kUntracked;
  ObjectInfo& info = it->second;
  try {
    *out_info = info;
  } catch (...) {
    return ReferenceCheck::kUntracked;
  }
  if (info.released) return ReferenceCheck::kReleased;
  if (info.application_references + delta < 0) {
    return ReferenceCheck::kOverReleased;
  }
  info.application_references += delta;
  return ReferenceCheck::kCounted;
}

std::optional<ObjectInfo> lookup(const void* object) noexcept {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.entries.find(object);
  if (it == t.entries.end()) return std::nullopt;
  return it->second;
}

std::shared_ptr<const RegistryValidation> settings_of(
    const void* object) noexcept {
  if (object == nullptr) return nullptr;
  Table& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.entries.find(object);
  if (it == t.entries.end() || it->second.released) return nullptr;
  return it->second.settings;
}

bool mark_released(const void* object) noexcept {
  Table& t = table();
  std::lock_guard lock(t.mutex);
  auto it = t.entries.find(object);
  if (it == t.entries.end() || it->second.released) return false;
  try {
    t.tombstones.emplace_back(object, it->second.serial);
  } catch (...) {
    // No room to remember it: forget the object instead.
    t.entries.erase(it);
    return true;
  }
  it->second.released = true;
  evict_old_tombstones(t);
  return true;
}

std::vector<std::pair<const void*, ObjectInfo>> live_objects_of(
    const RegistryValidation* settings) noexcept {
  std::vector<std::pair<const void*, ObjectInfo>> live;
  try {
    Table& t = table();
    std::lock_guard lock(t.mutex);
    for (const auto& [address, info] : t.entries) {
      if (!info.released && info.settings.get() == settings &&
          info.application_references > 0) {
        live.emplace_back(address, info);
      }
    }
  } catch (...) {
    live.clear();
  }
  std::sort(live.begin(), live.end(), [](const auto& a, const auto& b) {
    return a.second.serial < b.second.serial;
  });
  return live;
}

std::string describe(const void* object, halo_object_type_t type) noexcept {
  std::optional<ObjectInfo> info = lookup(object);
  if (!info.has_value()) {
    return format("%s %p", object_type_name(type), object);
  }
  return format("%s %p (created by %s)", object_type_name(info->type), object,
                info->creator);
}

}  // namespace halo::loader::validation
