// Runs worker processes in parallel with a hard per-process timeout.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <string>
#include <vector>

namespace halo::cts {

struct ProcessResult {
  // stdout and stderr, interleaved; bounded (see BoundedOutput): a worker
  // that prints without end keeps its first and last bytes only.
  std::string output;
  int exit_code = -1;     // When it exited.
  int signal = 0;         // When a signal ended it (not our timeout kill).
  bool timed_out = false; // Killed by us at the timeout.
  double duration_s = 0;
  // When it was started, by the wall clock: reports say when each case ran.
  std::chrono::system_clock::time_point started_at;
};

// Runs each argv in |commands| (argv[0] is the program), at most |jobs| at
// once, each in its own process group. Calls |on_done(index, result)| in
// completion order.
//
// The timeout holds whatever a worker does: a process is done once it has
// exited *and* its output pipe reached end of file; one that is not done
// |timeout_s| after it started is killed with its whole process group
// (SIGKILL) and reported as timed out. That covers a worker that floods its
// output (reads are bounded per turn, so the deadline is checked between
// them), one that closes its output and keeps running, and one whose
// helpers keep the pipe open after it exited.
void run_processes(const std::vector<std::vector<std::string>>& commands,
                   int jobs, double timeout_s,
                   const std::function<void(size_t, ProcessResult&&)>& on_done);

// Hands the pool its next command: sets |out_index| (passed back to
// on_done) and |out_argv|, or returns false when it has none.
using NextCommand =
    std::function<bool(size_t* out_index, std::vector<std::string>* out_argv)>;

// As above, with the commands asked for one at a time, whenever fewer than
// |jobs| run. |next| is asked again after each |on_done|, so on_done can
// make more work (a case to run again) that starts at once; the pool
// returns once nothing runs and |next| has nothing.
void run_processes(const NextCommand& next, int jobs, double timeout_s,
                   const std::function<void(size_t, ProcessResult&&)>& on_done);

}  // namespace halo::cts
