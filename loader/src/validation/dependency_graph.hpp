// What each pending submission waits for, and what follows from it: cycles
// (deadlocks), certain order between submissions, and submissions that
// wait, directly or not, for a signal only the host can give.
//
// A wait (s, v) not yet reached is *surely* served by a pending submission
// that signals s to exactly v: any other signal of v would conflict with
// it. A pending signal above v *may* serve it, but a submission not yet made
// may signal a value in between first (wait-before-signal), so validation
// never calls a wait blocked on such a signal alone: cycles and order use
// only sure edges, as a false report costs more than a missed one.
//
// Built once per check; every query is linear in the submissions and their
// waits, and none recurses, so long chains cost neither time nor stack.
#pragma once

#include <string>
#include <unordered_map>
#include <vector>

#include "submission.hpp"

namespace halo::loader::validation {

class DependencyGraph {
 public:
  // Borrows |submissions| (in submission order) and |payloads| (every
  // semaphore they name). Throws only std::bad_alloc.
  DependencyGraph(const std::vector<const Submission*>& submissions,
                  const Payloads& payloads);

  // A cycle of sure edges through |start|, as "submission #1 … waits for
  // <semaphore> to reach v, which submission #2 … signals; …"; empty when
  // there is none.
  std::string cycle_through(size_t start) const;

  // For each submission: whether it surely runs after |target| (a path of
  // sure edges leads from it to |target|).
  std::vector<bool> surely_after(size_t target) const;
  // For each submission: whether |source| surely runs after it.
  std::vector<bool> surely_before(size_t source) const;
  // For each submission: whether everything it waits for, directly or not,
  // has a sure producer, so that what it runs after is known.
  std::vector<bool> order_known() const;

  // For each submission: whether it cannot start until the host signals
  // something: an unreached wait of it, or of a submission it depends on,
  // has no pending signal at or above its value.
  std::vector<bool> waits_for_host() const;

 private:
  struct Edge {
    size_t to;
    Timepoint wait;
  };
  static std::vector<bool> spread(const std::vector<std::vector<size_t>>& edges,
                                  std::vector<size_t> frontier, size_t count);

  size_t count_;
  // Per submission, its unreached waits' sure producers, and whether it has
  // an unreached wait without one; the same for possible producers (the
  // smallest pending signal at or above the value).
  std::vector<std::vector<Edge>> sure_;
  std::vector<bool> sure_open_;
  std::vector<std::vector<size_t>> possible_;
  std::vector<bool> possible_open_;
  const std::vector<const Submission*>& submissions_;
};

}  // namespace halo::loader::validation
