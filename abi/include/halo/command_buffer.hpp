// Executables and command buffers of the C++ layer (halo/halo.hpp):
// halo::Executable, the chaining halo::CommandBuffer recorder, and helpers
// to read kernels and pick formats and memory types.
#ifndef HALO_COMMAND_BUFFER_HPP_
#define HALO_COMMAND_BUFFER_HPP_

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <ios>
#include <iterator>
#include <ranges>
#include <span>
#include <string>
#include <vector>

#include "halo/buffer.hpp"

namespace halo {

// Bytes that a call copies from host memory: a contiguous range of
// trivially copyable elements (std::vector, std::array, std::span,
// std::string …).
template <typename R>
concept ByteSource = std::ranges::contiguous_range<R> && std::ranges::sized_range<R> &&
                     std::is_trivially_copyable_v<std::ranges::range_value_t<R>>;

// Returns the bytes of |range|, borrowed.
template <ByteSource R>
std::span<const std::byte> bytes_of(const R& range) noexcept {
  return std::as_bytes(std::span(std::ranges::data(range), std::ranges::size(range)));
}

// One object whose bytes are a dispatch's constants: trivially copyable and
// not a pointer or a range, whose own bytes are not what they point to
// (pass a range through bytes_of).
template <typename T>
concept ConstantBlock =
    std::is_trivially_copyable_v<T> && !std::is_pointer_v<T> && !std::ranges::range<T>;

// Device code (halo/executable.h) whose entry points a CommandBuffer
// dispatches; made by Device::create_executable or load_executable. Copies
// share one executable.
class Executable
    : public Ref<halo_executable_t, halo_executable_retain, halo_executable_release> {
 public:
  using Ref::Ref;

  std::uint32_t entry_point_count() const {
    std::uint32_t count = 0;
    check(halo_executable_entry_point_count(get(), &count));
    return count;
  }
  // Entry point |ordinal|: its name, bindings, constant bytes and (ABI 1.1)
  // workgroup size, each valid where info.struct_size covers it. Throws
  // OUT_OF_RANGE past the count.
  halo_entry_point_info_t entry_point(std::uint32_t ordinal) const {
    halo_entry_point_info_t info{};
    info.struct_size = sizeof(info);
    check(halo_executable_query_entry_point(get(), ordinal, &info));
    return info;
  }
  // The entry point named exactly |name|.
  halo_entry_point_info_t entry_point(const std::string& name) const {
    return entry_point(lookup(name));
  }
  // The ordinal of the entry point named exactly |name|, as a dispatch
  // takes it; throws NOT_FOUND when none is.
  std::uint32_t lookup(const std::string& name) const {
    std::uint32_t ordinal = 0;
    check(halo_executable_lookup_entry_point(get(), name.c_str(), &ordinal));
    return ordinal;
  }
};

// Workgroups of a dispatch in x, y and z: {n} is n × 1 × 1.
struct WorkgroupCount {
  std::uint32_t x = 1;
  std::uint32_t y = 1;
  std::uint32_t z = 1;
};

// A command buffer (halo/command_buffer.h) and its recording builder:
// begin(), the commands, end(), each returning *this, so a recording
// chains:
//
//   commands.begin().fill(buffer, 0, 64, 0u).dispatch(...).end();
//
// A refused command throws, records nothing, and leaves the recording open
// (command_buffer.h, "Recording"). Recording is not thread-safe; an ended
// command buffer is submitted through a Submission. Commands take effect in
// recording order without barriers. Copies share one command buffer.
class CommandBuffer : public Ref<halo_command_buffer_t, halo_command_buffer_retain,
                                 halo_command_buffer_release> {
 public:
  using Ref::Ref;

  const CommandBuffer& begin() const {
    check(halo_command_buffer_begin(get()));
    return *this;
  }
  const CommandBuffer& end() const {
    check(halo_command_buffer_end(get()));
    return *this;
  }
  // A full barrier: never needed for correctness, a hint only.
  const CommandBuffer& barrier() const {
    check(halo_command_buffer_barrier(get()));
    return *this;
  }
  // Writes |pattern|, a value of 1, 2 or 4 bytes, again and again over
  // [|offset|, |offset| + |length|) of |target|; |length| may be
  // HALO_WHOLE_BUFFER, and both must be multiples of the pattern's size.
  template <typename T>
    requires(std::is_trivially_copyable_v<T> && (sizeof(T) == 1 || sizeof(T) == 2 ||
                                                 sizeof(T) == 4))
  const CommandBuffer& fill(const Buffer& target, std::uint64_t offset, std::uint64_t length,
                            const T& pattern) const {
    check(halo_command_buffer_fill(get(), target.get(), offset, length, &pattern, sizeof(T)));
    return *this;
  }
  // Writes the bytes of |data| (copied now) at byte |offset| of |target|.
  template <ByteSource R>
  const CommandBuffer& update(const Buffer& target, std::uint64_t offset, const R& data) const {
    const std::span<const std::byte> bytes = bytes_of(data);
    check(halo_command_buffer_update(get(), bytes.data(), target.get(), offset, bytes.size()));
    return *this;
  }
  // Copies |length| bytes (not HALO_WHOLE_BUFFER) from |source_offset| of
  // |source| to |target_offset| of |target|.
  const CommandBuffer& copy(const Buffer& source, std::uint64_t source_offset,
                            const Buffer& target, std::uint64_t target_offset,
                            std::uint64_t length) const {
    check(halo_command_buffer_copy(get(), source.get(), source_offset, target.get(),
                                   target_offset, length));
    return *this;
  }
  // Dispatches as |params| says, for what the overloads below do not cover.
  const CommandBuffer& dispatch(const halo_dispatch_params_t& params) const {
    check(halo_command_buffer_dispatch(get(), &params));
    return *this;
  }
  // Runs entry point |entry_point| (Executable::lookup) of |executable| over
  // |workgroups| with |bindings|, one per binding of the entry point in its
  // order, and the entry point's |constants| bytes (copied now).
  const CommandBuffer& dispatch(const Executable& executable, std::uint32_t entry_point,
                                WorkgroupCount workgroups,
                                std::span<const halo_buffer_binding_t> bindings,
                                std::span<const std::byte> constants = {}) const {
    if (constants.size() > std::numeric_limits<std::uint32_t>::max()) {
      throw Error(HALO_STATUS_INVALID_ARGUMENT,
                  "halo::CommandBuffer::dispatch: constants larger than 4 GiB");
    }
    halo_dispatch_params_t params{};
    params.struct_size = sizeof(params);
    params.entry_point = entry_point;
    params.executable = executable.get();
    params.workgroup_count[0] = workgroups.x;
    params.workgroup_count[1] = workgroups.y;
    params.workgroup_count[2] = workgroups.z;
    params.constant_size = static_cast<std::uint32_t>(constants.size());
    params.constants = constants.data();
    params.binding_count = bindings.size();
    params.bindings = bindings.data();
    return dispatch(params);
  }
  // The same with a braced list of bindings: {halo::bind(y), halo::bind(x)}.
  const CommandBuffer& dispatch(const Executable& executable, std::uint32_t entry_point,
                                WorkgroupCount workgroups,
                                std::initializer_list<halo_buffer_binding_t> bindings) const {
    return dispatch(executable, entry_point, workgroups,
                    std::span<const halo_buffer_binding_t>(bindings.begin(), bindings.size()));
  }
  // The same with the constants as one object: a struct laid out as the
  // entry point's constant block.
  template <ConstantBlock C>
  const CommandBuffer& dispatch(const Executable& executable, std::uint32_t entry_point,
                                WorkgroupCount workgroups,
                                std::span<const halo_buffer_binding_t> bindings,
                                const C& constants) const {
    return dispatch(executable, entry_point, workgroups, bindings,
                    std::as_bytes(std::span<const C, 1>(&constants, 1)));
  }
  template <ConstantBlock C>
  const CommandBuffer& dispatch(const Executable& executable, std::uint32_t entry_point,
                                WorkgroupCount workgroups,
                                std::initializer_list<halo_buffer_binding_t> bindings,
                                const C& constants) const {
    return dispatch(executable, entry_point, workgroups,
                    std::span<const halo_buffer_binding_t>(bindings.begin(), bindings.size()),
                    constants);
  }
};

// Returns the bytes of the file at |path|, as an executable is made from
// them (Device::load_executable). Throws NOT_FOUND when the file cannot be
// opened and DATA_LOSS when it cannot be read whole.
inline std::vector<std::byte> read_file(const std::string& path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    throw Error(HALO_STATUS_NOT_FOUND, "halo::read_file: cannot open " + path);
  }
  const std::streamoff size = file.tellg();
  std::vector<std::byte> bytes(size > 0 ? static_cast<std::size_t>(size) : 0);
  file.seekg(0);
  if (size < 0 ||
      !file.read(reinterpret_cast<char*>(bytes.data()), static_cast<std::streamsize>(size))) {
    throw Error(HALO_STATUS_DATA_LOSS, "halo::read_file: cannot read " + path);
  }
  return bytes;
}

