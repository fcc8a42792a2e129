// The imports libhalo makes on its own (device-side waits, buffers named by
// another device's commands): one per (object, device) pair, made once and
// kept, or remembered as impossible so that it is not tried again.
//
// An entry holds its import (which holds the device) and not the object it
// was made of: the owner of the table forgets the entries of an object
// before that object's destroy runs (so a new object at its address never
// finds them), and those of a device before each public release of the
// device (so that an application's last release still tears it down).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <unordered_map>

#include "check.hpp"
#include "object_refs.hpp"

namespace halo::loader {

struct ImportKey {
  const void* object;
  const void* device;
  bool operator==(const ImportKey&) const = default;
};

struct ImportKeyHash {
  size_t operator()(const ImportKey& key) const noexcept {
    const auto a = reinterpret_cast<uintptr_t>(key.object);
    const auto b = reinterpret_cast<uintptr_t>(key.device);
    return std::hash<uintptr_t>()(a ^ (b * 0x9E3779B97F4A7C15ull));
  }
};

// What one try at an import gave: the import (a new reference), or NULL,
// and whether to remember a NULL. A failure that may pass (file
// descriptors or memory running out) is not remembered: the pair is tried
// again on its next use.
template <typename Handle>
struct MadeImport {
  Handle* import = nullptr;
  bool remember = true;
};

// |Handle|: halo_semaphore_t or halo_buffer_t.
template <typename Handle>
class ImportTable {
 public:
  // Returns the pair's import, retained, or NULL (not tried yet: *tried
  // false; cannot share: *tried true).
  Handle* find(const ImportKey& key, bool* tried) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto found = entries_.find(key);
    *tried = found != entries_.end();
    if (!*tried || found->second == nullptr) return nullptr;
    retain_object(as_object(found->second));
    return found->second;
  }

  // Records the pair's |import| (a new reference, or NULL), unless another
  // thread got there first. Returns what the table keeps, retained, and
  // releases |import| when it is not that. Throws std::bad_alloc, having
  // released |import|.
  Handle* insert(const ImportKey& key, Handle* import) {
    Handle* kept = nullptr;
    try {
      std::lock_guard<std::mutex> lock(mutex_);
      auto [entry, inserted] = entries_.try_emplace(key, import);
      kept = entry->second;
      if (inserted) size_.store(entries_.size(), std::memory_order_relaxed);
      if (kept != nullptr) retain_object(as_object(kept));
      if (inserted) import = nullptr;
    } catch (...) {
      release_object(as_object(import));  // Out of memory: not kept.
      throw;
    }
    release_object(as_object(import));
    return kept;
  }

  // The pair's import, retained, or NULL; made by |make| (returning a
  // MadeImport) on first use, and again after a failure it did not ask to
  // remember. Throws std::bad_alloc.
  template <typename Make>
  Handle* find_or_make(const ImportKey& key, Make make) {
    bool tried = false;
    Handle* import = find(key, &tried);
    if (tried) return import;
    const MadeImport<Handle> made = make();
    if (made.import == nullptr && !made.remember) return nullptr;
    return insert(key, made.import);
  }

  void forget_object(const void* object) noexcept {
    forget([&](const ImportKey& key) { return key.object == object; });
  }

  void forget_device(const void* device) noexcept {
    forget([&](const ImportKey& key) { return key.device == device; });
  }

 private:
  // Removes every entry |matches| selects and releases their imports,
  // outside the lock: a release may cascade into plugins (the device, its
  // driver), which may release objects and so come back here. In batches,
  // so that it allocates nothing.
  template <typename Matches>
  void forget(Matches matches) noexcept {
    if (size_.load(std::memory_order_relaxed) == 0) return;
    constexpr size_t kBatch = 16;
    bool more = true;
    while (more) {
      Handle* gone[kBatch];
      size_t count = 0;
      more = false;
      {
        std::lock_guard<std::mutex> lock(mutex_);
        for (auto entry = entries_.begin(); entry != entries_.end();) {
          if (!matches(entry->first)) {
            ++entry;
            continue;
          }
          if (entry->second != nullptr) {
            if (count == kBatch) {
              more = true;
              break;
            }
            gone[count++] = entry->second;
          }
          entry = entries_.erase(entry);
        }
        size_.store(entries_.size(), std::memory_order_relaxed);
      }
      for (size_t i = 0; i < count; ++i) release_object(as_object(gone[i]));
    }
  }

  std::mutex mutex_;
  std::unordered_map<ImportKey, Handle*, ImportKeyHash> entries_;
  // entries_.size(), read without the lock so that releases of objects and
  // devices cost one load while no import exists.
  std::atomic<size_t> size_{0};
};

}  // namespace halo::loader
