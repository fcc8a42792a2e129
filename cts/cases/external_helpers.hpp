// Helpers shared by the external.* and interop.external.* cases
// (abi/include/halo/external.h): naming handle types, reading what a device
// reports it can export and import, skipping when it reports too little,
// application memory to import, and file descriptors that close themselves.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "case_helpers.hpp"

namespace halo::cts {

// Every handle type the ABI defines, in bit order.
inline constexpr halo_external_handle_type_t kHandleTypes[] = {
    HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION,
    HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF, HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD};

// The lowest type bit the ABI does not define.
inline constexpr halo_external_handle_type_t kUnknownHandleType =
    HALO_EXTERNAL_HANDLE_TYPES_KNOWN + 1;

// "OPAQUE_FD" for one type, for messages.
inline const char* handle_type_text(halo_external_handle_type_t type) {
  switch (type) {
    case HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD: return "OPAQUE_FD";
    case HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION: return "HOST_ALLOCATION";
    case HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF: return "DMA_BUF";
    case HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD: return "HOST_TIMELINE_FD";
    default: return "an unknown type";
  }
}

// "OPAQUE_FD|HOST_ALLOCATION" for a set of types, unknown bits in hex, or
// "none", for messages.
inline std::string handle_types_text(halo_external_handle_type_t types) {
  std::string text;
  for (halo_external_handle_type_t type : kHandleTypes) {
    if ((types & type) == 0) continue;
    text += text.empty() ? "" : "|";
    text += handle_type_text(type);
  }
  const halo_external_handle_type_t unknown = types & ~HALO_EXTERNAL_HANDLE_TYPES_KNOWN;
  if (unknown != 0) {
    char hex[16];
    std::snprintf(hex, sizeof(hex), "0x%x", unknown);
    text += text.empty() ? "" : "|";
    text += hex;
  }
  return text.empty() ? "none" : text;
}

inline bool is_fd_type(halo_external_handle_type_t type) {
  return type != HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
}

// The capabilities of any device (the context caches only its own).
inline halo_device_capabilities_t capabilities_of(halo_device_t* device) {
  halo_device_capabilities_t caps = {};
  caps.struct_size = sizeof(caps);
  CTS_ASSERT_OK(halo_device_query_capabilities(device, &caps));
  return caps;
}

// Whether |a| and |b| are one GPU: equal, non-zero uuids (Vulkan's
// deviceUUID and CUDA's device uuid agree on NVIDIA's drivers).
inline bool same_gpu(halo_device_t* a, halo_device_t* b) {
  halo_device_info_t info_a = {};
  info_a.struct_size = sizeof(info_a);
  halo_device_info_t info_b = info_a;
  CTS_ASSERT_OK(halo_device_query_info(a, &info_a));
  CTS_ASSERT_OK(halo_device_query_info(b, &info_b));
  static const uint8_t kZero[sizeof(info_a.uuid)] = {};
  return std::memcmp(info_a.uuid, info_b.uuid, sizeof(info_a.uuid)) == 0 &&
         std::memcmp(info_a.uuid, kZero, sizeof(kZero)) != 0;
}

// The device and the peer's, as the interop.external.* cases pair them.
struct PeerPair {
  halo_device_t* own;
  halo_device_t* foreign;
  halo_device_capabilities_t own_caps;
  halo_device_capabilities_t foreign_caps;
  std::string peer;  // "the peer's device (<its plugin>)", for messages.
  bool one_gpu;      // same_gpu(own, foreign).
};

inline PeerPair peer_pair_of(Context& ctx) {
  halo_device_t* foreign = ctx.foreign_device();
  return {ctx.device(),
          foreign,
          ctx.capabilities(),
          capabilities_of(foreign),
          "the peer's device (" + ctx.foreign_plugin_name() + ")",
          same_gpu(ctx.device(), foreign)};
}

// Skips the case, naming what |caps| reports for |what| (such as
// "buffer_export_types"), unless |types| has |type|.
inline void require_type(halo_external_handle_type_t types,
                         halo_external_handle_type_t type, const char* what,
                         const std::string& device = "the device") {
  if ((types & type) != 0) return;
  skip(device + "'s " + what + " (" + handle_types_text(types) + ") lack " +
       handle_type_text(type));
}

// The known types that |types| lacks.
inline std::vector<halo_external_handle_type_t> types_lacking(
    halo_external_handle_type_t types) {
  std::vector<halo_external_handle_type_t> lacking;
  for (halo_external_handle_type_t type : kHandleTypes) {
    if ((types & type) == 0) lacking.push_back(type);
  }
  return lacking;
}

// The memory type results are read through on a device other than the one
// under test: HOST_VISIBLE, plus HOST_COHERENT where offered. Every imported
// HOST_ALLOCATION is HOST_VISIBLE, so imports ask for this too.
inline halo_memory_type_t host_memory_type_of(const halo_device_capabilities_t& caps) {
  if ((caps.memory_types & HALO_MEMORY_TYPE_HOST_VISIBLE) == 0) {
    fail(__FILE__, __LINE__,
         "the device offers no HOST_VISIBLE memory (memory_types " +
             memory_type_text(caps.memory_types) + "); the CTS reads results through it");
  }
  return HALO_MEMORY_TYPE_HOST_VISIBLE | (caps.memory_types & HALO_MEMORY_TYPE_HOST_COHERENT);
}

// A handle struct as an export expects it: struct_size set, nothing else.
inline halo_external_handle_t empty_handle() {
  halo_external_handle_t handle = {};
  handle.struct_size = sizeof(handle);
  handle.fd = -1;
  return handle;
}

// Buffer params with every usage, for halo_buffer_allocate and
// halo_buffer_import.
inline halo_buffer_params_t buffer_params(uint64_t size, halo_memory_type_t memory_type,
                                          halo_buffer_flags_t flags = 0) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = memory_type;
  params.usage = kAllBufferUsage;
  params.flags = flags;
  params.size = size;
  return params;
}

