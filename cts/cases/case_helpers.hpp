// Helpers shared by the case files: reading a semaphore's value, checking a
// failure's code and message, joining helper threads, and waiting (by
// polling, never by sleeping) for something another thread does; and, for
// the buffer, command buffer, dispatch and lifetime cases, owning handles,
// mapped reads and writes, submissions and gates.
#pragma once

#include <atomic>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cts.hpp"

namespace halo::cts {

// Returns the payload of |semaphore|; fails the case when the query does not
// return OK.
inline uint64_t value_of(halo_semaphore_t* semaphore) {
  uint64_t value = 0;
  halo_status_t status = halo_semaphore_query(semaphore, &value);
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         "halo_semaphore_query returned " + take_status_text(status));
  }
  return value;
}

// Fails the case unless |status| has |code| and exactly |message|; frees it.
inline void check_failure(halo_status_t status, halo_status_code_t code,
                          const std::string& message, const char* what,
                          const char* file, int line) {
  const halo_status_code_t actual = halo_status_code(status);
  const std::string actual_message = halo_status_message(status);
  const std::string text = take_status_text(status);
  if (actual != code || actual_message != message) {
    fail(file, line,
         std::string(what) + " returned " + text + ", expected " +
             halo_status_code_name(code) + ": " + message);
  }
}

// Asserts |expression| returns a status with |code| and exactly |message|.
#define CTS_ASSERT_FAILURE(expression, code, message)                     \
  ::halo::cts::check_failure((expression), (code), (message), #expression, \
                             __FILE__, __LINE__)

// Fails the case unless |status| is INVALID_ARGUMENT with a message that
// names |function|; frees it.
inline void check_invalid(halo_status_t status, const char* function,
                          const char* what, const char* file, int line) {
  const halo_status_code_t code = halo_status_code(status);
  const bool named =
      std::strstr(halo_status_message(status), function) != nullptr;
  const std::string text = take_status_text(status);
  if (code != HALO_STATUS_INVALID_ARGUMENT || !named) {
    fail(file, line,
         std::string(what) + " returned " + text +
             ", expected INVALID_ARGUMENT with a message naming " + function);
  }
}

// Asserts |expression| returns INVALID_ARGUMENT naming |function|.
#define CTS_ASSERT_INVALID(expression, function) \
  ::halo::cts::check_invalid((expression), (function), #expression, __FILE__, \
                             __LINE__)

// Threads that are always joined, even when an assertion throws, so a failing
// case reports its failure instead of dying in std::thread's destructor.
// Threads must not throw: they record what they saw and the case checks it
// after join().
class ThreadGroup {
 public:
  ThreadGroup() = default;
  ThreadGroup(const ThreadGroup&) = delete;
  ThreadGroup& operator=(const ThreadGroup&) = delete;
  ~ThreadGroup() { join(); }

  // Runs |body| on a new thread. Throws std::system_error if none starts.
  void start(std::function<void()> body) {
    threads_.emplace_back(std::move(body));
  }
  void join() {
    for (std::thread& thread : threads_) {
      if (thread.joinable()) thread.join();
    }
    threads_.clear();
  }

 private:
  std::vector<std::thread> threads_;
};

// Spins (yielding) until |done| returns true or |timeout_ms| pass. Returns
// what |done| last returned. For effects another thread makes without a
// semaphore to wait on, such as a timepoint callback that may run on any
// thread; the timeout only bounds a broken plugin.
inline bool spin_until(const std::function<bool()>& done,
                       int64_t timeout_ms = kGenerousMs) {
  const halo_time_ns_t deadline = deadline_in_ms(timeout_ms);
  while (!done()) {
    if (halo_time_now_ns() >= deadline) return done();
    std::this_thread::yield();
  }
  return true;
}

// A 64-bit generator seeded from the case's seed, so --case-seed reproduces
// a run exactly.
inline std::mt19937_64 make_rng(const Context& context) {
  return std::mt19937_64(context.seed());
}

// A status with |code| and |message| for halo_semaphore_fail (which takes
// ownership).
inline halo_status_t make_status(halo_status_code_t code, const char* message) {
  return halo_status_create(code, message);
}

