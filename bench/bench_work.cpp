// Buffers, kernels and recorded work on the cpu device, through the public
// API only.
#include "bench_work.hpp"

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <vector>

#include "bench_device.hpp"

#ifndef HALO_BENCH_KERNELS
#error "HALO_BENCH_KERNELS must name the benchmark kernels' shared object"
#endif

namespace halo::bench {

Buffer::Buffer(uint64_t size) : size_(size) {
  halo_buffer_params_t params = {};
  params.struct_size = sizeof(params);
  params.memory_type =
      HALO_MEMORY_TYPE_HOST_VISIBLE | HALO_MEMORY_TYPE_HOST_COHERENT;
  params.usage = HALO_BUFFER_USAGE_TRANSFER_SOURCE |
                 HALO_BUFFER_USAGE_TRANSFER_TARGET |
                 HALO_BUFFER_USAGE_DISPATCH_STORAGE | HALO_BUFFER_USAGE_MAPPING;
  params.size = size;
  check(halo_buffer_allocate(cpu_device(), &params, &buffer_),
        "halo_buffer_allocate");
  check(halo_buffer_map_range(buffer_, 0, HALO_WHOLE_BUFFER, &data_),
        "halo_buffer_map_range");
}

Buffer::~Buffer() {
  check(halo_buffer_unmap_range(buffer_, 0, HALO_WHOLE_BUFFER),
        "halo_buffer_unmap_range");
  halo_buffer_release(buffer_);
}

Kernels::Kernels() {
  std::ifstream file(HALO_BENCH_KERNELS, std::ios::binary);
  if (!file) {
    std::fprintf(stderr, "halo-bench: cannot read %s\n", HALO_BENCH_KERNELS);
    std::abort();
  }
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  halo_executable_params_t params = {};
  params.struct_size = sizeof(params);
  params.format = "cpu-so";
  params.data = bytes.data();
  params.data_size = bytes.size();
  check(halo_executable_create(cpu_device(), &params, &executable_),
        "halo_executable_create");
}

Kernels::~Kernels() { halo_executable_release(executable_); }

uint32_t Kernels::entry_point(const char* name) const {
  uint32_t ordinal = 0;
  check(halo_executable_lookup_entry_point(executable_, name, &ordinal),
        "halo_executable_lookup_entry_point");
  return ordinal;
}

RecordedWork::RecordedWork() {
  check(halo_command_buffer_create(cpu_device(),
                                   HALO_COMMAND_BUFFER_MODE_REUSABLE,
                                   &command_buffer_),
        "halo_command_buffer_create");
  check(halo_command_buffer_begin(command_buffer_), "halo_command_buffer_begin");
  check(halo_semaphore_create(cpu_device(), 0, HALO_SEMAPHORE_FLAG_NONE,
                              &semaphore_),
        "halo_semaphore_create");
}

RecordedWork::~RecordedWork() {
  halo_command_buffer_release(command_buffer_);
  halo_semaphore_release(semaphore_);
}

void RecordedWork::finish() {
  check(halo_command_buffer_end(command_buffer_), "halo_command_buffer_end");
}

void RecordedWork::run() {
  const uint64_t target = ++value_;
  halo_queue_execute_info_t info = {};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.signal_count = 1;
  info.signal_semaphores = &semaphore_;
  info.signal_values = &target;
  info.command_buffer_count = 1;
  info.command_buffers = &command_buffer_;
  check(halo_device_queue_execute(cpu_device(), &info),
        "halo_device_queue_execute");
  check(halo_semaphore_wait(semaphore_, target, HALO_DEADLINE_INFINITE_FUTURE),
        "halo_semaphore_wait");
}

}  // namespace halo::bench