// Allocates a buffer with HALO_BUFFER_FLAG_EXPORTABLE; fails the case unless
// OK. |alignment| as in halo_buffer_params_t.
inline BufferRef allocate_exportable(halo_device_t* device, uint64_t size,
                                     halo_memory_type_t memory_type, uint64_t alignment = 0) {
  halo_buffer_params_t params = buffer_params(size, memory_type, HALO_BUFFER_FLAG_EXPORTABLE);
  params.alignment = alignment;
  BufferRef buffer;
  halo_status_t status = halo_buffer_allocate(device, &params, buffer.out());
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         "halo_buffer_allocate(size " + std::to_string(size) +
             ", EXPORTABLE) on a device that reports buffer_export_types returned " +
             take_status_text(status) + ", expected OK");
  }
  return buffer;
}

// Exports |buffer| as |type|; fails the case unless OK and the handle is of
// |type| with what that type carries (an fd, or a host pointer) and at least
// the buffer's size.
inline halo_external_handle_t export_buffer(halo_buffer_t* buffer,
                                            halo_external_handle_type_t type) {
  halo_external_handle_t handle = empty_handle();
  halo_status_t status = halo_buffer_export(buffer, type, &handle);
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         std::string("halo_buffer_export(") + handle_type_text(type) + ") returned " +
             take_status_text(status) + ", expected OK");
  }
  const bool carries = is_fd_type(type) ? handle.fd >= 0 : handle.host_pointer != nullptr;
  CTS_ASSERT_MSG(handle.type == type && carries,
                 std::string("expected a ") + handle_type_text(type) +
                     " handle, got type " + handle_types_text(handle.type) + ", fd " +
                     std::to_string(handle.fd));
  CTS_ASSERT_MSG(handle.size >= halo_buffer_size(buffer),
                 "the handle's size is " + std::to_string(handle.size) +
                     ", expected at least the buffer's " +
                     std::to_string(halo_buffer_size(buffer)));
  return handle;
}

