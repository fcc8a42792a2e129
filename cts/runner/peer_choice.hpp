// Which plugin the interop.* cases of a plugin pair with. Without a peer
// they would skip, and a plugin that calls every foreign semaphore
// incompatible would pass; so when a vendor certifies alone, with no other
// plugin installed, halo-cts brings its own: the reference peer
// (cts/peer/cts_peer.c).
#pragma once

#include <string>
#include <vector>

#include "options.hpp"

namespace halo::cts {

struct PeerChoice {
  // The workers' --peer: --peer as given; "" for the first other loaded
  // plugin with a device with semaphores (the worker's search); or the
  // reference peer's path.
  std::string peer;
  // A line for the run's output saying so when the reference peer is used
  // (or missing), else "".
  std::string note;
};

// Chooses the peer of the plugin called |target|, given |loaded|, the names
// of every plugin that the loader's discovery loads (every plugin a worker
// sees besides the one under test).
PeerChoice choose_peer(const Options& options, const std::vector<std::string>& loaded,
                       const std::string& target);

}  // namespace halo::cts
