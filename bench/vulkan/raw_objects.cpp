// The raw side's objects, made on the raw device.
#include "raw_objects.hpp"

#include <bit>

#include "halo/sdk/spin.hpp"

namespace halo::bench {
namespace {

// The memory type allowed by |type_bits| that is device-local and has the
// fewest other properties (the plugin's rule for DEVICE_LOCAL buffers).
uint32_t pick_device_local_type(const VkPhysicalDeviceMemoryProperties& memory,
                                uint32_t type_bits) {
  constexpr VkMemoryPropertyFlags kDeviceLocal =
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT;
  int best_extra = 64;
  uint32_t best = 0;
  for (uint32_t i = 0; i < memory.memoryTypeCount; ++i) {
    const VkMemoryPropertyFlags flags = memory.memoryTypes[i].propertyFlags;
    if ((type_bits & (1u << i)) == 0 || (flags & kDeviceLocal) == 0) continue;
    const int extra = std::popcount(flags & ~kDeviceLocal);
    if (extra < best_extra) {
      best_extra = extra;
      best = i;
    }
  }
  if (best_extra == 64) {
    die_vk("no device-local memory type for a buffer",
           VK_ERROR_FEATURE_NOT_PRESENT);
  }
  return best;
}

}  // namespace

RawSemaphore::RawSemaphore(uint64_t initial_value) {
  const RawDevice& raw = raw_device();
  VkSemaphoreTypeCreateInfo type = {};
  type.sType = VK_STRUCTURE_TYPE_SEMAPHORE_TYPE_CREATE_INFO;
  type.semaphoreType = VK_SEMAPHORE_TYPE_TIMELINE;
  type.initialValue = initial_value;
  VkSemaphoreCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO;
  info.pNext = &type;
  check_vk(raw.vk.vkCreateSemaphore(raw.device, &info, nullptr, &semaphore_),
           "vkCreateSemaphore");
}

RawSemaphore::~RawSemaphore() {
  const RawDevice& raw = raw_device();
  raw.vk.vkDestroySemaphore(raw.device, semaphore_, nullptr);
}

RawRetirer::RawRetirer(Retiring how)
    : how_(how), thread_([this] {
        if (how_ == Retiring::kPolling) {
          poll_each();
        } else {
          wait_for_each();
        }
      }) {}

RawRetirer::~RawRetirer() {
  // Stopping first: the thread, woken by the signal past every
  // submission's, reads a value it never waits beyond and returns.
  stopping_.store(true, std::memory_order_seq_cst);
  const uint64_t past = submitted_.load(std::memory_order_relaxed) + 1;
  raw_signal(raw_device(), completion_.get(), past);
  submitted_.store(past, std::memory_order_seq_cst);
  submitted_.notify_one();
  thread_.join();
}

uint64_t RawRetirer::next_value() {
  const uint64_t value = submitted_.load(std::memory_order_relaxed) + 1;
  submitted_.store(value, std::memory_order_release);
  if (how_ == Retiring::kPolling) submitted_.notify_one();
  return value;
}

void RawRetirer::wait_for_each() {
  const RawDevice& raw = raw_device();
  uint64_t retired = 0;
  for (;;) {
    raw_wait(raw, completion_.get(), retired + 1);
    check_vk(raw.vk.vkGetSemaphoreCounterValue(raw.device, completion_.get(),
                                               &retired),
             "vkGetSemaphoreCounterValue");
    if (stopping_.load(std::memory_order_seq_cst)) return;
  }
}

void RawRetirer::poll_each() {
  const RawDevice& raw = raw_device();
  uint64_t retired = 0;
  for (;;) {
    const uint64_t submitted = submitted_.load(std::memory_order_acquire);
    if (stopping_.load(std::memory_order_seq_cst)) return;
    if (retired >= submitted) {
      submitted_.wait(submitted, std::memory_order_acquire);
      continue;
    }
    sdk::spin_until(std::chrono::milliseconds(1), kPollInterval, [&] {
      check_vk(raw.vk.vkGetSemaphoreCounterValue(raw.device, completion_.get(),
                                                 &retired),
               "vkGetSemaphoreCounterValue");
      return retired >= submitted;
    });
  }
}

RawBuffer::RawBuffer(uint64_t size, VkBufferUsageFlags usage) {
  const RawDevice& raw = raw_device();
  VkBufferCreateInfo info = {};
  info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  info.size = size;
  info.usage = usage;
  info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  check_vk(raw.vk.vkCreateBuffer(raw.device, &info, nullptr, &buffer_),
           "vkCreateBuffer");
  VkMemoryRequirements requirements = {};
  raw.vk.vkGetBufferMemoryRequirements(raw.device, buffer_, &requirements);
  VkMemoryAllocateInfo allocate = {};
  allocate.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  allocate.allocationSize = requirements.size;
  allocate.memoryTypeIndex =
      pick_device_local_type(raw.memory, requirements.memoryTypeBits);
  check_vk(raw.vk.vkAllocateMemory(raw.device, &allocate, nullptr, &memory_),
           "vkAllocateMemory");
  check_vk(raw.vk.vkBindBufferMemory(raw.device, buffer_, memory_, 0),
           "vkBindBufferMemory");
}

RawBuffer::~RawBuffer() {
  const RawDevice& raw = raw_device();
  raw.vk.vkDestroyBuffer(raw.device, buffer_, nullptr);
  raw.vk.vkFreeMemory(raw.device, memory_, nullptr);
}

RawCommands::RawCommands() {
  const RawDevice& raw = raw_device();
  VkCommandPoolCreateInfo pool = {};
  pool.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool.queueFamilyIndex = raw.queue_family;
  check_vk(raw.vk.vkCreateCommandPool(raw.device, &pool, nullptr, &pool_),
           "vkCreateCommandPool");
  VkCommandBufferAllocateInfo allocate = {};
  allocate.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  allocate.commandPool = pool_;
  allocate.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  allocate.commandBufferCount = 1;
  check_vk(raw.vk.vkAllocateCommandBuffers(raw.device, &allocate,
                                           &command_buffer_),
           "vkAllocateCommandBuffers");
  VkCommandBufferBeginInfo begin = {};
  begin.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  check_vk(raw.vk.vkBeginCommandBuffer(command_buffer_, &begin),
           "vkBeginCommandBuffer");
}

RawCommands::~RawCommands() {
  // Destroying the pool frees its command buffer.
  const RawDevice& raw = raw_device();
  raw.vk.vkDestroyCommandPool(raw.device, pool_, nullptr);
}

void RawCommands::end() {
  check_vk(raw_device().vk.vkEndCommandBuffer(command_buffer_),
           "vkEndCommandBuffer");
}

RawPipeline::RawPipeline(const std::vector<uint32_t>& spirv,
                         const char* entry) {
  const RawDevice& raw = raw_device();
  VkShaderModuleCreateInfo module = {};
  module.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO;
  module.codeSize = spirv.size() * sizeof(uint32_t);
  module.pCode = spirv.data();
  check_vk(raw.vk.vkCreateShaderModule(raw.device, &module, nullptr, &module_),
           "vkCreateShaderModule");
  VkPipelineLayoutCreateInfo layout = {};
  layout.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO;
  check_vk(raw.vk.vkCreatePipelineLayout(raw.device, &layout, nullptr,
                                         &layout_),
           "vkCreatePipelineLayout");
  VkComputePipelineCreateInfo pipeline = {};
  pipeline.sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO;
  pipeline.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
  pipeline.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  pipeline.stage.module = module_;
  pipeline.stage.pName = entry;
  pipeline.layout = layout_;
  check_vk(raw.vk.vkCreateComputePipelines(raw.device, VK_NULL_HANDLE, 1,
                                           &pipeline, nullptr, &pipeline_),
           "vkCreateComputePipelines");
}

RawPipeline::~RawPipeline() {
  const RawDevice& raw = raw_device();
  raw.vk.vkDestroyPipeline(raw.device, pipeline_, nullptr);
  raw.vk.vkDestroyPipelineLayout(raw.device, layout_, nullptr);
  raw.vk.vkDestroyShaderModule(raw.device, module_, nullptr);
}

}  // namespace halo::bench
