#include "submission_tracker.hpp"

#include <algorithm>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <vector>

#include "../check.hpp"
#include "../object_refs.hpp"
#include "../plugin_status.hpp"
#include "dependency_graph.hpp"
#include "object_table.hpp"
#include "report.hpp"
#include "submission.hpp"

namespace halo::loader::validation {
namespace {

using SubmissionList = std::vector<std::unique_ptr<Submission>>;

struct Tracker {
  std::mutex mutex;
  SubmissionList pending;
  uint64_t next_serial = 1;
};

// Never destroyed, as the object table.
Tracker& tracker() {
  static Tracker* instance = new Tracker();
  return *instance;
}

std::optional<uint64_t> query_payload(halo_semaphore_t* semaphore) {
  const auto query = vtable_of<halo_semaphore_vtable_t>(semaphore)->query;
  uint64_t value = 0;
  halo_status_t status = call_plugin("validation", query, semaphore, &value);
  if (status == nullptr) return value;
  halo_status_free(status);
  return std::nullopt;
}

// The payload of |semaphore| in |payloads|, queried on first use.
std::optional<uint64_t> payload_of(Payloads* payloads,
                                   halo_semaphore_t* semaphore) {
  auto [it, inserted] = payloads->try_emplace(semaphore);
  if (inserted) it->second = query_payload(semaphore);
  return it->second;
}

bool is_pending(const Submission& submission, Payloads* payloads) {
  for (const Timepoint& signal : submission.signals) {
    std::optional<uint64_t> payload = payload_of(payloads, signal.semaphore);
    if (payload.has_value() && *payload < signal.value) return true;
  }
  return false;
}

// Under the tracker's lock: moves every submission that is no longer pending
// to |done| and returns the payloads of every semaphore the rest name.
Payloads prune_locked(Tracker& t, SubmissionList* done) {
  Payloads payloads;
  auto keep = std::stable_partition(
      t.pending.begin(), t.pending.end(),
      [&](const auto& submission) { return is_pending(*submission, &payloads); });
  done->insert(done->end(), std::make_move_iterator(keep),
               std::make_move_iterator(t.pending.end()));
  t.pending.erase(keep, t.pending.end());
  for (const auto& submission : t.pending) {
    for (const Timepoint& wait : submission->waits) {
      payload_of(&payloads, wait.semaphore);
    }
  }
  return payloads;
}

// Outside the lock: a semaphore's last release may run a plugin's destroy.
void release_submissions(SubmissionList* done) noexcept {
  for (const auto& submission : *done) {
    for (const auto* list : {&submission->waits, &submission->signals}) {
      for (const Timepoint& timepoint : *list) {
        release_object(reinterpret_cast<halo_object_t*>(timepoint.semaphore));
      }
    }
  }
  done->clear();
}

std::vector<const Submission*> view_of(const SubmissionList& list) {
  std::vector<const Submission*> view;
  view.reserve(list.size());
  for (const auto& submission : list) view.push_back(submission.get());
  return view;
}

std::string semaphore_text(const halo_semaphore_t* semaphore) {
  return describe(semaphore, HALO_OBJECT_TYPE_SEMAPHORE);
}

// The submission |info| describes, on |device|, its semaphores retained.
std::unique_ptr<Submission> describe_submission(
    halo_device_t* device, const halo_queue_execute_info_t* info,
    std::shared_ptr<const RegistryValidation> settings) {
  auto submission = std::make_unique<Submission>();
  submission->settings = std::move(settings);
  halo_device_info_t device_info = {};
  device_info.struct_size = sizeof(device_info);
  halo_status_t status = call_plugin(
      "validation", vtable_of<halo_device_vtable_t>(device)->query_info, device,
      &device_info);
  halo_status_free(status);
  device_info.name[sizeof(device_info.name) - 1] = '\0';
  submission->device_name = device_info.name;
  for (size_t i = 0; i < info->command_buffer_count; ++i) {
    append_accesses(info->command_buffers[i], &submission->accesses);
  }
  submission->waits.reserve(info->wait_count);
  submission->signals.reserve(info->signal_count);
  for (size_t i = 0; i < info->wait_count; ++i) {
    submission->waits.push_back({info->wait_semaphores[i], info->wait_values[i]});
  }
  for (size_t i = 0; i < info->signal_count; ++i) {
    submission->signals.push_back(
        {info->signal_semaphores[i], info->signal_values[i]});
  }
  // Nothing below throws: the references are the tracker's from here.
  for (const auto* list : {&submission->waits, &submission->signals}) {
    for (const Timepoint& timepoint : *list) {
      retain_object(reinterpret_cast<halo_object_t*>(timepoint.semaphore));
    }
  }
  return submission;
}

// "" or why signal list of |info| names one semaphore twice.
std::string duplicate_signal(const halo_queue_execute_info_t* info,
                             const char* function) {
  for (size_t i = 0; i < info->signal_count; ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (info->signal_semaphores[i] != info->signal_semaphores[j]) continue;
      return format(
          "%s: info->signal_semaphores[%zu] and [%zu] are both %s (to %llu "
          "and %llu): a submission signals a semaphore at most once, and the "
          "second signal could never land",
          function, j, i, semaphore_text(info->signal_semaphores[i]).c_str(),
          static_cast<unsigned long long>(info->signal_values[j]),
          static_cast<unsigned long long>(info->signal_values[i]));
    }
  }
  return {};
}

// True when |signal| has been reached (by whoever signalled).
bool already_landed(const Payloads& payloads, const Timepoint& signal) {
  auto it = payloads.find(signal.semaphore);
  return it != payloads.end() &&
         (!it->second.has_value() || *it->second >= signal.value);
}

// The order the last submission of a graph has with the others.
struct OrderOfLast {
  std::vector<bool> after_it;   // Surely runs after it.
  std::vector<bool> before_it;  // It surely runs after them.
  std::vector<bool> known;      // What they run after is known.
};

// Why the signals (s, |mine|) of the last submission and (s, |theirs|) of
// |other| surely land out of value order, so that one of them fails the
// semaphore; NULL when they may land in order. Sure: equal values; or the
// submission with the higher value surely running first; or the one with
// the lower value surely not running after the other (all it runs after is
// known, and the other is not among it).
const char* signals_conflict(const OrderOfLast& order, size_t self,
                             uint64_t mine, size_t other, uint64_t theirs) {
  if (mine == theirs) return " too";
  if (mine < theirs) {
    if (order.before_it[other]) return ", and this submission runs after it";
    if (order.known[other] && !order.after_it[other]) {
      return ", and it does not run after this submission";
    }
    return nullptr;
  }
  if (order.after_it[other]) return ", and it runs after this submission";
  if (order.known[self] && !order.before_it[other]) {
    return ", and this submission does not run after it";
  }
  return nullptr;
}

// "" or why a signal of the last submission of |view| conflicts with a
// pending one on the same semaphore.
std::string conflicting_signal(const std::vector<const Submission*>& view,
                               const DependencyGraph& graph,
                               const Payloads& payloads, const char* function) {
  const size_t self = view.size() - 1;
  const Submission& mine = *view[self];
  std::unordered_map<const halo_semaphore_t*, size_t> signalled;
  for (size_t i = 0; i < mine.signals.size(); ++i) {
    signalled.emplace(mine.signals[i].semaphore, i);
  }
  const OrderOfLast order{graph.surely_after(self), graph.surely_before(self),
                          graph.order_known()};
  for (size_t other = 0; other < self; ++other) {
    for (const Timepoint& theirs : view[other]->signals) {
      auto it = signalled.find(theirs.semaphore);
      if (it == signalled.end() || already_landed(payloads, theirs)) continue;
      const size_t i = it->second;
      const Timepoint& signal = mine.signals[i];
      const char* why =
          signals_conflict(order, self, signal.value, other, theirs.value);
      if (why == nullptr) continue;
      return format(
          "%s: info->signal_values[%zu] = %llu on %s can never land in "
          "order: pending submission %s signals it to %llu%s, so one of the "
          "two signals would fail the semaphore. Nothing was submitted",
          function, i, static_cast<unsigned long long>(signal.value),
          semaphore_text(signal.semaphore).c_str(),
          name_of(*view[other]).c_str(),
          static_cast<unsigned long long>(theirs.value), why);
    }
  }
  return {};
}

// Under the lock: adds |submission| as pending unless it conflicts or closes
// a cycle. Returns the status code and report for a refusal, else OK and "".
std::pair<halo_status_code_t, std::string> admit_locked(
    Tracker& t, std::unique_ptr<Submission> submission, const char* function,
    SubmissionList* done) {
  Payloads payloads = prune_locked(t, done);
  for (const auto* list : {&submission->waits, &submission->signals}) {
    for (const Timepoint& timepoint : *list) {
      payload_of(&payloads, timepoint.semaphore);
    }
  }
  submission->serial = t.next_serial++;
  t.pending.push_back(std::move(submission));
  const std::vector<const Submission*> view = view_of(t.pending);
  const DependencyGraph graph(view, payloads);
  std::pair<halo_status_code_t, std::string> refusal{HALO_STATUS_OK, {}};
  std::string text = conflicting_signal(view, graph, payloads, function);
  if (!text.empty()) {
    refusal = {HALO_STATUS_INVALID_ARGUMENT, std::move(text)};
  } else if (text = graph.cycle_through(view.size() - 1); !text.empty()) {
    refusal = {HALO_STATUS_FAILED_PRECONDITION,
               format("%s: deadlock: %s. Nothing was submitted (validation "
                      "reports the cycle even though a host signal could "
                      "break it)",
                      function, text.c_str())};
  }
  if (refusal.first != HALO_STATUS_OK) {
    done->push_back(std::move(t.pending.back()));
    t.pending.pop_back();
  }
  return refusal;
}

// Forgets pending submission |serial| (the plugin refused it).
void withdraw(uint64_t serial) noexcept {
  SubmissionList done;
  {
    Tracker& t = tracker();
    std::lock_guard lock(t.mutex);
    auto it = std::find_if(t.pending.begin(), t.pending.end(),
                           [&](const auto& s) { return s->serial == serial; });
    if (it == t.pending.end()) return;
    try {
      done.push_back(std::move(*it));
    } catch (...) {
      return;  // Kept: pruned once its signals pass (or never, if none do).
    }
    t.pending.erase(it);
  }
  release_submissions(&done);
}

// Checks and records the submission; returns its serial (0 when untracked)
// or a refusal in |*out_status|.
uint64_t admit(halo_device_t* device, const halo_queue_execute_info_t* info,
               const char* function, halo_status_t* out_status) {
  std::shared_ptr<const RegistryValidation> settings = settings_of(device);
  // A submission that signals nothing is never waited for.
  if (settings == nullptr || info->signal_count == 0) return 0;
  std::string text = duplicate_signal(info, function);
  if (!text.empty()) {
    *out_status =
        report_status(*settings, HALO_STATUS_INVALID_ARGUMENT, text);
    return 0;
  }
  std::unique_ptr<Submission> submission =
      describe_submission(device, info, settings);
  SubmissionList done;
  std::pair<halo_status_code_t, std::string> refusal;
  uint64_t serial = 0;
  {
    Tracker& t = tracker();
    std::lock_guard lock(t.mutex);
    done.reserve(t.pending.size() + 1);
    refusal = admit_locked(t, std::move(submission), function, &done);
    if (refusal.first == HALO_STATUS_OK) serial = t.pending.back()->serial;
  }
  release_submissions(&done);
  if (refusal.first != HALO_STATUS_OK) {
    *out_status = report_status(*settings, refusal.first, refusal.second);
  }
  return serial;
}

}  // namespace

