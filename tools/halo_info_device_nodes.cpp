// GPU device nodes: a driver needs to open its node for reading and writing,
// and a user outside the node's group sees the GPU vanish with no error of
// its own.
#include <glob.h>
#include <grp.h>
#include <sys/stat.h>
#include <unistd.h>

#include "halo_info_doctor.hpp"

namespace halo::info {
namespace {

std::string group_name(gid_t gid) {
  const group* entry = getgrgid(gid);
  return entry != nullptr ? std::string(entry->gr_name) : std::to_string(gid);
}

}  // namespace

std::vector<DeviceNode> gpu_device_nodes() {
  // Render nodes (Mesa, AMD and Intel compute), the NVIDIA driver's nodes,
  // and AMD's compute node.
  static constexpr const char* kPatterns[] = {
      "/dev/dri/renderD*", "/dev/nvidiactl", "/dev/nvidia[0-9]*",
      "/dev/nvidia-uvm", "/dev/kfd"};
  std::vector<DeviceNode> nodes;
  for (const char* pattern : kPatterns) {
    glob_t matches{};
    if (glob(pattern, 0, nullptr, &matches) == 0) {
      for (std::size_t i = 0; i < matches.gl_pathc; ++i) {
        DeviceNode node;
        node.path = matches.gl_pathv[i];
        node.accessible = access(node.path.c_str(), R_OK | W_OK) == 0;
        struct stat info {};
        if (stat(node.path.c_str(), &info) == 0) {
          node.group = group_name(info.st_gid);
        }
        nodes.push_back(node);
      }
    }
    globfree(&matches);
  }
  return nodes;
}

}  // namespace halo::info
