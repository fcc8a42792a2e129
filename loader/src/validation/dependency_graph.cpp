#include "dependency_graph.hpp"

#include <algorithm>

#include "object_table.hpp"
#include "report.hpp"

namespace halo::loader::validation {
namespace {

// Every pending signal on one semaphore, as (value, submission), sorted.
using SignalIndex =
    std::unordered_map<const halo_semaphore_t*,
                       std::vector<std::pair<uint64_t, size_t>>>;

SignalIndex index_signals(const std::vector<const Submission*>& submissions) {
  SignalIndex index;
  for (size_t i = 0; i < submissions.size(); ++i) {
    for (const Timepoint& signal : submissions[i]->signals) {
      index[signal.semaphore].emplace_back(signal.value, i);
    }
  }
  for (auto& [semaphore, signals] : index) {
    std::sort(signals.begin(), signals.end());
  }
  return index;
}

bool is_reached(const Payloads& payloads, const Timepoint& wait) {
  auto payload = payloads.find(wait.semaphore);
  // A failed semaphore fails the wait rather than blocking it.
  return payload != payloads.end() &&
         (!payload->second.has_value() || *payload->second >= wait.value);
}

}  // namespace

std::string name_of(const Submission& submission) {
  return format("#%llu on '%s'",
                static_cast<unsigned long long>(submission.serial),
                submission.device_name.c_str());
}

DependencyGraph::DependencyGraph(
    const std::vector<const Submission*>& submissions, const Payloads& payloads)
    : count_(submissions.size()),
      sure_(count_),
      sure_open_(count_, false),
      possible_(count_),
      possible_open_(count_, false),
      submissions_(submissions) {
  const SignalIndex index = index_signals(submissions);
  for (size_t i = 0; i < count_; ++i) {
    for (const Timepoint& wait : submissions[i]->waits) {
      if (is_reached(payloads, wait)) continue;
      auto signals = index.find(wait.semaphore);
      if (signals == index.end()) {
        sure_open_[i] = possible_open_[i] = true;
        continue;
      }
      const auto& list = signals->second;
      auto first = std::lower_bound(list.begin(), list.end(),
                                    std::make_pair(wait.value, size_t{0}));
      if (first == list.end()) {
        sure_open_[i] = possible_open_[i] = true;
        continue;
      }
      possible_[i].push_back(first->second);
      if (first->first == wait.value) {
        sure_[i].push_back({first->second, wait});
      } else {
        sure_open_[i] = true;
      }
    }
  }
}

std::vector<bool> DependencyGraph::spread(
    const std::vector<std::vector<size_t>>& edges, std::vector<size_t> frontier,
    size_t count) {
  std::vector<bool> marked(count, false);
  for (size_t node : frontier) marked[node] = true;
  while (!frontier.empty()) {
    const size_t node = frontier.back();
    frontier.pop_back();
    for (size_t next : edges[node]) {
      if (!marked[next]) {
        marked[next] = true;
        frontier.push_back(next);
      }
    }
  }
  return marked;
}

std::string DependencyGraph::cycle_through(size_t start) const {
  // Breadth first from |start|: the shortest cycle, with each node's parent
  // edge to rebuild it.
  std::vector<const Edge*> parent(count_, nullptr);
  std::vector<size_t> parent_node(count_, 0);
  std::vector<bool> seen(count_, false);
  std::vector<size_t> queue{start};
  const Edge* closing = nullptr;
  size_t closing_from = 0;
  for (size_t head = 0; head < queue.size() && closing == nullptr; ++head) {
    const size_t node = queue[head];
    for (const Edge& edge : sure_[node]) {
      if (edge.to == start) {
        closing = &edge;
        closing_from = node;
        break;
      }
      if (seen[edge.to]) continue;
      seen[edge.to] = true;
      parent[edge.to] = &edge;
      parent_node[edge.to] = node;
      queue.push_back(edge.to);
    }
  }
  if (closing == nullptr) return {};
  std::vector<std::pair<size_t, const Edge*>> path{{closing_from, closing}};
  for (size_t node = closing_from; node != start; node = parent_node[node]) {
    path.emplace_back(parent_node[node], parent[node]);
  }
  std::reverse(path.begin(), path.end());
  std::string text;
  for (const auto& [from, edge] : path) {
    text += format(
        "%ssubmission %s waits for %s to reach %llu, which submission %s "
        "signals",
        text.empty() ? "" : "; ", name_of(*submissions_[from]).c_str(),
        describe(edge->wait.semaphore, HALO_OBJECT_TYPE_SEMAPHORE).c_str(),
        static_cast<unsigned long long>(edge->wait.value),
        name_of(*submissions_[edge->to]).c_str());
  }
  return text;
}

std::vector<bool> DependencyGraph::surely_after(size_t target) const {
  std::vector<std::vector<size_t>> reverse(count_);
  for (size_t i = 0; i < count_; ++i) {
    for (const Edge& edge : sure_[i]) reverse[edge.to].push_back(i);
  }
  std::vector<bool> after = spread(reverse, reverse[target], count_);
  return after;
}

std::vector<bool> DependencyGraph::surely_before(size_t source) const {
  std::vector<std::vector<size_t>> forward(count_);
  for (size_t i = 0; i < count_; ++i) {
    for (const Edge& edge : sure_[i]) forward[i].push_back(edge.to);
  }
  return spread(forward, forward[source], count_);
}

std::vector<bool> DependencyGraph::order_known() const {
  std::vector<std::vector<size_t>> reverse(count_);
  std::vector<size_t> open;
  for (size_t i = 0; i < count_; ++i) {
    for (const Edge& edge : sure_[i]) reverse[edge.to].push_back(i);
    if (sure_open_[i]) open.push_back(i);
  }
  std::vector<bool> unknown = spread(reverse, std::move(open), count_);
  unknown.flip();
  return unknown;
}

std::vector<bool> DependencyGraph::waits_for_host() const {
  std::vector<std::vector<size_t>> reverse(count_);
  std::vector<size_t> open;
  for (size_t i = 0; i < count_; ++i) {
    for (size_t to : possible_[i]) reverse[to].push_back(i);
    if (possible_open_[i]) open.push_back(i);
  }
  return spread(reverse, std::move(open), count_);
}

}  // namespace halo::loader::validation
