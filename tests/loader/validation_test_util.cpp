#include "validation_test_util.hpp"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>

#include "halo/deadline.h"

namespace halo_test {

StderrCapture::StderrCapture() {
  int fds[2];
  if (pipe(fds) != 0) {
    ADD_FAILURE() << "pipe failed";
    return;
  }
  std::fflush(stderr);
  saved_fd_ = dup(STDERR_FILENO);
  dup2(fds[1], STDERR_FILENO);
  close(fds[1]);
  read_fd_ = fds[0];
  reader_ = std::thread([this] { read_loop(); });
}

StderrCapture::~StderrCapture() { stop(); }

void StderrCapture::read_loop() {
  char chunk[4096];
  for (;;) {
    const ssize_t got = read(read_fd_, chunk, sizeof(chunk));
    if (got <= 0) break;
    if (saved_fd_ >= 0) (void)!write(saved_fd_, chunk, static_cast<size_t>(got));
    std::lock_guard lock(mutex_);
    text_.append(chunk, static_cast<size_t>(got));
    changed_.notify_all();
  }
}

std::string StderrCapture::text() {
  std::lock_guard lock(mutex_);
  return text_;
}

bool StderrCapture::wait_for(const std::string& needle) {
  std::unique_lock lock(mutex_);
  return changed_.wait_for(lock, std::chrono::minutes(1), [&] {
    return text_.find(needle) != std::string::npos;
  });
}

std::string StderrCapture::stop() {
  if (saved_fd_ >= 0) {
    std::fflush(stderr);
    // Closes the pipe's last write end: the reader sees the end of it.
    dup2(saved_fd_, STDERR_FILENO);
    reader_.join();
    close(saved_fd_);
    close(read_fd_);
    saved_fd_ = -1;
  }
  return text();
}

size_t count_of(const std::string& text, const std::string& needle) {
  size_t count = 0;
  for (size_t at = text.find(needle); at != std::string::npos;
       at = text.find(needle, at + needle.size())) {
    ++count;
  }
  return count;
}

void ValidationTest::SetUp() {
#ifndef HALO_TEST_HAVE_CPU_PLUGIN
  GTEST_SKIP() << "this build has no cpu plugin";
#else
  if (create_in_set_up_) open(HALO_REGISTRY_FLAG_VALIDATION);
#endif
}

void ValidationTest::open(halo_registry_flags_t flags) {
#ifdef HALO_TEST_HAVE_CPU_PLUGIN
  const char* paths[] = {HALO_TEST_CPU_MANIFEST};
  halo_registry_options_t options{};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS | flags;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  ASSERT_EQ(halo_registry_create(&options, &registry_), HALO_OK);
  ASSERT_EQ(halo_registry_create_device(registry_, 0, nullptr, &device_), HALO_OK);
#else
  (void)flags;
#endif
}

void ValidationTest::TearDown() {
  if (device_ != nullptr) {
    halo_status_free(halo_device_wait_idle(device_, halo_deadline_after_ns(60'000'000'000)));
  }
  for (halo_command_buffer_t* command_buffer : command_buffers_) {
    halo_command_buffer_release(command_buffer);
  }
  for (halo_executable_t* executable : executables_) halo_executable_release(executable);
  for (halo_buffer_t* buffer : buffers_) halo_buffer_release(buffer);
  for (halo_semaphore_t* semaphore : semaphores_) halo_semaphore_release(semaphore);
  halo_device_release(device_);
  halo_registry_release(registry_);
}

halo_semaphore_t* ValidationTest::semaphore(uint64_t initial) {
  halo_semaphore_t* semaphore = nullptr;
  EXPECT_EQ(halo_semaphore_create(device_, initial, 0, &semaphore), HALO_OK);
  semaphores_.push_back(semaphore);
  return semaphore;
}

halo_buffer_t* ValidationTest::buffer(uint64_t size, halo_buffer_usage_t usage) {
  halo_buffer_params_t params{};
  params.struct_size = sizeof(params);
  params.memory_type = HALO_MEMORY_TYPE_HOST_VISIBLE;
  params.usage = usage | HALO_BUFFER_USAGE_MAPPING;
  params.size = size;
  halo_buffer_t* buffer = nullptr;
  EXPECT_EQ(halo_buffer_allocate(device_, &params, &buffer), HALO_OK);
  buffers_.push_back(buffer);
  return buffer;
}

halo_status_t ValidationTest::execute(std::vector<halo_semaphore_t*> waits,
                                      std::vector<uint64_t> wait_values,
                                      std::vector<halo_semaphore_t*> signals,
                                      std::vector<uint64_t> signal_values,
                                      std::vector<halo_command_buffer_t*> command_buffers) {
  halo_queue_execute_info_t info{};
  info.struct_size = sizeof(info);
  info.affinity = HALO_QUEUE_AFFINITY_ANY;
  info.wait_count = waits.size();
  info.wait_semaphores = waits.data();
  info.wait_values = wait_values.data();
  info.signal_count = signals.size();
  info.signal_semaphores = signals.data();
  info.signal_values = signal_values.data();
  info.command_buffer_count = command_buffers.size();
  info.command_buffers = command_buffers.data();
  return halo_device_queue_execute(device_, &info);
}

halo_executable_t* ValidationTest::wait_for_flag_kernel() {
  std::ifstream file(HALO_TEST_WAIT_FOR_FLAG_KERNEL, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes.empty()) << HALO_TEST_WAIT_FOR_FLAG_KERNEL;
  halo_executable_params_t params{};
  params.struct_size = sizeof(params);
  params.format = "cpu-so";
  params.data = bytes.data();
  params.data_size = bytes.size();
  halo_executable_t* executable = nullptr;
  EXPECT_EQ(halo_executable_create(device_, &params, &executable), HALO_OK);
  executables_.push_back(executable);
  return executable;
}

void ValidationTest::expect_reaches(halo_semaphore_t* semaphore, uint64_t value) {
  EXPECT_EQ(halo_semaphore_wait(semaphore, value, halo_deadline_after_ns(60'000'000'000)),
            HALO_OK);
}

}  // namespace halo_test
