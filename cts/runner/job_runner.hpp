// Running the cases of a run: each job (a case, on one plugin, in one
// repetition) in a worker process of its own, its end turned into an
// outcome, and a failing one run again while --rerun-failures allows.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "../framework/cts.hpp"
#include "expectations.hpp"
#include "options.hpp"
#include "report.hpp"

namespace halo::cts {

struct Job {
  std::string plugin_spec;  // The plugin as --plugin named it.
  std::string plugin_name;
  // The manifest or library the runner loaded the plugin from ("": let the
  // worker discover it by name).
  std::string plugin_file;
  std::string device;  // The device under test: "name (driver version)".
  // The worker's --peer: --peer as given, the reference peer's path, or ""
  // for the first other loaded plugin with semaphores.
  std::string peer;
  // The manifest or library the peer loads from, when |peer| names one.
  std::string peer_file;
  const Case* c;
  int repetition;
  uint64_t seed;
};

// Runs |jobs|, |options.jobs| workers at once, and passes each job's final
// outcome (with its earlier failed attempts) to |record| before printing
// its line, so that whoever sees the line finds the case in the reports.
// Draws the progress line while it runs when stderr is a terminal.
void run_jobs(const std::vector<Job>& jobs, const Options& options,
              const std::vector<Expectation>& expectations,
              const std::function<void(const Outcome&)>& record);

}  // namespace halo::cts
