// A slot's memory, buffers, recorded stages and hand-offs.
#include "slot.hpp"

#include <cstdlib>
#include <cstring>
#include <new>

namespace pipeline {
namespace {

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

Slot::Slot(const std::vector<StageSpec>& specs, const std::vector<StageDevice*>& devices,
           const FrameLayout& layout)
    : layout_(layout), stages_(specs.size()) {
  memory_ = static_cast<unsigned char*>(std::aligned_alloc(layout.alignment, layout.total_bytes));
  if (memory_ == nullptr) throw std::bad_alloc();
  std::memset(memory_, 0, layout.total_bytes);
  for (size_t i = 0; i < specs.size(); ++i) {
    SlotStage& stage = stages_[i];
    stage.device = devices[i];
    stage.written_offset = specs[i].written(layout);
    stage.buffer = make_buffer(*stage.device, memory_, layout.total_bytes);
    stage.done = stage.device->device.create_semaphore(0);
    stage.commands = specs[i].record(*stage.device, stage.buffer, layout);
  }
}

Slot::~Slot() {
  // A run that stopped early may leave work on the frame's memory: the
  // devices finish it, then the buffers over the memory go before it.
  for (SlotStage& stage : stages_) {
    // A device error here has nowhere to go (a destructor must not throw).
    halo_status_free(halo_device_wait_idle(stage.device->device.get(),
                                           HALO_DEADLINE_INFINITE_FUTURE));
    stage.done_at.settle();
    stage.commands.reset();
    stage.buffer.reset();
  }
  std::free(memory_);
}

bool Slot::starts_on_device(size_t index) const {
  return index == 0 || (stages_[index - 1].device->shares_host_memory &&
                        stages_[index].device->shares_host_memory);
}

void Slot::start(size_t index) {
  SlotStage& stage = stages_[index];
  if (!stage.device->shares_host_memory) {
    copy_to_buffer(stage.buffer, memory_, 0, layout_.total_bytes);
  }
  halo::Submission submission;
  if (index > 0) submission.wait(stages_[index - 1].done, count_);
  stage.done_at.arm(stage.done, count_);
  submission.signal(stage.done, count_).commands(stage.commands).submit(stage.device->device);
}

void Slot::collect(size_t index) {
  SlotStage& stage = stages_[index];
  if (!stage.device->shares_host_memory) {
    copy_from_buffer(stage.buffer, memory_, stage.written_offset, layout_.array_bytes);
  }
}

}  // namespace pipeline
