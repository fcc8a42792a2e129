// Devices of the C++ layer (halo/halo.hpp): halo::Device, which makes every
// other object, and halo::Submission, the builder of queue submissions.
#ifndef HALO_DEVICE_HPP_
#define HALO_DEVICE_HPP_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "halo/fence.hpp"
#include "halo/command_buffer.hpp"

namespace halo {

// A device. Beside the handle it keeps what the C API cannot tell about a
// device: the name of its plugin and its index in the registry's device
// list, known when it was made by Registry::create_device (Driver's knows
// the plugin only) and unknown when a Device is made from a raw handle.
// Copies share one device and carry both.
class Device : public Ref<halo_device_t, halo_device_retain, halo_device_release> {
 public:
  using Ref::Ref;
  // Adopts |handle|, a device of plugin |plugin| at |index| in its
  // registry's device list (std::nullopt: not known).
  Device(halo_device_t* handle, std::string plugin, std::optional<std::size_t> index) noexcept
      : Ref(handle), plugin_(std::move(plugin)), index_(index) {}

  // The plugin's name ("cpu"); "" when not known.
  const std::string& plugin() const noexcept { return plugin_; }
  // The index in Registry::devices() this device was created from;
  // std::nullopt when not known.
  std::optional<std::size_t> index() const noexcept { return index_; }

  // Ref's, also forgetting or exchanging the plugin and the index.
  void reset(halo_device_t* handle = nullptr) noexcept { Device(handle).swap(*this); }
  [[nodiscard]] halo_device_t* release() noexcept {
    plugin_.clear();
    index_.reset();
    return Ref::release();
  }
  void swap(Device& other) noexcept {
    Ref::swap(other);
    plugin_.swap(other.plugin_);
    std::swap(index_, other.index_);
  }

  halo_device_info_t info() const {
    halo_device_info_t info{};
    info.struct_size = sizeof(info);
    check(halo_device_query_info(get(), &info));
    return info;
  }
  halo_device_capabilities_t capabilities() const {
    halo_device_capabilities_t capabilities{};
    capabilities.struct_size = sizeof(capabilities);
    check(halo_device_query_capabilities(get(), &capabilities));
    return capabilities;
  }
  Semaphore create_semaphore(
      std::uint64_t initial_value = 0,
      halo_semaphore_flags_t flags = HALO_SEMAPHORE_FLAG_NONE) const {
    halo_semaphore_t* semaphore = nullptr;
    check(halo_semaphore_create(get(), initial_value, flags, &semaphore));
    return Semaphore(semaphore);
  }
  halo_semaphore_compatibility_t semaphore_compatibility(
      const Semaphore& semaphore) const {
    halo_semaphore_compatibility_t compatibility = 0;
    check(halo_device_semaphore_compatibility(get(), semaphore.get(),
                                              &compatibility));
    return compatibility;
  }
  // Submits |info| without blocking (see halo_device_queue_execute).
  void queue_execute(const halo_queue_execute_info_t& info) const {
    check(halo_device_queue_execute(get(), &info));
  }
  // Submits |command_buffers| to wait on |waits| and signal |signals|
  // (either may be empty: no list) without blocking.
  void queue_execute(const Fence& waits, const Fence& signals,
                     const std::vector<halo_command_buffer_t*>& command_buffers = {},
                     halo_queue_affinity_t affinity = HALO_QUEUE_AFFINITY_ANY) const {
    check(halo_device_queue_execute_fences(get(), affinity, waits.get(), signals.get(),
                                           command_buffers.size(), command_buffers.data()));
  }
  void queue_flush(halo_queue_affinity_t affinity = HALO_QUEUE_AFFINITY_ANY) const {
    check(halo_device_queue_flush(get(), affinity));
  }
  // Returns true once idle, false when |deadline| passes first.
  bool wait_idle(halo_time_ns_t deadline = HALO_DEADLINE_INFINITE_FUTURE) const {
    StatusPtr status(halo_device_wait_idle(get(), deadline));
    if (halo_status_code(status.get()) == HALO_STATUS_DEADLINE_EXCEEDED) {
      return false;
    }
    check(status.release());
    return true;
  }

