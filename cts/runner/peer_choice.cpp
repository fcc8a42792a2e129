#include "peer_choice.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include "self_paths.hpp"

namespace halo::cts {

PeerChoice choose_peer(const Options& options, const std::vector<std::string>& loaded,
                       const std::string& target) {
  if (!options.peer.empty()) return {options.peer, ""};
  const bool another = std::any_of(loaded.begin(), loaded.end(),
                                   [&](const std::string& name) { return name != target; });
  if (another) return {"", ""};
  const std::string reference = reference_peer_path();
  std::error_code error;
  if (!std::filesystem::is_regular_file(reference, error)) {
    return {"", "no other plugin is loaded and the reference peer " + reference +
                    " is missing, so the interop cases skip (name a peer with --peer)"};
  }
  return {reference, "no other plugin is loaded, so the interop cases pair with the "
                     "reference peer " + reference};
}

}  // namespace halo::cts
