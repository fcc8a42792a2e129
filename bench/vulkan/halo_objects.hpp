// Objects of the halo side, each owned by a small class that aborts (with
// the failed call's name) when it cannot be made, and the two calls every
// timed loop makes: submit and blocking wait.
#ifndef HALO_BENCH_VULKAN_HALO_OBJECTS_HPP_
#define HALO_BENCH_VULKAN_HALO_OBJECTS_HPP_

#include <cstdint>
#include <vector>

#include "halo/halo.h"
#include "halo_vulkan.hpp"

namespace halo::bench {

// A timeline semaphore of |device|, starting at 0.
class HaloSemaphore {
 public:
  explicit HaloSemaphore(halo_device_t* device);
  ~HaloSemaphore();
  HaloSemaphore(const HaloSemaphore&) = delete;
  HaloSemaphore& operator=(const HaloSemaphore&) = delete;

  halo_semaphore_t* get() const { return semaphore_; }

 private:
  halo_semaphore_t* semaphore_ = nullptr;
};

// A device-local buffer of |size| bytes on |device|.
class HaloBuffer {
 public:
  HaloBuffer(halo_device_t* device, uint64_t size, halo_buffer_usage_t usage);
  ~HaloBuffer();
  HaloBuffer(const HaloBuffer&) = delete;
  HaloBuffer& operator=(const HaloBuffer&) = delete;

  halo_buffer_t* get() const { return buffer_; }

 private:
  halo_buffer_t* buffer_ = nullptr;
};

// A reusable command buffer of |device|, recording from construction until
// end().
class HaloCommands {
 public:
  explicit HaloCommands(halo_device_t* device);
  ~HaloCommands();
  HaloCommands(const HaloCommands&) = delete;
  HaloCommands& operator=(const HaloCommands&) = delete;

  halo_command_buffer_t* get() const { return command_buffer_; }
  void end();

 private:
  halo_command_buffer_t* command_buffer_ = nullptr;
};

// An executable of |device| made from SPIR-V words.
class HaloExecutable {
 public:
  HaloExecutable(halo_device_t* device, const std::vector<uint32_t>& spirv);
  ~HaloExecutable();
  HaloExecutable(const HaloExecutable&) = delete;
  HaloExecutable& operator=(const HaloExecutable&) = delete;

  halo_executable_t* get() const { return executable_; }
  // Returns the ordinal of entry point |name|; aborts when there is none.
  uint32_t entry_point(const char* name) const;

 private:
  halo_executable_t* executable_ = nullptr;
};

// One halo_device_queue_execute on |device|: waits for |wait| to reach
// |wait_value| (no wait when |wait| is NULL), runs |commands| (none when
// NULL) and signals |signal| to |signal_value| (none when NULL).
inline void halo_submit(halo_device_t* device, halo_semaphore_t* wait,
                        uint64_t wait_value, halo_semaphore_t* signal,
                        uint64_t signal_value,
                        halo_command_buffer_t* commands) {
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = wait != nullptr ? 1 : 0;
  info.wait_semaphores = &wait;
  info.wait_values = &wait_value;
  info.signal_count = signal != nullptr ? 1 : 0;
  info.signal_semaphores = &signal;
  info.signal_values = &signal_value;
  info.command_buffer_count = commands != nullptr ? 1 : 0;
  info.command_buffers = &commands;
  check_halo(halo_device_queue_execute(device, &info),
             "halo_device_queue_execute");
}

// Blocks (no deadline) until |semaphore| reaches |value|.
inline void halo_wait(halo_semaphore_t* semaphore, uint64_t value) {
  check_halo(halo_semaphore_wait(semaphore, value,
                                 HALO_DEADLINE_INFINITE_FUTURE),
             "halo_semaphore_wait");
}

}  // namespace halo::bench

#endif  // HALO_BENCH_VULKAN_HALO_OBJECTS_HPP_