  // Allocates a buffer as |params| says (halo_buffer_allocate).
  Buffer allocate_buffer(const halo_buffer_params_t& params) const {
    halo_buffer_t* buffer = nullptr;
    check(halo_buffer_allocate(get(), &params, &buffer));
    return Buffer(buffer);
  }
  // Allocates |size| bytes of |memory_type| (mappable_memory_type() for one
  // the host maps) for |usage|, a set of HALO_BUFFER_USAGE_* bits.
  Buffer allocate_buffer(std::uint64_t size, halo_buffer_usage_t usage,
                         halo_memory_type_t memory_type, halo_buffer_flags_t flags = 0,
                         std::uint64_t alignment = 0) const {
    halo_buffer_params_t params{};
    params.struct_size = sizeof(params);
    params.memory_type = memory_type;
    params.usage = usage;
    params.flags = flags;
    params.size = size;
    params.alignment = alignment;
    return allocate_buffer(params);
  }
  // Makes a buffer over the memory |handle| names (halo_buffer_import). An
  // import that succeeds owns |handle|'s fd; one that throws leaves it with
  // the caller. Imported host memory must outlive the buffer.
  Buffer import_buffer(const halo_buffer_params_t& params,
                       const halo_external_handle_t& handle) const {
    halo_buffer_t* buffer = nullptr;
    check(halo_buffer_import(get(), &params, &handle, &buffer));
    return Buffer(buffer);
  }
  // The same with |size| bytes (0: the handle's size) of |memory_type| for
  // |usage|.
  Buffer import_buffer(const halo_external_handle_t& handle, halo_buffer_usage_t usage,
                       halo_memory_type_t memory_type, std::uint64_t size = 0) const {
    halo_buffer_params_t params{};
    params.struct_size = sizeof(params);
    params.memory_type = memory_type;
    params.usage = usage;
    params.size = size != 0 ? size : handle.size;
    return import_buffer(params, handle);
  }
  // Makes a semaphore over the timeline |handle| names
  // (halo_semaphore_import); the fd is owned as for import_buffer.
  Semaphore import_semaphore(const halo_external_handle_t& handle) const {
    halo_semaphore_t* semaphore = nullptr;
    check(halo_semaphore_import(get(), &handle, &semaphore));
    return Semaphore(semaphore);
  }

  // An empty command buffer, submitted once (ONE_SHOT) or any number of
  // times once ended (REUSABLE).
  CommandBuffer create_command_buffer(
      halo_command_buffer_mode_t mode = HALO_COMMAND_BUFFER_MODE_ONE_SHOT) const {
    halo_command_buffer_t* command_buffer = nullptr;
    check(halo_command_buffer_create(get(), mode, &command_buffer));
    return CommandBuffer(command_buffer);
  }

  // Creates an executable as |params| says (halo_executable_create).
  Executable create_executable(const halo_executable_params_t& params) const {
    halo_executable_t* executable = nullptr;
    check(halo_executable_create(get(), &params, &executable));
    return Executable(executable);
  }
  // Creates an executable of |format|, one of executable_formats(), from
  // |code|'s bytes (a std::vector<std::byte>, OpenCL C source in a
  // std::string …), which the device copies.
  template <ByteSource R>
  Executable create_executable(const std::string& format, const R& code) const {
    const std::span<const std::byte> bytes = bytes_of(code);
    halo_executable_params_t params{};
    params.struct_size = sizeof(params);
    params.format = format.c_str();
    params.data = bytes.data();
    params.data_size = bytes.size();
    return create_executable(params);
  }
  // Creates an executable of |format| from the file at |path|.
  Executable load_executable(const std::string& format, const std::string& path) const {
    return create_executable(format, read_file(path));
  }

