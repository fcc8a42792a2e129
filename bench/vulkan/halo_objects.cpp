// The halo side's objects, made on the benchmark device.
#include "halo_objects.hpp"

namespace halo::bench {

HaloSemaphore::HaloSemaphore(halo_device_t* device) {
  check_halo(halo_semaphore_create(device, 0,
                                   HALO_SEMAPHORE_FLAG_NONE, &semaphore_),
             "halo_semaphore_create");
}

HaloSemaphore::~HaloSemaphore() { halo_semaphore_release(semaphore_); }

HaloBuffer::HaloBuffer(halo_device_t* device, uint64_t size,
                       halo_buffer_usage_t usage) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_DEVICE_LOCAL;
  params.usage = usage;
  params.size = size;
  check_halo(halo_buffer_allocate(device, &params, &buffer_),
             "halo_buffer_allocate");
}

HaloBuffer::~HaloBuffer() { halo_buffer_release(buffer_); }

HaloCommands::HaloCommands(halo_device_t* device) {
  check_halo(halo_command_buffer_create(device,
                                        HALO_COMMAND_BUFFER_MODE_REUSABLE,
                                        &command_buffer_),
             "halo_command_buffer_create");
  check_halo(halo_command_buffer_begin(command_buffer_),
             "halo_command_buffer_begin");
}

HaloCommands::~HaloCommands() { halo_command_buffer_release(command_buffer_); }

void HaloCommands::end() {
  check_halo(halo_command_buffer_end(command_buffer_),
             "halo_command_buffer_end");
}

HaloExecutable::HaloExecutable(halo_device_t* device,
                               const std::vector<uint32_t>& spirv) {
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = "spirv";
  params.data = spirv.data();
  params.data_size = spirv.size() * sizeof(uint32_t);
  check_halo(halo_executable_create(device, &params, &executable_),
             "halo_executable_create");
}

HaloExecutable::~HaloExecutable() { halo_executable_release(executable_); }

uint32_t HaloExecutable::entry_point(const char* name) const {
  uint32_t ordinal = 0;
  check_halo(halo_executable_lookup_entry_point(executable_, name, &ordinal),
             "halo_executable_lookup_entry_point");
  return ordinal;
}

}  // namespace halo::bench
