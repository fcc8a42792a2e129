// What halo-cts finds relative to its own binary, in the build tree and
// installed alike (both put bin/ beside share/): its testdata and the
// reference peer.
#pragma once

#include <string>

namespace halo::cts {

// This program's path ("halo-cts" when /proc cannot say).
std::string self_path();

// <dir of halo-cts>/../share/halo/cts/testdata.
std::string default_testdata_dir();

// <dir of halo-cts>/../share/halo/cts/peer/libhalo_cts_peer.so: the plugin
// the interop.* cases pair with when no other plugin is loaded
// (cts/peer/cts_peer.c).
std::string reference_peer_path();

}  // namespace halo::cts
