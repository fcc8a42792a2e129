// Keeps the plugin library mapped while a thread of the plugin runs.
//
// libhalo unloads a plugin once its driver dies and no registry needs it. The
// last reference to a driver may well be dropped on a thread the plugin
// created (a queue worker releasing the last submission), and that thread
// then returns into the plugin's code. A pinned thread keeps the library
// loaded until the thread has exited.
#ifndef HALO_SDK_LIBRARY_PIN_HPP_
#define HALO_SDK_LIBRARY_PIN_HPP_

namespace halo::sdk {

// Pins the shared object holding the SDK (the plugin) until the calling
// thread exits. Call first thing in every thread the plugin creates. Cheap,
// allocation-free after the first call on a thread, and never fails.
void pin_library_to_current_thread() noexcept;

}  // namespace halo::sdk

#endif  // HALO_SDK_LIBRARY_PIN_HPP_