void prune_submissions() noexcept {
  SubmissionList done;
  try {
    Tracker& t = tracker();
    std::lock_guard lock(t.mutex);
    prune_locked(t, &done);
  } catch (...) {
    // Out of memory: pruned next time.
  }
  release_submissions(&done);
}

}  // namespace halo::loader::validation

namespace halo::loader::validation {

halo_status_t queue_execute(halo_device_t* device,
                            const halo_queue_execute_info_t* info,
                            const char* function) noexcept {
  halo_status_t refusal = nullptr;
  uint64_t serial = 0;
  try {
    serial = admit(device, info, function, &refusal);
  } catch (...) {
    serial = 0;  // Out of memory: submitted unchecked.
  }
  if (refusal != nullptr) return refusal;
  halo_status_t status =
      call_plugin(function, vtable_of<halo_device_vtable_t>(device)->queue_execute,
                  device, info);
  if (status != nullptr && serial != 0) withdraw(serial);
  return status;
}

}  // namespace halo::loader::validation

namespace halo::loader::validation {
namespace {

// "signals <semaphore> to 2 (now 1)" for the first signal of |submission|
// not yet reached.
std::string first_pending_signal(const Submission& submission,
                                 Payloads* payloads) {
  for (const Timepoint& signal : submission.signals) {
    std::optional<uint64_t> payload = payload_of(payloads, signal.semaphore);
    if (!payload.has_value() || *payload >= signal.value) continue;
    return format("signals %s to %llu (now %llu)",
                  semaphore_text(signal.semaphore).c_str(),
                  static_cast<unsigned long long>(signal.value),
                  static_cast<unsigned long long>(*payload));
  }
  return "signals nothing still pending";
}

// Under the lock: "" or the report for a pending submission that may run
// now and accesses [offset, end) of |buffer| in a way the host access
// conflicts with.
std::string hazard_locked(Tracker& t, SubmissionList* done,
                          const halo_buffer_t* buffer, uint64_t offset,
                          uint64_t end, bool host_writes) {
  Payloads payloads = prune_locked(t, done);
  const std::vector<const Submission*> view = view_of(t.pending);
  const DependencyGraph graph(view, payloads);
  std::vector<bool> waits_for_host;
  for (size_t i = 0; i < view.size(); ++i) {
    for (const BufferAccess& access : view[i]->accesses) {
      const bool overlaps = access.buffer == buffer && access.offset < end &&
                            offset < access.end;
      if (!overlaps || !(access.writes || host_writes)) continue;
      // Work that waits for the host cannot have started: the host may use
      // the range until it signals (buffer.h, "Host access").
      if (waits_for_host.empty()) waits_for_host = graph.waits_for_host();
      if (waits_for_host[i]) break;
      return format("is %s by pending submission %s, which %s",
                    access.writes ? "written" : "read",
                    name_of(*view[i]).c_str(),
                    first_pending_signal(*view[i], &payloads).c_str());
    }
  }
  return {};
}

}  // namespace

halo_status_t check_host_access(halo_buffer_t* buffer, uint64_t offset,
                                uint64_t length, bool host_writes,
                                const char* function) noexcept {
  try {
    std::shared_ptr<const RegistryValidation> settings = settings_of(buffer);
    if (settings == nullptr) return nullptr;
    const uint64_t end = range_end(buffer, offset, length);
    SubmissionList done;
    std::string hazard;
    {
      Tracker& t = tracker();
      std::lock_guard lock(t.mutex);
      hazard = hazard_locked(t, &done, buffer, offset, end, host_writes);
    }
    release_submissions(&done);
    if (hazard.empty()) return nullptr;
    return report_status(
        *settings, HALO_STATUS_FAILED_PRECONDITION,
        format("%s: range [%llu, %llu) of %s %s; wait for that value before "
               "the host %s the range. Nothing was done",
               function, static_cast<unsigned long long>(offset),
               static_cast<unsigned long long>(end),
               describe(buffer, HALO_OBJECT_TYPE_BUFFER).c_str(),
               hazard.c_str(), host_writes ? "writes" : "reads"));
  } catch (...) {
    return nullptr;  // Out of memory: unchecked.
  }
}

std::string unsignalled_wait(halo_semaphore_t* semaphore,
                             uint64_t value) noexcept {
  try {
    SubmissionList done;
    std::string text;
    {
      Tracker& t = tracker();
      std::lock_guard lock(t.mutex);
      Payloads payloads = prune_locked(t, &done);
      std::optional<uint64_t> payload = payload_of(&payloads, semaphore);
      bool signalled = !payload.has_value() || *payload >= value;
      std::string pending;
      for (const auto& submission : t.pending) {
        for (const Timepoint& signal : submission->signals) {
          if (signal.semaphore != semaphore) continue;
          signalled = signalled || signal.value >= value;
          pending += format("%s%llu by submission %s",
                            pending.empty() ? "" : ", ",
                            static_cast<unsigned long long>(signal.value),
                            name_of(*submission).c_str());
        }
      }
      if (!signalled) {
        text = format("%s waits for %llu but is at %llu, and no queued "
                      "submission signals it that far (pending signals on "
                      "it: %s)",
                      semaphore_text(semaphore).c_str(),
                      static_cast<unsigned long long>(value),
                      static_cast<unsigned long long>(*payload),
                      pending.empty() ? "none" : pending.c_str());
      }
    }
    release_submissions(&done);
    return text;
  } catch (...) {
    return {};
  }
}

}  // namespace halo::loader::validation
