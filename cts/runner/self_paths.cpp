#include "self_paths.hpp"

#include <unistd.h>

#include <climits>
#include <filesystem>

namespace halo::cts {
namespace {

// <dir of halo-cts>/../share/halo/cts/|leaf|.
std::string cts_share_path(const char* leaf) {
  namespace fs = std::filesystem;
  return (fs::path(self_path()).parent_path() / ".." / "share" / "halo" / "cts" / leaf)
      .lexically_normal()
      .string();
}

}  // namespace

std::string self_path() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "halo-cts";
  path[n] = '\0';
  return path;
}

std::string default_testdata_dir() { return cts_share_path("testdata"); }

std::string reference_peer_path() { return cts_share_path("peer/libhalo_cts_peer.so"); }

}  // namespace halo::cts
