// Runs worker processes in parallel with a hard per-process timeout.
#pragma once

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

namespace halo::cts {

struct ProcessResult {
  std::string output;     // stdout and stderr, interleaved.
  int exit_code = -1;     // When it exited.
  int signal = 0;         // When a signal ended it (not our timeout kill).
  bool timed_out = false; // Killed by us at the timeout.
  double duration_s = 0;
};

// Runs each argv in |commands| (argv[0] is the program), at most |jobs| at
// once, each in its own process group that is killed with SIGKILL after
// |timeout_s|. Calls |on_done(index, result)| in completion order.
void run_processes(const std::vector<std::vector<std::string>>& commands,
                   int jobs, double timeout_s,
                   const std::function<void(size_t, ProcessResult&&)>& on_done);

}  // namespace halo::cts
