// What a worker printed, kept within a fixed size however much it prints.
//
// A worker that floods its output must cost the runner bounded memory, yet
// the report needs both ends: the start says what the case was doing, the
// end holds the verdict line and any sanitizer summary. So the first
// kHeadBytes and the last kTailBytes are kept, and what lies between is
// replaced by one "[… N bytes dropped …]" line.
#pragma once

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

namespace halo::cts {

class BoundedOutput {
 public:
  static constexpr size_t kHeadBytes = 64 * 1024;
  static constexpr size_t kTailBytes = 64 * 1024;

  void append(std::string_view data) {
    const size_t to_head = std::min(data.size(), kHeadBytes - head_.size());
    head_.append(data.substr(0, to_head));
    data.remove_prefix(to_head);
    if (data.empty()) return;
    tail_.append(data);
    // Trimming only once the tail holds twice its share keeps appends
    // amortised O(1) instead of moving the whole tail on every read.
    if (tail_.size() >= 2 * kTailBytes) trim_tail();
  }

  size_t dropped_bytes() const {
    return dropped_ + (tail_.size() > kTailBytes ? tail_.size() - kTailBytes : 0);
  }

  // The kept text: the head, the marker when anything was dropped, the tail.
  std::string take() {
    trim_tail();
    std::string text = std::move(head_);
    if (dropped_ != 0) {
      text += "\n[… " + std::to_string(dropped_) + " bytes dropped …]\n";
    }
    text += tail_;
    head_.clear();
    tail_.clear();
    dropped_ = 0;
    return text;
  }

 private:
  void trim_tail() {
    if (tail_.size() <= kTailBytes) return;
    const size_t excess = tail_.size() - kTailBytes;
    tail_.erase(0, excess);
    dropped_ += excess;
  }

  std::string head_;
  std::string tail_;
  size_t dropped_ = 0;
};

}  // namespace halo::cts