// Imports |handle| into |device| as a buffer of |params|; fails the case
// unless OK.
inline BufferRef import_buffer(halo_device_t* device, const halo_buffer_params_t& params,
                               const halo_external_handle_t& handle) {
  BufferRef buffer;
  halo_status_t status = halo_buffer_import(device, &params, &handle, buffer.out());
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         std::string("halo_buffer_import(") + handle_type_text(handle.type) + ", size " +
             std::to_string(params.size) + " of " + std::to_string(handle.size) +
             ") returned " + take_status_text(status) + ", expected OK");
  }
  CTS_ASSERT_EQ(halo_buffer_size(buffer.get()), params.size);
  return buffer;
}

// Calls halo_buffer_import with |out| preset to a non-NULL value and fails
// the case unless it returns INVALID_ARGUMENT naming the function and,
// where |device| and |params| are usable (libhalo then has cleared it, as
// halo_buffer_allocate does), leaves |out| NULL. |what| says which argument
// is wrong.
inline void check_buffer_import_invalid(halo_device_t* device, const halo_buffer_params_t* params,
                                        const halo_external_handle_t* handle,
                                        const std::string& what) {
  auto* const sentinel = reinterpret_cast<halo_buffer_t*>(uintptr_t{0x10});
  halo_buffer_t* out = sentinel;
  halo_status_t status = halo_buffer_import(device, params, handle, &out);
  const bool invalid = halo_status_code(status) == HALO_STATUS_INVALID_ARGUMENT &&
                       std::strstr(halo_status_message(status), "halo_buffer_import") != nullptr;
  const std::string text = take_status_text(status);
  if (out != nullptr && out != sentinel) halo_buffer_release(out);
  CTS_ASSERT_MSG(invalid, "halo_buffer_import with " + what + " returned " + text +
                              ", expected INVALID_ARGUMENT naming halo_buffer_import");
  if (device == nullptr || params == nullptr) return;
  CTS_ASSERT_MSG(out == nullptr, "halo_buffer_import with " + what +
                                     " failed but left out_buffer non-NULL, expected NULL");
}

// Creates a semaphore with |flags|; fails the case unless OK.
inline SemaphoreRef create_semaphore(halo_device_t* device, uint64_t initial_value,
                                     halo_semaphore_flags_t flags) {
  SemaphoreRef semaphore;
  halo_status_t status = halo_semaphore_create(device, initial_value, flags, semaphore.out());
  CTS_ASSERT_MSG(status == nullptr, "halo_semaphore_create(flags " + std::to_string(flags) +
                                        ") returned " + take_status_text(status) +
                                        ", expected OK");
  return semaphore;
}

// Exports |semaphore| as |type|; fails the case unless OK with an fd handle
// of that type.
inline halo_external_handle_t export_semaphore(halo_semaphore_t* semaphore,
                                               halo_external_handle_type_t type) {
  halo_external_handle_t handle = empty_handle();
  halo_status_t status = halo_semaphore_export(semaphore, type, &handle);
  CTS_ASSERT_MSG(status == nullptr, std::string("halo_semaphore_export(") +
                                        handle_type_text(type) + ") returned " +
                                        take_status_text(status) + ", expected OK");
  CTS_ASSERT_MSG(handle.type == type && handle.fd >= 0,
                 std::string("expected a ") + handle_type_text(type) + " handle with an fd, got " +
                     handle_types_text(handle.type) + " with fd " + std::to_string(handle.fd));
  return handle;
}

// A HOST_ALLOCATION handle of |size| bytes at |pointer|.
inline halo_external_handle_t host_handle(void* pointer, uint64_t size) {
  halo_external_handle_t handle = empty_handle();
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  handle.host_pointer = pointer;
  handle.size = size;
  return handle;
}

// |value| rounded up to a multiple of |alignment| (a power of two).
inline uint64_t round_up(uint64_t value, uint64_t alignment) {
  return (value + alignment - 1) & ~(alignment - 1);
}

