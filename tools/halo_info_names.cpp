// Names for the C enums and bit sets that halo-info prints, shared by the
// text and JSON printers so that both spell a value the same way.
#include <cstdio>
#include <iterator>

#include "halo_info_report.hpp"

namespace halo::info {

std::string device_type_name(std::uint32_t type) {
  switch (type) {
    case HALO_DEVICE_TYPE_OTHER:
      return "other";
    case HALO_DEVICE_TYPE_GPU_DISCRETE:
      return "discrete-gpu";
    case HALO_DEVICE_TYPE_GPU_INTEGRATED:
      return "integrated-gpu";
    case HALO_DEVICE_TYPE_ACCELERATOR:
      return "accelerator";
    case HALO_DEVICE_TYPE_CPU:
      return "cpu";
    case HALO_DEVICE_TYPE_GPU_VIRTUAL:
      return "virtual-gpu";
    default:
      return "unknown-" + std::to_string(type);
  }
}

namespace {

struct BitName {
  std::uint64_t bit;
  const char* name;
};

std::vector<std::string> bit_names(std::uint64_t bits, const BitName* table,
                                   std::size_t table_size) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < table_size; ++i) {
    if ((bits & table[i].bit) != 0) {
      names.emplace_back(table[i].name);
      bits &= ~table[i].bit;
    }
  }
  if (bits != 0) {
    names.push_back(hex(bits));
  }
  return names;
}

}  // namespace

std::vector<std::string> feature_names(halo_device_features_t features) {
  static constexpr BitName kFeatures[] = {
      {HALO_DEVICE_FEATURE_SEMAPHORES, "semaphores"},
      {HALO_DEVICE_FEATURE_QUEUES, "queues"},
      {HALO_DEVICE_FEATURE_BUFFERS, "buffers"},
      {HALO_DEVICE_FEATURE_COMMAND_BUFFERS, "command-buffers"},
      {HALO_DEVICE_FEATURE_DISPATCH, "dispatch"},
      {HALO_DEVICE_FEATURE_DEVICE_SEMAPHORE_WAIT, "device-semaphore-wait"},
      {HALO_DEVICE_FEATURE_AUTOMATIC_DEVICE_WAITS, "automatic-device-waits"},
  };
  return bit_names(features, kFeatures, std::size(kFeatures));
}

std::vector<std::string> memory_type_names(halo_memory_type_t types) {
  static constexpr BitName kTypes[] = {
      {HALO_MEMORY_TYPE_DEVICE_LOCAL, "device-local"},
      {HALO_MEMORY_TYPE_HOST_VISIBLE, "host-visible"},
      {HALO_MEMORY_TYPE_HOST_COHERENT, "host-coherent"},
      {HALO_MEMORY_TYPE_HOST_CACHED, "host-cached"},
  };
  return bit_names(types, kTypes, std::size(kTypes));
}

std::vector<std::string> handle_type_names(halo_external_handle_type_t types) {
  static constexpr BitName kTypes[] = {
      {HALO_EXTERNAL_HANDLE_TYPE_OPAQUE_FD, "opaque-fd"},
      {HALO_EXTERNAL_HANDLE_TYPE_HOST_ALLOCATION, "host-allocation"},
      {HALO_EXTERNAL_HANDLE_TYPE_DMA_BUF, "dma-buf"},
      {HALO_EXTERNAL_HANDLE_TYPE_HOST_TIMELINE_FD, "host-timeline-fd"},
  };
  return bit_names(types, kTypes, std::size(kTypes));
}

std::vector<std::string> split_formats(const std::string& formats) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (start <= formats.size()) {
    std::size_t end = formats.find(',', start);
    if (end == std::string::npos) {
      end = formats.size();
    }
    std::string name = formats.substr(start, end - start);
    const std::size_t first = name.find_first_not_of(' ');
    const std::size_t last = name.find_last_not_of(' ');
    if (first != std::string::npos) {
      names.push_back(name.substr(first, last - first + 1));
    }
    start = end + 1;
  }
  return names;
}

std::string uuid_string(const std::uint8_t (&uuid)[16]) {
  std::string text;
  char byte[3];
  for (std::size_t i = 0; i < 16; ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) {
      text += '-';
    }
    std::snprintf(byte, sizeof(byte), "%02x", uuid[i]);
    text += byte;
  }
  return text;
}

std::string hex(std::uint64_t value) {
  char text[24];
  std::snprintf(text, sizeof(text), "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace halo::info
