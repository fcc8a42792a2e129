// The progress line of a run on a terminal: one line, rewritten in place,
// with the cases done, the failures so far and an estimate of the time
// left. Logs that are not a terminal (CI, ctest, a pipe) never get it, so
// they hold only whole lines.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>

namespace halo::cts {

// The line's text: "[12/150] 1 failed, ~2 min 05 s left". The estimate
// assumes the cases left take, on average, as long as the ones done
// (|elapsed_s| over |done|), which holds for any number of jobs; before
// the first case ends there is nothing to estimate from. |reruns| counts
// the reruns under way or queued.
std::string progress_text(size_t done, size_t total, size_t failed,
                          size_t reruns, double elapsed_s);

class Progress {
 public:
  // Draws on stderr, and only when |enabled|.
  Progress(size_t total, bool enabled);

  // True when stderr is a terminal: the only place the line is drawn.
  static bool stderr_is_terminal();

  void case_finished(bool failed);
  void rerun_queued() { ++reruns_; }
  void rerun_started() { --reruns_; }
  // Erases the line so that other output can be printed in its place;
  // draw() puts it back.
  void clear();
  void draw();

 private:
  using Clock = std::chrono::steady_clock;

  const bool enabled_;
  const size_t total_;
  const Clock::time_point start_ = Clock::now();
  size_t done_ = 0, failed_ = 0, reruns_ = 0;
  size_t drawn_ = 0;  // Bytes of the line on screen now.
};

}  // namespace halo::cts
