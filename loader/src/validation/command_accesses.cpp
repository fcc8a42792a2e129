#include "command_accesses.hpp"

#include <mutex>
#include <unordered_map>

#include "../check.hpp"
#include "object_table.hpp"

namespace halo::loader::validation {
namespace {

struct Records {
  std::mutex mutex;
  std::unordered_map<const void*, std::vector<BufferAccess>> by_command_buffer;
};

// Never destroyed, as the object table.
Records& records() {
  static Records* instance = new Records();
  return *instance;
}

bool tracked(const void* command_buffer) noexcept {
  return settings_of(command_buffer) != nullptr;
}

}  // namespace

uint64_t range_end(halo_buffer_t* buffer, uint64_t offset,
                   uint64_t length) noexcept {
  if (length == HALO_WHOLE_BUFFER) {
    const uint64_t size = vtable_of<halo_buffer_vtable_t>(buffer)->size(buffer);
    return size > offset ? size : offset;
  }
  return length > UINT64_MAX - offset ? UINT64_MAX : offset + length;
}

void on_begin(halo_command_buffer_t* command_buffer) noexcept {
  if (!tracked(command_buffer)) return;
  Records& r = records();
  std::lock_guard lock(r.mutex);
  auto it = r.by_command_buffer.find(command_buffer);
  if (it != r.by_command_buffer.end()) it->second.clear();
}

void on_access(halo_command_buffer_t* command_buffer, halo_buffer_t* buffer,
               uint64_t offset, uint64_t length, bool writes) noexcept {
  if (!tracked(command_buffer)) return;
  const BufferAccess access{buffer, offset, range_end(buffer, offset, length),
                            writes};
  Records& r = records();
  std::lock_guard lock(r.mutex);
  try {
    r.by_command_buffer[command_buffer].push_back(access);
  } catch (...) {
    // Out of memory: this access goes unchecked.
  }
}

void on_dispatch(halo_command_buffer_t* command_buffer,
                 const halo_dispatch_params_t& params) noexcept {
  // The entry point's use of each binding is unknown: it may read and write.
  for (size_t i = 0; i < params.binding_count; ++i) {
    const halo_buffer_binding_t& binding = params.bindings[i];
    on_access(command_buffer, binding.buffer, binding.offset, binding.length,
              /*writes=*/true);
  }
}

void append_accesses(const halo_command_buffer_t* command_buffer,
                     std::vector<BufferAccess>* accesses) {
  Records& r = records();
  std::lock_guard lock(r.mutex);
  auto it = r.by_command_buffer.find(command_buffer);
  if (it == r.by_command_buffer.end()) return;
  accesses->insert(accesses->end(), it->second.begin(), it->second.end());
}

void forget_command_buffer(const void* command_buffer) noexcept {
  Records& r = records();
  std::lock_guard lock(r.mutex);
  r.by_command_buffer.erase(command_buffer);
}

}  // namespace halo::loader::validation