 private:
  std::string plugin_;
  std::optional<std::size_t> index_;
};

// A queue submission (halo_device_queue_execute) built call by call:
//
//   halo::Submission().wait(ready, 1).commands(commands).signal(done, 1)
//       .submit(device);
//
// Waits and signals are (semaphore, value) pairs or whole fences; a fence's
// timepoints are read when submit() runs, as
// halo_device_queue_execute_fences reads them. The builder holds a
// reference to everything it names, so it may be built from temporaries and
// submitted again (REUSABLE command buffers, with new signal values).
// submit() never blocks, and the device retains what the work needs, so the
// builder may go at once.
class Submission {
 public:
  Submission& wait(const Semaphore& semaphore, std::uint64_t value) {
    waits_.emplace_back(semaphore, value);
    return *this;
  }
  Submission& wait(const Fence& fence) {
    wait_fences_.push_back(fence);
    return *this;
  }
  Submission& signal(const Semaphore& semaphore, std::uint64_t value) {
    signals_.emplace_back(semaphore, value);
    return *this;
  }
  Submission& signal(const Fence& fence) {
    signal_fences_.push_back(fence);
    return *this;
  }
  // Appends |command_buffer|, ended; the command buffers run in the order
  // appended, as if recorded into one.
  Submission& commands(const CommandBuffer& command_buffer) {
    command_buffers_.push_back(command_buffer);
    return *this;
  }
  // The queues the work may run on (HALO_QUEUE_AFFINITY_ANY by default).
  Submission& affinity(halo_queue_affinity_t affinity) noexcept {
    affinity_ = affinity;
    return *this;
  }

  // Submits the work to |device|. Throws the refusal of
  // halo_device_queue_execute (a signal value at or below its payload, a
  // command buffer not ended or spent, an affinity naming no queue …),
  // having submitted nothing.
  void submit(const Device& device) const {
    const Lists waits(waits_, wait_fences_);
    const Lists signals(signals_, signal_fences_);
    std::vector<halo_command_buffer_t*> command_buffers;
    command_buffers.reserve(command_buffers_.size());
    for (const CommandBuffer& command_buffer : command_buffers_) {
      command_buffers.push_back(command_buffer.get());
    }
    halo_queue_execute_info_t info{};
    info.struct_size = sizeof(info);
    info.affinity = affinity_;
    info.wait_count = waits.semaphores.size();
    info.wait_semaphores = waits.semaphores.data();
    info.wait_values = waits.values.data();
    info.signal_count = signals.semaphores.size();
    info.signal_semaphores = signals.semaphores.data();
    info.signal_values = signals.values.data();
    info.command_buffer_count = command_buffers.size();
    info.command_buffers = command_buffers.data();
    device.queue_execute(info);
  }

 private:
  // One list as halo_queue_execute_info_t takes it, with references to the
  // semaphores the fences lent until the call returns.
  struct Lists {
    Lists(const TimepointList& pairs, const std::vector<Fence>& fences) {
      add(pairs);
      for (const Fence& fence : fences) {
        TimepointList timepoints = fence.timepoints();
        add(timepoints);
        std::move(timepoints.begin(), timepoints.end(), std::back_inserter(held));
      }
    }
    void add(const TimepointList& list) {
      for (const auto& [semaphore, value] : list) {
        semaphores.push_back(semaphore.get());
        values.push_back(value);
      }
    }
    TimepointList held;
    std::vector<halo_semaphore_t*> semaphores;
    std::vector<std::uint64_t> values;
  };

  TimepointList waits_;
  std::vector<Fence> wait_fences_;
  TimepointList signals_;
  std::vector<Fence> signal_fences_;
  std::vector<CommandBuffer> command_buffers_;
  halo_queue_affinity_t affinity_ = HALO_QUEUE_AFFINITY_ANY;
};

}  // namespace halo

#endif  // HALO_DEVICE_HPP_
