#include "job_runner.hpp"

#include <unistd.h>

#include <cstring>
#include <deque>

#include "command_text.hpp"
#include "process_pool.hpp"
#include "progress.hpp"
#include "report_text.hpp"
#include "sanitizer_report.hpp"
#include "self_paths.hpp"
#include "verdict.hpp"

namespace halo::cts {
namespace {

// How the worker ended, in words ("died of signal 6 (Aborted)", "exited with
// code 1"), or "" for a clean exit. Under a sanitizer a fault or a leak
// becomes a report and an exit code rather than a signal, so the report's
// summary line (or UBSan's "runtime error" line, or the report's first
// line) is quoted.
std::string describe_end(const ProcessResult& process) {
  std::string text;
  if (process.signal != 0) {
    text = "died of signal " + std::to_string(process.signal) + " (" +
           strsignal(process.signal) + ")";
  } else if (process.exit_code != 0) {
    text = "exited with code " + std::to_string(process.exit_code);
  } else {
    return text;
  }
  // "ERROR: " last: a sanitizer that dies of a nested fault prints no
  // summary, only its first line ("ERROR: ThreadSanitizer: SEGV on …").
  for (const char* key : {"SUMMARY: ", "runtime error: ", "ERROR: "}) {
    const size_t at = process.output.rfind(key);
    if (at == std::string::npos) continue;
    const size_t line = process.output.rfind('\n', at);
    const size_t begin = line == std::string::npos ? 0 : line + 1;
    text += " (" + process.output.substr(begin, process.output.find('\n', at) - begin) + ")";
    break;
  }
  return text;
}

// Reads the verdict line that starts at |marker| in |process.output| into
// |o|, and removes the line from the output. A line that is not a verdict
// makes the case a FAIL that quotes it.
void read_verdict(size_t marker, ProcessResult* process, Outcome* o) {
  const size_t start = marker + std::strlen(kResultMarker);
  const size_t end = process->output.find('\n', start);
  const std::string line = process->output.substr(start, end - start);
  Verdict verdict;
  std::string error;
  if (parse_verdict(line, &verdict, &error)) {
    o->status = verdict.status;
    o->reason = verdict.reason;
    o->peer_used = verdict.peer;
  } else {
    o->status = "FAIL";
    o->reason = "malformed verdict: " + error + ": " + std::string(utf8_prefix(line, 200));
  }
  if (o->status == "SKIP" && o->reason.empty()) {
    o->status = "FAIL";
    o->reason = "skipped without a reason";
  }
  process->output.erase(marker, end == std::string::npos ? end : end - marker);
}

// Turns a finished worker into an outcome. A verdict never hides how the
// worker ended: a case that passed and then crashed or leaked on the way out
// is a CRASH, and a FAIL keeps its reason with the ending added.
Outcome read_outcome(const Job& job, const Options& options, ProcessResult&& process) {
  Outcome o;
  o.plugin = job.plugin_name;
  o.device = job.device;
  o.case_name = job.c->name;
  o.seed = job.seed;
  o.repetition = job.repetition;
  o.duration_s = process.duration_s;
  o.started_at = process.started_at;
  o.command = "halo-cts --plugin " + shell_quote(job.plugin_spec) +
              " --filter " + shell_quote(job.c->name) + " --case-seed " +
              std::to_string(job.seed) + " --timeout " +
              format_seconds(options.timeout_s) + target_arguments(options);
  if (process.timed_out) {
    o.status = "TIMEOUT";
    o.reason = "no verdict within " + format_seconds(options.timeout_s) +
               " s; the worker was killed";
    o.output = std::move(process.output);
    return o;
  }
  const std::string ending = describe_end(process);
  const size_t marker = process.output.rfind(kResultMarker);
  if (marker == std::string::npos) {
    o.status = "CRASH";
    o.reason = "the worker " + (ending.empty() ? "exited cleanly" : ending) +
               " without a verdict";
    o.output = std::move(process.output);
    return o;
  }
  read_verdict(marker, &process, &o);
  if (!ending.empty()) {
    if (o.status != "FAIL") {
      o.reason = "the case reported " + o.status + ", then the worker " + ending;
      o.status = "CRASH";
    } else {
      o.reason += "; then the worker " + ending;
    }
  }
  o.output = std::move(process.output);
  return o;
}

// As read_outcome; under --sanitize, a sanitizer's report anywhere in the
// worker's output fails the case, however the worker ended, and the reason
// quotes the report (the output keeps all of it). A TIMEOUT stays one.
Outcome to_outcome(const Job& job, const Options& options, ProcessResult&& process) {
  Outcome o = read_outcome(job, options, std::move(process));
  if (options.sanitize.empty() || o.status == "TIMEOUT") return o;
  const std::string report = sanitizer_report(o.output);
  if (report.empty()) return o;
  // The ending may quote the same summary (describe_end): once is enough.
  const size_t summary = report.find(" (SUMMARY: ");
  if (summary != std::string::npos) {
    const size_t repeated = o.reason.find(report.substr(summary));
    if (repeated != std::string::npos) o.reason.erase(repeated, report.size() - summary);
  }
  o.reason = report + (o.reason.empty() ? "" : "; " + o.reason);
  o.status = "FAIL";
  return o;
}

void apply_expectation(const std::vector<Expectation>& expectations,
                       const Options& options, Outcome* o) {
  const Expectation* entry = find_expectation(expectations, o->plugin, o->case_name);
  if (entry == nullptr) return;
  if (is_failure(*o)) {
    o->reason = "expected failure (" + entry->reason + "): " + o->status +
                ": " + o->reason;
    o->status = "XFAIL";
  } else if (o->status == "PASS" && options.verify_expectations) {
    o->status = "XPASS";
    o->reason = "expected to fail (" + entry->reason +
                ") but passed: remove the expectation";
  }
}

// A failure that a rerun may cure: not an expected one (XFAIL), nor a
// stale expectation (XPASS), which would only repeat itself.
bool may_rerun(const Outcome& o) {
  return o.status == "FAIL" || o.status == "CRASH" || o.status == "TIMEOUT";
}

// The worker command of |job|.
std::vector<std::string> worker_command(const Job& job, const Options& options,
                                        const std::string& self,
                                        const std::string& testdata) {
  std::vector<std::string> argv = {
      self, "--worker", "--plugin", job.plugin_spec, "--case", job.c->name,
      "--case-seed", std::to_string(job.seed), "--testdata", testdata,
      "--device", std::to_string(options.device), "--peer", job.peer,
      "--runner-pid", std::to_string(getpid())};
  if (!job.plugin_file.empty()) {
    argv.insert(argv.end(), {"--plugin-file", job.plugin_file});
  }
  if (!job.peer_file.empty()) {
    argv.insert(argv.end(), {"--peer-file", job.peer_file});
  }
  if (!options.manifest.empty()) {
    argv.insert(argv.end(), {"--manifest", options.manifest});
  }
  return argv;
}

// Each job's runs, one after another while it fails and may run again
// (--rerun-failures): reruns go first, so that a case is settled, and in
// the reports, soon after its first run.
class JobScheduler {
 public:
  JobScheduler(const std::vector<Job>& jobs, const Options& options,
               const std::vector<Expectation>& expectations)
      : jobs_(jobs),
        options_(options),
        expectations_(expectations),
        failed_(jobs.size()),
        self_(self_path()),
        testdata_(options.testdata_dir.empty() ? default_testdata_dir()
                                               : options.testdata_dir),
        progress_(jobs.size(), Progress::stderr_is_terminal()) {}

