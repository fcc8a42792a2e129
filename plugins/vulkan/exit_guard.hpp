// Keeps process exit from racing the plugin's own threads inside the driver.
//
// Each device's notification thread calls into the Vulkan driver on its own:
// it reads semaphores, sleeps in vkWaitSemaphores, hands work to the GPU,
// and may drop a device's last reference and so destroy the VkDevice (and
// perhaps the VkInstance, whose destruction unloads the drivers). If the
// application returns from main meanwhile, exit() runs the drivers' exit
// handlers (Mesa's LLVM ones, for instance) while that thread is still
// inside the driver. An exit handler registered after the first instance
// exists runs before the drivers' handlers (they run in reverse order of
// registration); it wakes every notification thread, waits until none is
// inside the driver, and from then on keeps them out: the objects they would
// have touched are left to the process's end.
#ifndef HALO_VULKAN_EXIT_GUARD_HPP_
#define HALO_VULKAN_EXIT_GUARD_HPP_

#include <atomic>

namespace halo::vk {

class Wake;

// Registers the exit handler once per process (after an instance has been
// created, so that it runs before the handlers of the drivers the instance
// loaded), and keeps the plugin mapped from then on. Thread-safe.
void install_exit_guard() noexcept;

// Brackets a stretch of driver calls on a plugin thread; brackets may nest.
// begin returns false once the process is exiting: skip the driver calls
// then (and do not call end).
bool begin_driver_use() noexcept;
void end_driver_use() noexcept;

// Called by a plugin thread that begin_driver_use turned away: blocks until
// |stop| is set and unpark_exit_parked() is called (by a teardown during or
// after exit), so the thread neither touches the driver nor lets go of what
// it holds before the process ends. Returns at once when not exiting.
void park_while_exiting(const std::atomic<bool>& stop) noexcept;
void unpark_exit_parked() noexcept;

// The wake semaphores the exit handler signals so that threads sleeping in
// vkWaitSemaphores come out of the driver. unregister returns only once no
// exit-time signal of |wake| is in progress, so |wake| may be destroyed then.
void register_exit_wake(Wake* wake) noexcept;
void unregister_exit_wake(Wake* wake) noexcept;

}  // namespace halo::vk

#endif  // HALO_VULKAN_EXIT_GUARD_HPP_
