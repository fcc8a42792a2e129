#include "shared_buffers.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "check.hpp"
#include "external_checks.hpp"
#include "halo/external.h"
#include "import_table.hpp"
#include "log.hpp"
#include "object_refs.hpp"
#include "sharing_refusal.hpp"

namespace halo::loader {
namespace {

// What libhalo knows of an EXPORTABLE buffer: enough to import it elsewhere.
struct ExportableBuffer {
  halo_device_t* device;  // Retained by the buffer itself.
  halo_buffer_params_t params;
};

// What libhalo knows of a command buffer: its device, and the buffers it
// keeps alive for the imports it names (one reference each).
struct Recorder {
  halo_device_t* device;
  std::vector<halo_buffer_t*> kept;
};

class Registry {
 public:
  void note_exportable(halo_buffer_t* buffer, const ExportableBuffer& record) {
    std::lock_guard<std::mutex> lock(mutex_);
    exportable_.insert_or_assign(buffer, record);
    exportable_count_.store(exportable_.size(), std::memory_order_relaxed);
  }

  void note_command_buffer(halo_command_buffer_t* command_buffer,
                           halo_device_t* device) {
    std::lock_guard<std::mutex> lock(mutex_);
    command_buffers_.insert_or_assign(command_buffer, Recorder{device, {}});
  }

  // True while any EXPORTABLE buffer lives: read without the lock.
  bool any_exportable() const noexcept {
    return exportable_count_.load(std::memory_order_relaxed) != 0;
  }

  // When |buffer| is EXPORTABLE and of another device than
  // |command_buffer|, fills its record and the command buffer's device.
  bool foreign(halo_command_buffer_t* command_buffer, halo_buffer_t* buffer,
               ExportableBuffer* record, halo_device_t** device) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto exportable = exportable_.find(buffer);
    if (exportable == exportable_.end()) return false;
    auto recorder = command_buffers_.find(command_buffer);
    if (recorder == command_buffers_.end() ||
        recorder->second.device == exportable->second.device) {
      return false;
    }
    *record = exportable->second;
    *device = recorder->second.device;
    return true;
  }

  // Has |command_buffer| keep |buffer| alive (once).
  void keep(halo_command_buffer_t* command_buffer, halo_buffer_t* buffer) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto recorder = command_buffers_.find(command_buffer);
    if (recorder == command_buffers_.end()) return;
    std::vector<halo_buffer_t*>& kept = recorder->second.kept;
    if (std::find(kept.begin(), kept.end(), buffer) != kept.end()) return;
    kept.push_back(buffer);
    retain_object(as_object(buffer));
  }

  void forget_exportable(const void* buffer) noexcept {
    if (!any_exportable()) return;
    std::lock_guard<std::mutex> lock(mutex_);
    exportable_.erase(buffer);
    exportable_count_.store(exportable_.size(), std::memory_order_relaxed);
  }

  std::vector<halo_buffer_t*> take_command_buffer(
      const void* command_buffer) noexcept {
    std::lock_guard<std::mutex> lock(mutex_);
    auto node = command_buffers_.extract(command_buffer);
    if (node.empty()) return {};
    return std::move(node.mapped().kept);
  }

  ImportTable<halo_buffer_t>& imports() { return imports_; }

 private:
  std::mutex mutex_;
  std::unordered_map<const void*, ExportableBuffer> exportable_;
  std::unordered_map<const void*, Recorder> command_buffers_;
  std::atomic<size_t> exportable_count_{0};
  ImportTable<halo_buffer_t> imports_;
};

Registry& registry() {
  // Never destroyed: buffers may be released from threads that outlive
  // static destruction.
  static auto* instance = new Registry();
  return *instance;
}