  void run(const std::function<void(const Outcome&)>& record) {
    progress_.draw();
    run_processes(
        [&](size_t* index, std::vector<std::string>* argv) { return next(index, argv); },
        options_.jobs, options_.timeout_s,
        [&](size_t index, ProcessResult&& process) {
          done(index, std::move(process), record);
        });
    progress_.clear();
  }

 private:
  bool next(size_t* out_index, std::vector<std::string>* out_argv) {
    if (!reruns_.empty()) {
      *out_index = reruns_.front();
      reruns_.pop_front();
      progress_.rerun_started();
    } else if (next_ < jobs_.size()) {
      *out_index = next_++;
    } else {
      return false;
    }
    *out_argv = worker_command(jobs_[*out_index], options_, self_, testdata_);
    return true;
  }

  void done(size_t index, ProcessResult&& process,
            const std::function<void(const Outcome&)>& record) {
    Outcome o = to_outcome(jobs_[index], options_, std::move(process));
    apply_expectation(expectations_, options_, &o);
    std::vector<FailedAttempt>& failed = failed_[index];
    if (may_rerun(o) && failed.size() < static_cast<size_t>(options_.rerun_failures)) {
      failed.push_back({o.status, o.reason, std::move(o.output), o.duration_s,
                        o.started_at});
      reruns_.push_back(index);
      progress_.rerun_queued();
      progress_.clear();
      progress_.draw();
      return;
    }
    o.failed_attempts = std::move(failed);
    record(o);
    progress_.clear();
    print_outcome(o);
    progress_.case_finished(is_failure(o));
    progress_.draw();
  }

  const std::vector<Job>& jobs_;
  const Options& options_;
  const std::vector<Expectation>& expectations_;
  // The failed runs so far of each job that is to run again.
  std::vector<std::vector<FailedAttempt>> failed_;
  std::deque<size_t> reruns_;
  size_t next_ = 0;
  const std::string self_;
  const std::string testdata_;
  Progress progress_;
};

}  // namespace

void run_jobs(const std::vector<Job>& jobs, const Options& options,
              const std::vector<Expectation>& expectations,
              const std::function<void(const Outcome&)>& record) {
  JobScheduler(jobs, options, expectations).run(record);
}

}  // namespace halo::cts