// Application memory for HOST_ALLOCATION imports: |size| bytes (rounded up
// to |alignment|) at a multiple of |alignment|, from aligned_alloc, as an
// application would have it. An imported allocation is borrowed until the
// imported buffer is destroyed, after the last submission naming it has
// completed, so the destructor first waits until every device it was
// imported into is idle, and keeps the memory (a leak) rather than free it
// under work that did not finish.
class HostAllocation {
 public:
  HostAllocation(uint64_t size, uint64_t alignment)
      : size_(round_up(size, alignment)),
        bytes_(static_cast<uint8_t*>(std::aligned_alloc(alignment, size_))) {
    CTS_ASSERT_MSG(bytes_ != nullptr, "aligned_alloc(" + std::to_string(alignment) + ", " +
                                          std::to_string(size_) + ") returned NULL");
  }
  HostAllocation(const HostAllocation&) = delete;
  HostAllocation& operator=(const HostAllocation&) = delete;
  ~HostAllocation() {
    for (halo_device_t* device : devices_) {
      halo_status_t status = halo_device_wait_idle(device, deadline_in_ms(kGenerousMs));
      if (status != nullptr) {
        halo_status_free(status);
        return;
      }
    }
    std::free(bytes_);
  }

  uint8_t* bytes() const { return bytes_; }
  uint64_t size() const { return size_; }
  halo_external_handle_t handle() const { return host_handle(bytes_, size_); }

  // Imports the whole allocation into |device| (borrowed: it must outlive
  // this object) as a HOST_VISIBLE buffer with every usage; fails the case
  // unless OK.
  BufferRef import_into(halo_device_t* device) {
    devices_.push_back(device);
    return import_buffer(device, buffer_params(size_, host_memory_type_of(capabilities_of(device))),
                         handle());
  }

  // The 32-bit words at [offset, offset + 4 * count), read from the memory
  // itself, never through a mapping.
  std::vector<uint32_t> words(uint64_t offset, size_t count) const {
    std::vector<uint32_t> values(count);
    std::memcpy(values.data(), bytes_ + offset, count * 4);
    return values;
  }
  void write_words(uint64_t offset, const std::vector<uint32_t>& values) {
    std::memcpy(bytes_ + offset, values.data(), values.size() * 4);
  }

 private:
  uint64_t size_;
  uint8_t* bytes_;
  std::vector<halo_device_t*> devices_;
};

// The device's host_allocation_alignment; skips the case unless the device
// imports HOST_ALLOCATION buffers. Fails on an alignment that is not a
// power of two (external.capabilities.consistent names that too).
inline uint64_t host_import_alignment(const halo_device_capabilities_t& caps,
                                      const std::string& device = "the device") {
  require_type(caps.buffer_import_types, HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION,
               "buffer_import_types", device);
  const uint64_t alignment = caps.host_allocation_alignment;
  CTS_ASSERT_MSG(alignment != 0 && (alignment & (alignment - 1)) == 0,
                 "host_allocation_alignment is " + std::to_string(alignment) +
                     ", expected a power of two with HOST_ALLOCATION imports");
  return alignment;
}

// A few pages (at least 16 KiB) rounded up to |alignment|: large enough
// that a device copying page by page crosses pages.
inline uint64_t few_pages(uint64_t alignment) {
  const long page = sysconf(_SC_PAGESIZE);
  const uint64_t base = 4 * static_cast<uint64_t>(page > 0 ? page : 4096);
  return round_up(base < 16384 ? 16384 : base, alignment);
}

// |count| 32-bit words base, base + 1, …: data whose every word differs, so
// a misplaced or missing word shows.
inline std::vector<uint32_t> ramp(uint32_t base, size_t count) {
  std::vector<uint32_t> values(count);
  for (size_t i = 0; i < count; ++i) values[i] = base + static_cast<uint32_t>(i);
  return values;
}

// Closes the file descriptor it holds, unless an import took it.
class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() {
    if (fd_ >= 0) close(fd_);
  }
  int get() const { return fd_; }
  // An import that returned OK owns the fd now.
  void taken() { fd_ = -1; }

 private:
  int fd_;
};

// True while |fd| is an open file descriptor of this process.
inline bool fd_is_open(int fd) { return fcntl(fd, F_GETFD) != -1; }

// Opens /dev/null: a file descriptor that names no memory and no semaphore.
inline int open_dev_null() {
  const int fd = open("/dev/null", O_RDWR | O_CLOEXEC);
  CTS_ASSERT_MSG(fd >= 0, std::string("open(\"/dev/null\") failed: ") + std::strerror(errno));
  return fd;
}

}  // namespace halo::cts
