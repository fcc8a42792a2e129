// A slot's memory, buffers, recorded stages and hand-offs.
#include "slot.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>

namespace pipeline {
namespace {

constexpr uint32_t kWorkgroupSize = 64;  // every form of the CTS's kernels

// The saxpy and multiply_add kernels' constants (cts/testdata/README.md).
struct SaxpyConstants {
  float a;
  uint32_t n;
};
struct MultiplyAddConstants {
  uint32_t n;
};

halo_buffer_params_t buffer_params(uint64_t size, halo_memory_type_t memory_type) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = memory_type;
  params.usage = HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING |
                 HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET;
  params.size = size;
  return params;
}

// The frame's memory as a buffer of |device|: imported where it shares host
// memory, else a staging buffer of its own of the same layout.
Buffer make_buffer(const StageDevice& device, unsigned char* memory, uint64_t size) {
  halo_buffer_t* buffer = nullptr;
  if (device.shares_host_memory) {
    halo_external_handle_t handle = {};
    handle.struct_size = sizeof(handle);
    handle.type = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
    handle.fd = -1;
    handle.host_pointer = memory;
    handle.size = size;
    const halo_buffer_params_t params = buffer_params(size, device.staging_memory);
    halo::check(halo_buffer_import(device.device.get(), &params, &handle, &buffer));
  } else {
    const halo_buffer_params_t params = buffer_params(size, device.staging_memory);
    halo::check(halo_buffer_allocate(device.device.get(), &params, &buffer));
  }
  return Buffer(buffer);
}

halo_buffer_binding_t bind(const Buffer& buffer, uint64_t offset, uint64_t length) {
  return halo_buffer_binding_t{buffer.get(), offset, length};
}

// Records one dispatch of |device|'s kernel over |bindings| into a command
// buffer submitted once per frame.
CommandBuffer record(const StageDevice& device, const std::vector<halo_buffer_binding_t>& bindings,
                     const void* constants, uint32_t constant_size, uint32_t elements) {
  halo_command_buffer_t* commands = nullptr;
  halo::check(halo_command_buffer_create(device.device.get(), HALO_COMMAND_BUFFER_MODE_REUSABLE,
                                         &commands));
  CommandBuffer owned(commands);
  halo_dispatch_params_t params = {};
  params.struct_size = sizeof(params);
  params.entry_point = 0;
  params.executable = device.kernel.get();
  params.workgroup_count[0] = (elements + kWorkgroupSize - 1) / kWorkgroupSize;
  params.workgroup_count[1] = 1;
  params.workgroup_count[2] = 1;
  params.constant_size = constant_size;
  params.constants = constants;
  params.binding_count = bindings.size();
  params.bindings = bindings.data();
  halo::check(halo_command_buffer_begin(commands));
  halo::check(halo_command_buffer_dispatch(commands, &params));
  halo::check(halo_command_buffer_end(commands));
  return owned;
}

// Copies [offset, offset + length) between the host memory and a staging
// buffer, either way.
void copy_to_buffer(const Buffer& buffer, const unsigned char* memory, uint64_t offset,
                    uint64_t length) {
  void* mapped = nullptr;
  halo::check(halo_buffer_map_range(buffer.get(), offset, length, &mapped));
  std::memcpy(mapped, memory + offset, length);
  halo::check(halo_buffer_flush_range(buffer.get(), offset, length));
  halo::check(halo_buffer_unmap_range(buffer.get(), offset, length));
}
void copy_from_buffer(const Buffer& buffer, unsigned char* memory, uint64_t offset,
                      uint64_t length) {
  void* mapped = nullptr;
  halo::check(halo_buffer_map_range(buffer.get(), offset, length, &mapped));
  halo::check(halo_buffer_invalidate_range(buffer.get(), offset, length));
  std::memcpy(memory + offset, mapped, length);
  halo::check(halo_buffer_unmap_range(buffer.get(), offset, length));
}

}  // namespace

