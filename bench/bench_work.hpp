// Buffers, kernels and recorded work on the cpu device for the work
// benchmarks: each halo side records its command buffer once and then
// measures submit → done as the host sees it.
#ifndef HALO_BENCH_BENCH_WORK_HPP_
#define HALO_BENCH_BENCH_WORK_HPP_

#include <cstdint>

#include "halo/halo.h"

namespace halo::bench {

// Owns a host-visible buffer of the cpu device, mapped for its whole life.
class Buffer {
 public:
  explicit Buffer(uint64_t size);
  ~Buffer();
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  halo_buffer_t* get() const { return buffer_; }
  void* data() const { return data_; }
  uint64_t size() const { return size_; }

 private:
  halo_buffer_t* buffer_ = nullptr;
  void* data_ = nullptr;
  uint64_t size_ = 0;
};

// Owns the benchmark kernels (bench_kernels.c) loaded on the cpu device.
class Kernels {
 public:
  Kernels();
  ~Kernels();
  Kernels(const Kernels&) = delete;
  Kernels& operator=(const Kernels&) = delete;

  halo_executable_t* get() const { return executable_; }
  // Returns the ordinal of entry point |name|; aborts when it is missing.
  uint32_t entry_point(const char* name) const;

 private:
  halo_executable_t* executable_ = nullptr;
};

// A reusable command buffer and the semaphore its submissions signal.
// Record into command_buffer() between the constructor and finish(); then
// run() submits it and blocks until the host sees it done.
class RecordedWork {
 public:
  RecordedWork();
  ~RecordedWork();
  RecordedWork(const RecordedWork&) = delete;
  RecordedWork& operator=(const RecordedWork&) = delete;

  halo_command_buffer_t* command_buffer() const { return command_buffer_; }
  void finish();
  void run();

 private:
  halo_command_buffer_t* command_buffer_ = nullptr;
  halo_semaphore_t* semaphore_ = nullptr;
  uint64_t value_ = 0;
};

}  // namespace halo::bench

#endif  // HALO_BENCH_BENCH_WORK_HPP_