// --- Buffers, command buffers and submissions -------------------------------

// Owns one reference to a halo object and releases it when it goes out of
// scope, so that a failing assertion (which throws) leaks nothing.
template <typename T, void (*kRelease)(T*)>
class Ref {
 public:
  Ref() = default;
  explicit Ref(T* object) : object_(object) {}
  Ref(Ref&& other) noexcept : object_(other.take()) {}
  Ref& operator=(Ref&& other) noexcept {
    reset(other.take());
    return *this;
  }
  Ref(const Ref&) = delete;
  Ref& operator=(const Ref&) = delete;
  ~Ref() { kRelease(object_); }

  T* get() const { return object_; }
  // Gives up the reference without releasing it.
  T* take() { return std::exchange(object_, nullptr); }
  // Releases the reference now (the lifetime cases release right after a
  // submit) and holds |object| instead.
  void reset(T* object = nullptr) { kRelease(std::exchange(object_, object)); }
  // The slot for a create function's out parameter.
  T** out() {
    reset();
    return &object_;
  }

 private:
  T* object_ = nullptr;
};

using BufferRef = Ref<halo_buffer_t, &halo_buffer_release>;
using CommandBufferRef = Ref<halo_command_buffer_t, &halo_command_buffer_release>;
using ExecutableRef = Ref<halo_executable_t, &halo_executable_release>;
using DeviceRef = Ref<halo_device_t, &halo_device_release>;
using SemaphoreRef = Ref<halo_semaphore_t, &halo_semaphore_release>;

inline constexpr halo_buffer_usage_t kAllBufferUsage =
    HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET |
    HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;

// "DEVICE_LOCAL|HOST_VISIBLE" for the bits of |type|, for messages.
inline std::string memory_type_text(halo_memory_type_t type) {
  static const std::pair<halo_memory_type_t, const char*> kNames[] = {
      {HALO_MEMORY_TYPE_DEVICE_LOCAL, "DEVICE_LOCAL"},
      {HALO_MEMORY_TYPE_HOST_VISIBLE, "HOST_VISIBLE"},
      {HALO_MEMORY_TYPE_HOST_COHERENT, "HOST_COHERENT"},
      {HALO_MEMORY_TYPE_HOST_CACHED, "HOST_CACHED"}};
  std::string text;
  for (const auto& [bit, name] : kNames) {
    if ((type & bit) == 0) continue;
    text += text.empty() ? "" : "|";
    text += name;
  }
  return text.empty() ? "0" : text;
}

// The memory type the cases read results through: HOST_VISIBLE, plus
// HOST_COHERENT where the device offers it. Every check of device work ends
// in a host read, so a device with buffers but no HOST_VISIBLE memory fails.
inline halo_memory_type_t host_memory_type(Context& context) {
  const halo_memory_type_t offered = context.capabilities().memory_types;
  if ((offered & HALO_MEMORY_TYPE_HOST_VISIBLE) == 0) {
    fail(__FILE__, __LINE__,
         "the device offers no HOST_VISIBLE memory (memory_types " +
             memory_type_text(offered) + "); the CTS reads results through it");
  }
  return HALO_MEMORY_TYPE_HOST_VISIBLE | (offered & HALO_MEMORY_TYPE_HOST_COHERENT);
}

// Allocates |size| bytes on |device|; fails the case unless OK.
inline BufferRef allocate_buffer(halo_device_t* device, uint64_t size,
                                 halo_memory_type_t memory_type,
                                 halo_buffer_usage_t usage = kAllBufferUsage,
                                 uint64_t alignment = 0) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = memory_type;
  params.usage = usage;
  params.size = size;
  params.alignment = alignment;
  BufferRef buffer;
  halo_status_t status = halo_buffer_allocate(device, &params, buffer.out());
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         "halo_buffer_allocate(size " + std::to_string(size) + ", memory_type " +
             memory_type_text(memory_type) + ", usage " + std::to_string(usage) +
             ") returned " + take_status_text(status));
  }
  return buffer;
}

