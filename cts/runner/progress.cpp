#include "progress.hpp"

#include <unistd.h>

#include <cmath>
#include <cstdio>

namespace halo::cts {
namespace {

// |seconds| rounded up, in the two largest units that matter: "45 s",
// "2 min 05 s", "1 h 02 min".
std::string duration_text(double seconds) {
  const long long total = static_cast<long long>(std::ceil(seconds));
  char text[48];
  if (total < 60) {
    std::snprintf(text, sizeof(text), "%lld s", total);
  } else if (total < 3600) {
    std::snprintf(text, sizeof(text), "%lld min %02lld s", total / 60, total % 60);
  } else {
    std::snprintf(text, sizeof(text), "%lld h %02lld min", total / 3600,
                  (total % 3600) / 60);
  }
  return text;
}

}  // namespace

std::string progress_text(size_t done, size_t total, size_t failed,
                          size_t reruns, double elapsed_s) {
  std::string text = "[" + std::to_string(done) + "/" + std::to_string(total) +
                     "] " + std::to_string(failed) + " failed";
  if (reruns != 0) text += ", " + std::to_string(reruns) + " to rerun";
  if (done == 0) return text + ", estimating the time left";
  if (done >= total) return text + ", done";
  const double left = elapsed_s / static_cast<double>(done) *
                      static_cast<double>(total - done);
  return text + ", ~" + duration_text(left) + " left";
}

Progress::Progress(size_t total, bool enabled) : enabled_(enabled), total_(total) {}

bool Progress::stderr_is_terminal() { return isatty(STDERR_FILENO) == 1; }

void Progress::case_finished(bool failed) {
  ++done_;
  failed_ += failed;
}

// Blanks rather than a terminal control sequence: every terminal, even a
// "dumb" one, understands a carriage return and spaces.
void Progress::clear() {
  if (!enabled_ || drawn_ == 0) return;
  std::fprintf(stderr, "\r%*s\r", static_cast<int>(drawn_), "");
  std::fflush(stderr);
  drawn_ = 0;
}

void Progress::draw() {
  if (!enabled_) return;
  const double elapsed_s =
      std::chrono::duration<double>(Clock::now() - start_).count();
  const std::string text = progress_text(done_, total_, failed_, reruns_, elapsed_s);
  // Padding over the rest of a longer line drawn before.
  const size_t pad = drawn_ > text.size() ? drawn_ - text.size() : 0;
  std::fprintf(stderr, "\r%s%*s", text.c_str(), static_cast<int>(pad), "");
  if (pad != 0) std::fprintf(stderr, "\r%s", text.c_str());
  std::fflush(stderr);
  drawn_ = text.size();
}

}  // namespace halo::cts