// Exports |buffer| (described by |record|) in each type its device exports
// and |device| imports for buffers, until an import succeeds. Returns the
// import (a new reference) or NULL (kept as the pair's answer unless the
// failure may pass), saying why when HALO_LOADER_DEBUG asks.
MadeImport<halo_buffer_t> make_import(halo_device_t* device,
                                      halo_buffer_t* buffer,
                                      const ExportableBuffer& record) noexcept {
  static const char kFunction[] = "buffer sharing";
  halo_device_capabilities_t importer;
  halo_device_capabilities_t exporter;
  halo_status_t status = query_capabilities(device, kFunction, &importer);
  if (status == nullptr) {
    status = query_capabilities(record.device, kFunction, &exporter);
  }
  if (status != nullptr) {
    halo_status_free(status);
    return {};
  }
  const halo_external_handle_type_t types =
      exporter.buffer_export_types & importer.buffer_import_types;
  // Fds or memory that ran out may not have by the next try
  // (sharing_refusal.hpp).
  bool transient = false;
  for (halo_external_handle_type_t type = 1;
       type & HALO_EXTERNAL_HANDLE_TYPES_KNOWN; type <<= 1) {
    if ((types & type) == 0) continue;
    halo_external_handle_t handle = {};
    handle.struct_size = sizeof(handle);
    status = halo_buffer_export(buffer, type, &handle);
    halo_buffer_t* import = nullptr;
    if (status == nullptr) {
      // The buffer as it was allocated, on the importer's side of the
      // rules of halo_buffer_import (external.h).
      halo_buffer_params_t params = record.params;
      params.struct_size = sizeof(params);
      params.flags = 0;
      params.alignment = 0;
      if (type == HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION) {
        params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE |
                             (importer.memory_types &
                              HALO_MEMORY_TYPE_HOST_COHERENT);
        // The exporter may name its whole pages; the importer takes the
        // buffer's bytes rounded to its own alignment, where they fit.
        const uint64_t alignment = importer.host_allocation_alignment;
        if (alignment != 0) {
          const uint64_t rounded =
              (params.size + alignment - 1) / alignment * alignment;
          if (rounded >= params.size && rounded <= handle.size) {
            handle.size = rounded;
          }
        }
      }
      status = halo_buffer_import(device, &params, &handle, &import);
      // A failed import leaves the descriptor with its caller (external.h).
      if (status != nullptr && type != HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION &&
          handle.fd >= 0) {
        close(handle.fd);
      }
    }
    if (status == nullptr) {
      log_message(HALO_LOG_LEVEL_INFO, "buffer sharing: a buffer shared as %s",
                  handle_type_name(type));
      return {import, true};
    }
    if (log_enabled(HALO_LOG_LEVEL_DEBUG)) {
      log_message(HALO_LOG_LEVEL_DEBUG,
                  "buffer sharing: not as %s: %s (the command is refused)",
                  handle_type_name(type), halo_status_message(status));
    }
    transient |= refusal_may_pass(status);
    halo_status_free(status);
  }
  return {nullptr, !transient};
}

}  // namespace

void note_exportable_buffer(halo_device_t* device, halo_buffer_t* buffer,
                            const halo_buffer_params_t& params) {
  ExportableBuffer record{device, {}};
  // The members this libhalo knows, of a struct that may be older.
  std::memcpy(&record.params, &params,
              std::min<size_t>(params.struct_size, sizeof(record.params)));
  registry().note_exportable(buffer, record);
}

void note_command_buffer(halo_device_t* device,
                         halo_command_buffer_t* command_buffer) {
  registry().note_command_buffer(command_buffer, device);
}

SharedBufferArguments::~SharedBufferArguments() {
  for (halo_buffer_t* import : imports_) release_object(as_object(import));
}

halo_buffer_t* SharedBufferArguments::operator()(halo_buffer_t* buffer) {
  Registry& shared = registry();
  if (!shared.any_exportable()) return buffer;
  ExportableBuffer record;
  halo_device_t* device = nullptr;
  if (!shared.foreign(command_buffer_, buffer, &record, &device)) {
    return buffer;
  }
  imports_.reserve(imports_.size() + 1);
  halo_buffer_t* import = shared.imports().find_or_make(
      {buffer, device}, [&] { return make_import(device, buffer, record); });
  if (import == nullptr) return buffer;  // Its plugin refuses it.
  imports_.push_back(import);
  shared.keep(command_buffer_, buffer);
  return import;
}

const halo_dispatch_params_t* SharedBufferArguments::dispatch(
    const halo_dispatch_params_t* params) {
  if (!registry().any_exportable()) return params;
  for (size_t i = 0; i < params->binding_count; ++i) {
    halo_buffer_t* buffer = (*this)(params->bindings[i].buffer);
    if (buffer == params->bindings[i].buffer) continue;
    if (bindings_.empty()) {
      bindings_.assign(params->bindings,
                       params->bindings + params->binding_count);
    }
    bindings_[i].buffer = buffer;
  }
  if (bindings_.empty()) return params;
  // The members this libhalo knows, of a struct that may be older.
  std::memcpy(&params_, params,
              std::min<size_t>(params->struct_size, sizeof(params_)));
  params_.struct_size = sizeof(params_);
  params_.bindings = bindings_.data();
  return &params_;
}

void forget_buffer(halo_object_t* buffer) noexcept {
  registry().forget_exportable(buffer);
  registry().imports().forget_object(buffer);
}

std::vector<halo_buffer_t*> take_command_buffer(
    halo_object_t* command_buffer) noexcept {
  return registry().take_command_buffer(command_buffer);
}

void forget_buffer_imports_into_device(halo_device_t* device) noexcept {
  registry().imports().forget_device(device);
}

}  // namespace halo::loader
