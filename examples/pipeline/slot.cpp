// A slot's memory, buffers, recorded stages and hand-offs.
#include "slot.hpp"

#include <cstdlib>
#include <initializer_list>
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

constexpr halo_buffer_usage_t kUsage =
    HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING |
    HALO_BUFFER_USAGE_TRANSFER_SOURCE | HALO_BUFFER_USAGE_TRANSFER_TARGET;

// The frame's memory as a buffer of |device|: imported where it shares host
// memory, else a staging buffer of its own of the same layout.
halo::Buffer make_buffer(const StageDevice& device, unsigned char* memory, uint64_t size) {
  if (!device.shares_host_memory) {
    return device.device.allocate_buffer(size, kUsage, device.staging_memory);
  }
  halo_external_handle_t handle = {};
  handle.struct_size = sizeof(handle);
  handle.type = HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION;
  handle.fd = -1;
  handle.host_pointer = memory;
  handle.size = size;
  return device.device.import_buffer(handle, kUsage, device.staging_memory);
}

// Records one dispatch of |device|'s kernel over |bindings| into a command
// buffer submitted once per frame.
template <typename Constants>
halo::CommandBuffer record(const StageDevice& device,
                           std::initializer_list<halo_buffer_binding_t> bindings,
                           const Constants& constants, uint32_t elements) {
  halo::CommandBuffer commands =
      device.device.create_command_buffer(HALO_COMMAND_BUFFER_MODE_REUSABLE);
  commands.begin()
      .dispatch(device.kernel, 0, {(elements + kWorkgroupSize - 1) / kWorkgroupSize}, bindings,
                constants)
      .end();
  return commands;
}

// Copies [offset, offset + length) between the host memory and a staging
// buffer, either way.
void copy_to_buffer(const halo::Buffer& buffer, const unsigned char* memory, uint64_t offset,
                    uint64_t length) {
  halo::Mapping<unsigned char> mapped = buffer.map<unsigned char>(offset, length);
  std::memcpy(mapped.data(), memory + offset, length);
  mapped.flush();
  mapped.unmap();
}
void copy_from_buffer(const halo::Buffer& buffer, unsigned char* memory, uint64_t offset,
                      uint64_t length) {
  halo::Mapping<const unsigned char> mapped = buffer.map<const unsigned char>(offset, length);
  mapped.invalidate();
  std::memcpy(memory + offset, mapped.data(), length);
  mapped.unmap();
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
  filter_.commands = record(filter,
                            {halo::bind(filter_.buffer, layout.y_offset, bytes),
                             halo::bind(filter_.buffer, layout.x_offset, bytes)},
                            SaxpyConstants{kScale, layout.elements}, layout.elements);
  combine_.commands = record(combine,
                             {halo::bind(combine_.buffer, layout.out_offset, bytes),
                              halo::bind(combine_.buffer, layout.y_offset, bytes),
                              halo::bind(combine_.buffer, layout.x_offset, bytes),
                              halo::bind(combine_.buffer, layout.x_offset, bytes)},
                             MultiplyAddConstants{layout.elements}, layout.elements);
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
  halo::Submission submission;
  if (wait != nullptr) submission.wait(*wait, count_);
  stage.done_at.arm(stage.done, count_);
  submission.signal(stage.done, count_).commands(stage.commands).submit(stage.device->device);
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
