// Creating raw CUDA events, memory and modules (see raw_objects.hpp).
#include "raw_objects.hpp"

#include <utility>
#include <vector>

namespace halo::bench {
namespace {

// The most of a JIT log an error carries.
constexpr size_t kJitLogSize = 4096;

}  // namespace

CuEvent make_event(unsigned int flags) {
  CUevent event = nullptr;
  check_cu(cuEventCreate(&event, flags), "cuEventCreate");
  return CuEvent(event);
}

DeviceMemory::DeviceMemory(size_t size) {
  check_cu(cuMemAlloc(&address_, size), "cuMemAlloc");
}

DeviceMemory::~DeviceMemory() {
  if (address_ != 0) cuMemFree(address_);
}

DeviceMemory::DeviceMemory(DeviceMemory&& other) noexcept
    : address_(std::exchange(other.address_, 0)) {}

DeviceMemory& DeviceMemory::operator=(DeviceMemory&& other) noexcept {
  if (this != &other) {
    if (address_ != 0) cuMemFree(address_);
    address_ = std::exchange(other.address_, 0);
  }
  return *this;
}

HostWord HostWord::make() {
  HostWord word;
  void* host = nullptr;
  check_cu(cuMemHostAlloc(&host, sizeof(uint64_t),
                          CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP),
           "cuMemHostAlloc");
  word.host_ = static_cast<uint64_t*>(host);
  *word.host_ = 0;
  check_cu(cuMemHostGetDevicePointer(&word.device_, host, 0),
           "cuMemHostGetDevicePointer");
  return word;
}

HostWord::~HostWord() {
  if (host_ != nullptr) cuMemFreeHost(host_);
}

HostWord::HostWord(HostWord&& other) noexcept
    : host_(std::exchange(other.host_, nullptr)),
      device_(std::exchange(other.device_, 0)) {}

HostWord& HostWord::operator=(HostWord&& other) noexcept {
  if (this != &other) {
    if (host_ != nullptr) cuMemFreeHost(host_);
    host_ = std::exchange(other.host_, nullptr);
    device_ = std::exchange(other.device_, 0);
  }
  return *this;
}

bool load_kernel(const std::string& ptx, const char* name, LoadedKernel* out,
                 std::string* error) {
  std::vector<char> log(kJitLogSize, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER,
                            CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {log.data(), reinterpret_cast<void*>(log.size() - 1)};
  CUmodule module = nullptr;
  // std::string keeps its text NUL-terminated, as the JIT wants it.
  CUresult result =
      cuModuleLoadDataEx(&module, ptx.c_str(), 2, options, values);
  if (result != CUDA_SUCCESS) {
    *error = "cuModuleLoadDataEx: " + cu_error_text(result);
    if (log[0] != '\0') *error += "; JIT log: " + std::string(log.data());
    return false;
  }
  LoadedKernel loaded;
  loaded.module.reset(module);
  result = cuModuleGetFunction(&loaded.function, module, name);
  if (result != CUDA_SUCCESS) {
    *error = std::string("cuModuleGetFunction(\"") + name +
             "\"): " + cu_error_text(result);
    return false;
  }
  *out = std::move(loaded);
  return true;
}

}  // namespace halo::bench