// A buffer of |size| bytes in host_memory_type() with every usage, on the
// device under test unless |device| is given.
inline BufferRef host_buffer(Context& context, uint64_t size,
                             halo_device_t* device = nullptr) {
  return allocate_buffer(device != nullptr ? device : context.device(), size,
                         host_memory_type(context));
}

// Copies |size| bytes of |data| to [offset, offset + size) of a HOST_VISIBLE
// |buffer| through a mapping, flushed (a no-op on coherent memory).
inline void write_bytes(halo_buffer_t* buffer, uint64_t offset, const void* data,
                        size_t size) {
  void* pointer = nullptr;
  CTS_ASSERT_OK(halo_buffer_map_range(buffer, offset, size, &pointer));
  CTS_ASSERT(pointer != nullptr);
  std::memcpy(pointer, data, size);
  CTS_ASSERT_OK(halo_buffer_flush_range(buffer, offset, size));
  CTS_ASSERT_OK(halo_buffer_unmap_range(buffer, offset, size));
}

// Reads [offset, offset + size) of a HOST_VISIBLE |buffer| through a mapping,
// invalidated first (a no-op on coherent memory).
inline std::vector<uint8_t> read_bytes(halo_buffer_t* buffer, uint64_t offset,
                                       size_t size) {
  void* pointer = nullptr;
  CTS_ASSERT_OK(halo_buffer_map_range(buffer, offset, size, &pointer));
  CTS_ASSERT(pointer != nullptr);
  CTS_ASSERT_OK(halo_buffer_invalidate_range(buffer, offset, size));
  std::vector<uint8_t> bytes(size);
  std::memcpy(bytes.data(), pointer, size);
  CTS_ASSERT_OK(halo_buffer_unmap_range(buffer, offset, size));
  return bytes;
}

template <typename T>
void write_values(halo_buffer_t* buffer, const std::vector<T>& values,
                  uint64_t offset = 0) {
  write_bytes(buffer, offset, values.data(), values.size() * sizeof(T));
}

template <typename T>
std::vector<T> read_values(halo_buffer_t* buffer, size_t count,
                           uint64_t offset = 0) {
  const std::vector<uint8_t> bytes = read_bytes(buffer, offset, count * sizeof(T));
  std::vector<T> values(count);
  std::memcpy(values.data(), bytes.data(), bytes.size());
  return values;
}

// Fails the case unless |actual| equals |expected|, naming the first element
// that differs (with both values) and how many differ.
template <typename T>
void check_values(const std::vector<T>& actual, const std::vector<T>& expected,
                  const std::string& what, const char* file, int line) {
  if (actual.size() != expected.size()) {
    fail(file, line, what + ": " + std::to_string(actual.size()) +
                         " elements, expected " + std::to_string(expected.size()));
  }
  size_t first = actual.size(), wrong = 0;
  for (size_t i = 0; i < actual.size(); ++i) {
    if (actual[i] == expected[i]) continue;
    if (wrong++ == 0) first = i;
  }
  if (wrong == 0) return;
  // Unary + prints bytes as numbers rather than characters.
  fail(file, line, what + ": element " + std::to_string(first) +
                       " is " + to_text(+actual[first]) + ", expected " +
                       to_text(+expected[first]) + " (" + std::to_string(wrong) +
                       " of " + std::to_string(actual.size()) + " differ)");
}

// Asserts two vectors are equal element by element.
#define CTS_ASSERT_VALUES(actual, expected) \
  ::halo::cts::check_values((actual), (expected), #actual, __FILE__, __LINE__)

// Creates a command buffer in |mode| on |device| and begins it.
inline CommandBufferRef begin_commands(
    halo_device_t* device,
    halo_command_buffer_mode_t mode = HALO_COMMAND_BUFFER_MODE_ONE_SHOT) {
  CommandBufferRef command_buffer;
  CTS_ASSERT_OK(halo_command_buffer_create(device, mode, command_buffer.out()));
  CTS_ASSERT_OK(halo_command_buffer_begin(command_buffer.get()));
  return command_buffer;
}

// Submits |command_buffers| with waits and signals from plain vectors.
inline halo_status_t submit(halo_device_t* device,
                            const std::vector<halo_command_buffer_t*>& command_buffers,
                            const std::vector<halo_semaphore_t*>& waits = {},
                            const std::vector<uint64_t>& wait_values = {},
                            const std::vector<halo_semaphore_t*>& signals = {},
                            const std::vector<uint64_t>& signal_values = {}) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = waits.size();
  info.wait_semaphores = waits.data();
  info.wait_values = wait_values.data();
  info.signal_count = signals.size();
  info.signal_semaphores = signals.data();
  info.signal_values = signal_values.data();
  info.command_buffer_count = command_buffers.size();
  info.command_buffers = command_buffers.data();
  return halo_device_queue_execute(device, &info);
}

