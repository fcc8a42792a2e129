// --shard I/N: one of N disjoint parts of a run, so that N machines (or N
// CI jobs) share one suite and together run each case exactly once.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace halo::cts {

struct Shard {
  size_t index = 0;  // I: from 0 to N - 1.
  size_t count = 1;  // N; 1 is the whole run.

  // "I/N", as given on the command line.
  std::string text() const;
};

// Reads |text| ("I/N": two decimal numbers, N >= 1, 0 <= I < N) into
// |out|. Returns false with |out_error| saying what is wrong otherwise.
bool parse_shard(std::string_view text, Shard* out, std::string* out_error);

// The items of |items| that |shard| runs: the k-th goes to shard k mod N.
// Dealing them out in turn, rather than cutting the list into N runs,
// spreads each group of cases (neighbours in name order, often alike in
// cost) over every shard.
template <typename T>
std::vector<T> take_shard(const std::vector<T>& items, const Shard& shard) {
  std::vector<T> taken;
  for (size_t k = shard.index; k < items.size(); k += shard.count) {
    taken.push_back(items[k]);
  }
  return taken;
}

}  // namespace halo::cts
