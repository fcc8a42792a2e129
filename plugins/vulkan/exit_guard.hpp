// Keeps process exit from racing a device teardown on a plugin thread.
//
// A device's last reference may be dropped by its notification thread
// (after the GPU finished the last submission), which then destroys the
// VkDevice and perhaps the VkInstance — and the Vulkan loader unloads its
// drivers on vkDestroyInstance. If the application returns from main at
// that moment, exit() runs the drivers' exit handlers (Mesa's LLVM ones,
// for instance) while the other thread is still inside the driver or
// unmapping it. An exit handler registered after the first instance exists
// runs before the drivers' handlers (they run in reverse order of
// registration) and waits for teardowns in progress; teardowns that would
// start later are skipped (the objects are left to the process's end).
#ifndef HALO_VULKAN_EXIT_GUARD_HPP_
#define HALO_VULKAN_EXIT_GUARD_HPP_

namespace halo::vk {

// Registers the exit handler once per process (after an instance has been
// created, so that it runs before the handlers of the drivers the instance
// loaded). Thread-safe.
void install_exit_guard() noexcept;

// Brackets a teardown on a plugin thread. begin returns false once the
// process is exiting: skip the teardown then (and do not call end).
bool begin_teardown() noexcept;
void end_teardown() noexcept;

}  // namespace halo::vk

#endif  // HALO_VULKAN_EXIT_GUARD_HPP_
