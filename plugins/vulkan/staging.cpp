// Staging chunks and descriptor pools of a command buffer.
#include "staging.hpp"

#include <algorithm>
#include <cstring>

#include "device.hpp"
#include "vk_status.hpp"

namespace halo::vk {
namespace {

constexpr uint64_t kChunkSize = 64 * 1024;
constexpr uint32_t kSetsPerPool = 32;
constexpr uint32_t kDescriptorsPerPool = 256;

// Host-visible memory for staging: coherent if the device has it.
bool pick_staging_type(const VkPhysicalDeviceMemoryProperties& memory,
                       uint32_t type_bits, uint32_t* out, bool* coherent) {
  int best = -1;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    if ((type_bits & (1u << i)) == 0) continue;
    VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((flags & VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT) == 0) continue;
    int score = (flags & VK_MEMORY_PROPERTY_HOST_COHERENT_BIT) ? 2 : 1;
    if (score > best) {
      best = score;
      *out = i;
      *coherent = score == 2;
    }
  }
  return best >= 0;
}

}  // namespace

RecordingMemory::RecordingMemory(Device* device) noexcept
    : device_(device),
      chunks_(sdk::HostAllocator<Chunk>(device->host)),
      pools_(sdk::HostAllocator<VkDescriptorPool>(device->host)) {}

RecordingMemory::~RecordingMemory() { release(); }

void RecordingMemory::release() noexcept {
  const DeviceFunctions& vkd = device_->vkd;
  for (Chunk& chunk : chunks_) {
    if (chunk.buffer) vkd.vkDestroyBuffer(device_->device, chunk.buffer, nullptr);
    if (chunk.memory) vkd.vkFreeMemory(device_->device, chunk.memory, nullptr);
  }
  for (VkDescriptorPool pool : pools_) {
    vkd.vkDestroyDescriptorPool(device_->device, pool, nullptr);
  }
  chunks_.clear();
  pools_.clear();
}

halo_status_t RecordingMemory::add_chunk(uint64_t minimum) {
  sdk::Host host = device_->host;
  const DeviceFunctions& vkd = device_->vkd;
  Chunk chunk;
  chunk.size = std::max(kChunkSize, (minimum + 3) & ~uint64_t{3});
  VkBufferCreateInfo create_info = {};
  create_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  create_info.size = chunk.size;
  create_info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT;
  create_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  VkResult result =
      vkd.vkCreateBuffer(device_->device, &create_info, nullptr, &chunk.buffer);
  if (result != VK_SUCCESS) return vk_status(host, "vkCreateBuffer", result);
  auto destroy = [&] {
    vkd.vkDestroyBuffer(device_->device, chunk.buffer, nullptr);
    if (chunk.memory) vkd.vkFreeMemory(device_->device, chunk.memory, nullptr);
  };
  VkMemoryRequirements requirements = {};
  vkd.vkGetBufferMemoryRequirements(device_->device, chunk.buffer,
                                    &requirements);
  if (!have_memory_type_ &&
      !pick_staging_type(device_->adapter->memory, requirements.memoryTypeBits,
                         &memory_type_, &coherent_)) {
    destroy();
    return host.make_status_text(HALO_STATUS_UNIMPLEMENTED,
                                 "the device has no host-visible memory for "
                                 "staging update data");
  }
  have_memory_type_ = true;
  VkMemoryAllocateInfo allocate_info = {};
  allocate_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate_info.allocationSize = requirements.size;
  allocate_info.memoryTypeIndex = memory_type_;
  result = vkd.vkAllocateMemory(device_->device, &allocate_info, nullptr,
                                &chunk.memory);
  if (result == VK_SUCCESS) {
    result = vkd.vkBindBufferMemory(device_->device, chunk.buffer,
                                    chunk.memory, 0);
  }
  void* mapped = nullptr;
  if (result == VK_SUCCESS) {
    result = vkd.vkMapMemory(device_->device, chunk.memory, 0, VK_WHOLE_SIZE,
                             0, &mapped);
  }
  if (result != VK_SUCCESS) {
    destroy();
    return vk_status(host, "staging memory allocation", result);
  }
  chunk.mapped = static_cast<unsigned char*>(mapped);
  try {
    chunks_.push_back(chunk);
  } catch (...) {
    destroy();
    throw;
  }
  return HALO_OK;
}

halo_status_t RecordingMemory::stage(const void* data, uint64_t length,
                                     StagedRange* out) noexcept {
  return sdk::guard(device_->host, [&]() -> halo_status_t {
    if (chunks_.empty() || chunks_.back().size - chunks_.back().used < length) {
      HALO_SDK_RETURN_IF_ERROR(add_chunk(length));
    }
    Chunk& chunk = chunks_.back();
    std::memcpy(chunk.mapped + chunk.used, data, length);
    out->buffer = chunk.buffer;
    out->offset = chunk.used;
    chunk.used = (chunk.used + length + 3) & ~uint64_t{3};
    if (chunk.used > chunk.size) chunk.used = chunk.size;
    return HALO_OK;
  });
}

halo_status_t RecordingMemory::flush() noexcept {
  if (coherent_) return HALO_OK;
  for (const Chunk& chunk : chunks_) {
    VkMappedMemoryRange range = {};
    range.sType = VK_STRUCTURE_TYPE_MAPPED_MEMORY_RANGE;
    range.memory = chunk.memory;
    range.size = VK_WHOLE_SIZE;
    HALO_VK_RETURN_IF_FAILED(device_->host, "vkFlushMappedMemoryRanges",
                             device_->vkd.vkFlushMappedMemoryRanges(
                                 device_->device, 1, &range));
  }
  return HALO_OK;
}

halo_status_t RecordingMemory::add_pool(uint32_t binding_count) noexcept {
  return sdk::guard(device_->host, [&]() -> halo_status_t {
    VkDescriptorPoolSize size = {};
    size.type = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    size.descriptorCount = std::max(kDescriptorsPerPool, binding_count);
    VkDescriptorPoolCreateInfo info = {};
    info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO;
    info.maxSets = kSetsPerPool;
    info.poolSizeCount = 1;
    info.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    HALO_VK_RETURN_IF_FAILED(device_->host, "vkCreateDescriptorPool",
                             device_->vkd.vkCreateDescriptorPool(
                                 device_->device, &info, nullptr, &pool));
    try {
      pools_.push_back(pool);
    } catch (...) {
      device_->vkd.vkDestroyDescriptorPool(device_->device, pool, nullptr);
      throw;
    }
    return HALO_OK;
  });
}

halo_status_t RecordingMemory::allocate_set(VkDescriptorSetLayout layout,
                                            uint32_t binding_count,
                                            VkDescriptorSet* out) noexcept {
  VkDescriptorSetAllocateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO;
  info.descriptorSetCount = 1;
  info.pSetLayouts = &layout;
  // The newest pool first; a full one is left behind for a fresh pool.
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (!pools_.empty()) {
      info.descriptorPool = pools_.back();
      VkResult result =
          device_->vkd.vkAllocateDescriptorSets(device_->device, &info, out);
      if (result == VK_SUCCESS) return HALO_OK;
      if (result != VK_ERROR_OUT_OF_POOL_MEMORY &&
          result != VK_ERROR_FRAGMENTED_POOL) {
        return vk_status(device_->host, "vkAllocateDescriptorSets", result);
      }
    }
    HALO_SDK_RETURN_IF_ERROR(add_pool(binding_count));
  }
  return device_->host.make_status_text(
      HALO_STATUS_RESOURCE_EXHAUSTED,
      "vkAllocateDescriptorSets failed even from a fresh pool");
}

}  // namespace halo::vk
