// halo-cts command-line options.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "shard.hpp"

namespace halo::cts {

struct Options {
  std::vector<std::string> plugins;  // Names or paths; empty: every loaded one.
  std::vector<std::string> filters;  // Globs on case names; empty: all.
  // Globs of cases not to run, whatever |filters| select.
  std::vector<std::string> skips;
  bool list = false;
  int jobs = 1;
  double timeout_s = 60;
  int repeat = 1;
  uint64_t seed = 0;
  std::string json_path;
  std::string junit_path;
  std::string expectations_path;
  bool verify_expectations = false;
  std::string testdata_dir;
  // The part of the selected cases this run runs (--shard I/N).
  Shard shard;
  bool sharded = false;
  // How often a case that fails is run again; one that then passes is
  // flaky, and does not fail the run.
  int rerun_failures = 0;
  // The index of the device under test among the driver's devices.
  size_t device = 0;
  // The plugin whose device the interop cases pair with, by name or path
  // ("": the first other loaded plugin with a device that has semaphores,
  // or the reference peer when no other plugin is loaded).
  std::string peer;
  // The manifest certified with the one --plugin ("": the one found beside
  // it, or none for a bare library).
  std::string manifest;
  // "address" or "thread": run under that sanitizer's runtime ("": none),
  // preloading |sanitizer_runtime| ("": the one halo-cts was built beside).
  std::string sanitize;
  std::string sanitizer_runtime;
  // Worker mode: run exactly one case in this process.
  bool worker = false;
  std::string worker_case;
  std::string worker_plugin;
  // The file (manifest or library) the runner loaded |worker_plugin| from;
  // a case that needs no second plugin loads only it ("": discover).
  std::string worker_plugin_file;
  // The file the runner found the peer in ("": the worker finds it).
  std::string worker_peer_file;
  int64_t runner_pid = 0;  // The runner that started this worker.
  uint64_t case_seed = 0;
  bool has_case_seed = false;
};

}  // namespace halo::cts