// Returns the executable formats |capabilities| lists, in the device's
// order ("cpu-so", "spirv" …).
inline std::vector<std::string> executable_formats(
    const halo_device_capabilities_t& capabilities) {
  const std::string list = to_string(capabilities.executable_formats);
  std::vector<std::string> formats;
  std::size_t start = 0;
  while (start < list.size()) {
    const std::size_t end = std::min(list.find_first_of(", ", start), list.size());
    if (end > start) {
      formats.push_back(list.substr(start, end - start));
    }
    start = end + 1;
  }
  return formats;
}

// Returns the memory type to allocate mapped buffers from: HOST_VISIBLE,
// with HOST_COHERENT where the device offers it (flush and invalidate are
// then no-ops, though still correct to call); 0 when the device has no
// HOST_VISIBLE memory.
inline halo_memory_type_t mappable_memory_type(
    const halo_device_capabilities_t& capabilities) noexcept {
  if ((capabilities.memory_types & HALO_MEMORY_TYPE_HOST_VISIBLE) == 0) {
    return 0;
  }
  return HALO_MEMORY_TYPE_HOST_VISIBLE |
         (capabilities.memory_types & HALO_MEMORY_TYPE_HOST_COHERENT);
}

}  // namespace halo

#endif  // HALO_COMMAND_BUFFER_HPP_
