#include "shard.hpp"

#include <charconv>

namespace halo::cts {
namespace {

// Reads all of |text| as a decimal number; false for anything else (a
// sign, spaces, an empty text, a value too large).
bool parse_number(std::string_view text, size_t* out) {
  if (text.empty()) return false;
  const auto result = std::from_chars(text.data(), text.data() + text.size(), *out);
  return result.ec == std::errc() && result.ptr == text.data() + text.size();
}

}  // namespace

std::string Shard::text() const {
  return std::to_string(index) + "/" + std::to_string(count);
}

bool parse_shard(std::string_view text, Shard* out, std::string* out_error) {
  const size_t slash = text.find('/');
  Shard shard;
  if (slash == std::string_view::npos ||
      !parse_number(text.substr(0, slash), &shard.index) ||
      !parse_number(text.substr(slash + 1), &shard.count)) {
    *out_error = "expected I/N, two whole numbers (the shard I counts from 0: "
                 "0/3, 1/3 and 2/3 are the three shards of a run)";
    return false;
  }
  if (shard.count == 0) {
    *out_error = "N must be at least 1";
    return false;
  }
  if (shard.index >= shard.count) {
    *out_error = "I must be below N: shards count from 0, so the last of " +
                 std::to_string(shard.count) + " is " +
                 std::to_string(shard.count - 1) + "/" + std::to_string(shard.count);
    return false;
  }
  *out = shard;
  return true;
}

}  // namespace halo::cts