void Stamp::arm(const halo::Semaphore& semaphore, uint64_t value) {
  settle();
  semaphore_ = semaphore;
  at_.store(0, std::memory_order_relaxed);
  timepoint_ = {};
  timepoint_.struct_size = sizeof(timepoint_);
  timepoint_.value = value;
  timepoint_.callback = &Stamp::on_reached;
  timepoint_.user_data = this;
  halo::check(halo_semaphore_acquire_timepoint(semaphore_.get(), &timepoint_));
}

int64_t Stamp::settle() {
  if (semaphore_) {
    bool cancelled = false;
    halo_status_free(halo_semaphore_cancel_timepoint(semaphore_.get(), &timepoint_, &cancelled));
    semaphore_.reset();
  }
  return at_.load(std::memory_order_acquire);
}

void Stamp::on_reached(void* user_data, halo_timepoint_t*, halo_status_t status) {
  Stamp* self = static_cast<Stamp*>(user_data);
  if (status == nullptr) self->at_.store(halo_time_now_ns(), std::memory_order_release);
  halo_status_free(status);
}

Slot::Slot(StageDevice& filter, StageDevice& combine, const FrameLayout& layout)
    : layout_(layout) {
  memory_ = static_cast<unsigned char*>(std::aligned_alloc(layout.alignment, layout.total_bytes));
  if (memory_ == nullptr) throw std::bad_alloc();
  std::memset(memory_, 0, layout.total_bytes);
  filter_.device = &filter;
  combine_.device = &combine;
  for (SlotStage* stage : {&filter_, &combine_}) {
    stage->buffer = make_buffer(*stage->device, memory_, layout.total_bytes);
    stage->done = stage->device->device.create_semaphore(0);
  }
  const uint64_t bytes = layout.array_bytes;
  const SaxpyConstants saxpy{kScale, layout.elements};
  filter_.commands = record(filter, {bind(filter_.buffer, layout.y_offset, bytes),
                                     bind(filter_.buffer, layout.x_offset, bytes)},
                            &saxpy, sizeof(saxpy), layout.elements);
  const MultiplyAddConstants multiply_add{layout.elements};
  combine_.commands = record(combine, {bind(combine_.buffer, layout.out_offset, bytes),
                                       bind(combine_.buffer, layout.y_offset, bytes),
                                       bind(combine_.buffer, layout.x_offset, bytes),
                                       bind(combine_.buffer, layout.x_offset, bytes)},
                             &multiply_add, sizeof(multiply_add), layout.elements);
}

Slot::~Slot() {
  // A run that stopped early may leave work on the frame's memory: the
  // devices finish it, then the buffers over the memory go before it.
  for (SlotStage* stage : {&filter_, &combine_}) {
    if (stage->device != nullptr) stage->device->device.wait_idle();
    stage->done_at.settle();
    stage->commands.reset();
    stage->buffer.reset();
  }
  std::free(memory_);
}

void Slot::submit(SlotStage& stage, const halo::Semaphore* wait) {
  halo::Fence waits = halo::Fence::create();
  if (wait != nullptr) waits.insert(*wait, count_);
  stage.done_at.arm(stage.done, count_);
  stage.device->device.queue_execute(waits, halo::Fence::at(stage.done, count_),
                                     {stage.commands.get()});
}

void Slot::start_filter() {
  ++count_;
  if (!filter_.device->shares_host_memory) {
    copy_to_buffer(filter_.buffer, memory_, 0, layout_.out_offset);  // x and y
  }
  submit(filter_, nullptr);
}

void Slot::start_combine() {
  if (!filter_.device->shares_host_memory) {
    copy_from_buffer(filter_.buffer, memory_, layout_.y_offset, layout_.array_bytes);
  }
  if (!combine_.device->shares_host_memory) {
    copy_to_buffer(combine_.buffer, memory_, 0, layout_.out_offset);
  }
  submit(combine_, &filter_.done);
}

void Slot::finish() {
  if (!combine_.device->shares_host_memory) {
    copy_from_buffer(combine_.buffer, memory_, layout_.out_offset, layout_.array_bytes);
  }
}

}  // namespace pipeline