// Submits |command_buffers| (ended) on |device| (default: the device under
// test) and waits until they have completed.
inline void execute(Context& context,
                    const std::vector<halo_command_buffer_t*>& command_buffers,
                    halo_device_t* device = nullptr) {
  if (device == nullptr) device = context.device();
  halo_semaphore_t* done = context.semaphore(0, device);
  CTS_ASSERT_OK(submit(device, command_buffers, {}, {}, {done}, {1}));
  CTS_ASSERT_OK(halo_semaphore_wait(done, 1, deadline_in_ms(kGenerousMs)));
}

// Ends |command_buffer|, submits it alone and waits until it has completed.
inline void end_and_execute(Context& context, halo_command_buffer_t* command_buffer,
                            halo_device_t* device = nullptr) {
  CTS_ASSERT_OK(halo_command_buffer_end(command_buffer));
  execute(context, {command_buffer}, device);
}

// Reads [offset, offset + size) of |buffer|, of any memory type, through a
// device copy into a host buffer. |buffer| needs TRANSFER_SOURCE usage.
inline std::vector<uint8_t> read_through_copy(Context& context, halo_buffer_t* buffer,
                                              uint64_t offset, size_t size,
                                              halo_device_t* device = nullptr) {
  if (device == nullptr) device = context.device();
  BufferRef staging = host_buffer(context, size, device);
  CommandBufferRef commands = begin_commands(device);
  CTS_ASSERT_OK(halo_command_buffer_copy(commands.get(), buffer, offset,
                                         staging.get(), 0, size));
  end_and_execute(context, commands.get(), device);
  return read_bytes(staging.get(), 0, size);
}

// A semaphore the host signals to release work submitted before it (wait
// before signal). A case that ends, or fails, with the gate still closed
// fails the semaphore instead, so that gated work drains rather than
// holding its device forever.
class Gate {
 public:
  explicit Gate(halo_device_t* device) {
    CTS_ASSERT_OK(halo_semaphore_create(device, 0, HALO_SEMAPHORE_FLAG_NONE,
                                        semaphore_.out()));
  }
  Gate(const Gate&) = delete;
  Gate& operator=(const Gate&) = delete;
  ~Gate() {
    if (!settled_) {
      halo_status_free(halo_semaphore_fail(
          semaphore_.get(), halo_status_create(HALO_STATUS_CANCELLED,
                                               "cts: the case ended with its gate closed")));
    }
  }

  halo_semaphore_t* get() const { return semaphore_.get(); }
  // Signals |value|, releasing the work that waits for it.
  void open(uint64_t value = 1) {
    settled_ = true;
    CTS_ASSERT_OK(halo_semaphore_signal(semaphore_.get(), value));
  }
  // Fails the semaphore with a status of |code| and |message|.
  void fail(halo_status_code_t code, const char* message) {
    settled_ = true;
    CTS_ASSERT_OK(halo_semaphore_fail(semaphore_.get(), make_status(code, message)));
  }

 private:
  SemaphoreRef semaphore_;
  bool settled_ = false;
};

// A new device, of the physical device under test, that the case owns (the
// context releases its own devices only when the case ends; lifetime cases
// release theirs while work is in flight).
inline DeviceRef create_case_device(Context& context) {
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  CTS_ASSERT_OK(halo_driver_query_device_info(context.driver(),
                                              context.device_index(), &info));
  DeviceRef device;
  CTS_ASSERT_OK(halo_driver_create_device(context.driver(), info.device_id, nullptr,
                                          device.out()));
  return device;
}

}  // namespace halo::cts
