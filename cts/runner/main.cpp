// halo-cts: runs the conformance suite against plugins, each case in its own
// worker process (see cts/README.md).
#include <fnmatch.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <climits>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>

#include "../framework/cts.hpp"
#include "expectations.hpp"
#include "options.hpp"
#include "process_pool.hpp"
#include "report.hpp"
#include "verdict.hpp"
#include "worker.hpp"

namespace halo::cts {
namespace {

std::string self_path() {
  char path[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
  if (n <= 0) return "halo-cts";
  path[n] = '\0';
  return path;
}

std::string default_testdata_dir() {
  namespace fs = std::filesystem;
  return (fs::path(self_path()).parent_path() / ".." / "share" / "halo" /
          "cts" / "testdata")
      .lexically_normal()
      .string();
}

// A per-case seed: the global seed, the case and the repetition, mixed
// (splitmix64 over FNV-1a) so neighbouring runs differ in every bit.
uint64_t case_seed(uint64_t seed, const std::string& name, int repetition) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : name) hash = (hash ^ c) * 1099511628211ull;
  uint64_t z = seed ^ hash ^ (static_cast<uint64_t>(repetition) * 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

bool matches_filters(const Options& options, const char* name) {
  if (options.filters.empty()) return true;
  for (const auto& glob : options.filters) {
    if (fnmatch(glob.c_str(), name, 0) == 0) return true;
  }
  return false;
}

std::string shell_quote(const std::string& text) {
  if (text.find_first_of(" \t'\"\\$*?[]&;|<>()") == std::string::npos &&
      !text.empty()) {
    return text;
  }
  std::string quoted = "'";
  for (char c : text) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return quoted + "'";
}

// A plugin to certify: how it was named, its name, and the device under
// test ("name (driver version)").
struct Target {
  std::string spec;
  std::string name;
  std::string device;
};

struct Job {
  std::string plugin_spec;
  std::string plugin_name;
  std::string device;
  const Case* c;
  int repetition;
  uint64_t seed;
};

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

// |seconds| as the shortest decimal that reads back as the same double
// ("0.25", "60"), so a printed command reproduces the run exactly.
std::string format_seconds(double seconds) {
  char text[64];
  const auto result = std::to_chars(text, text + sizeof(text), seconds);
  return std::string(text, result.ptr);
}

// The --device and --peer arguments that reproduce |options|' choice ("" for
// the defaults).
std::string target_arguments(const Options& options) {
  std::string text;
  if (options.device != 0) text += " --device " + std::to_string(options.device);
  if (!options.peer.empty()) text += " --peer " + shell_quote(options.peer);
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
  } else {
    o->status = "FAIL";
    o->reason = "malformed verdict: " + error + ": " + line.substr(0, 200);
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
Outcome to_outcome(const Job& job, const Options& options, ProcessResult&& process) {
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

// Describes the device under test of |driver| into |target|, or returns
// false with the reason: a plugin with no device (or fewer than --device
// asks for) cannot be certified, and saying so once beats failing every case.
bool describe_device(halo_driver_t* driver, const Options& options,
                     Target* target, std::string* error) {
  size_t count = 0;
  halo_status_t status = halo_driver_device_count(driver, &count);
  if (status != nullptr) {
    *error = "halo_driver_device_count returned " + take_status_text(status);
    return false;
  }
  if (options.device >= count) {
    halo_driver_info_t info = {};
    info.struct_size = sizeof(info);
    halo_status_free(halo_driver_query_info(driver, &info));
    *error = count == 0 ? "it offers no devices (" + std::string(info.description) + ")"
                        : "--device " + std::to_string(options.device) +
                              " is out of range: it offers " +
                              std::to_string(count) + " device(s)";
    return false;
  }
  halo_device_info_t info = {};
  info.struct_size = sizeof(info);
  status = halo_driver_query_device_info(driver, options.device, &info);
  if (status != nullptr) {
    *error = "halo_driver_query_device_info returned " + take_status_text(status);
    return false;
  }
  target->device = std::string(info.name) + " (" + info.driver_version + ")";
  return true;
}

// Opens |spec| and fills |target|, or returns false with why it cannot be
// tested.
bool resolve_target(const std::string& spec, const Options& options,
                    Target* target, std::string* error) {
  halo_registry_t* registry = nullptr;
  halo_driver_t* driver = nullptr;
  std::string name;
  bool ok = open_plugin(spec, &registry, &driver, &name, error);
  if (ok) {
    target->spec = spec;
    target->name = name;
    ok = describe_device(driver, options, target, error);
    halo_driver_release(driver);
    halo_registry_release(registry);
  }
  return ok;
}

// "halo-cts" with |options|' plugins, device and peer.
std::string plugins_command(const Options& options) {
  std::string command = "halo-cts";
  for (const auto& spec : options.plugins) command += " --plugin " + shell_quote(spec);
  return command + target_arguments(options);
}

// The failing case "plugin.load" that stands for a plugin the run cannot
// test, so that the reports of a run that tested nothing say why it failed.
// |command| repeats the failure.
Outcome load_failure(const std::string& spec, const Options& options,
                     const std::string& reason, const std::string& command) {
  std::fprintf(stderr, "halo-cts: cannot test plugin %s: %s\n", spec.c_str(),
               reason.c_str());
  Outcome o;
  o.plugin = spec;
  o.case_name = "plugin.load";
  o.status = "FAIL";
  o.reason = reason;
  o.seed = options.seed;
  o.command = command;
  o.started_at = std::chrono::system_clock::now();
  return o;
}

// The names of every loaded plugin, for a run that names none.
bool loaded_plugin_names(std::vector<std::string>* out) {
  halo_registry_t* registry = nullptr;
  halo_status_t status = halo_registry_create(nullptr, &registry);
  if (status != nullptr) {
    std::fprintf(stderr, "halo-cts: %s\n", take_status_text(status).c_str());
    return false;
  }
  size_t count = 0;
  halo_status_free(halo_registry_driver_count(registry, &count));
  for (size_t i = 0; i < count; ++i) {
    halo_driver_t* driver = nullptr;
    halo_status_free(halo_registry_driver(registry, i, &driver));
    halo_driver_info_t info = {};
    info.struct_size = sizeof(info);
    halo_status_free(halo_driver_query_info(driver, &info));
    out->push_back(info.name);
    halo_driver_release(driver);
  }
  halo_registry_release(registry);
  return true;
}

// The plugins to run: those named, or every loaded one; each with its device
// under test. Returns false when one of them cannot be tested, after
// passing a "plugin.load" failure for each such plugin to |on_failure|.
bool resolve_plugins(const Options& options, std::vector<Target>* out,
                     const std::function<void(const Outcome&)>& on_failure) {
  std::vector<std::string> loaded;
  if (!loaded_plugin_names(&loaded)) return false;
  if (!options.peer.empty() &&
      std::find(loaded.begin(), loaded.end(), options.peer) == loaded.end()) {
    on_failure(load_failure(options.peer, options,
                            "it is the peer (--peer) but is not loaded "
                            "(halo-info says why)",
                            plugins_command(options)));
    return false;
  }
  const std::vector<std::string>& specs =
      options.plugins.empty() ? loaded : options.plugins;
  bool ok = true;
  for (const auto& spec : specs) {
    Target target;
    std::string error;
    if (resolve_target(spec, options, &target, &error)) {
      std::printf("halo-cts: plugin %s, device %zu: %s\n", target.name.c_str(),
                  options.device, target.device.c_str());
      out->push_back(std::move(target));
    } else {
      on_failure(load_failure(spec, options, error,
                              "halo-cts --plugin " + shell_quote(spec) +
                                  target_arguments(options)));
      ok = false;
    }
  }
  std::fflush(stdout);
  return ok;
}

int list_cases(const Options& options) {
  for (const Case& c : all_cases()) {
    if (matches_filters(options, c.name)) {
      std::printf("%-55s %s\n", c.name, c.description);
    }
  }
  return 0;
}

// The filters as given, for messages ("--filter 'a.*' --filter 'b'").
std::string filter_arguments(const Options& options) {
  std::string text;
  for (const auto& glob : options.filters) {
    text += (text.empty() ? "--filter " : " --filter ") + shell_quote(glob);
  }
  return text;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

// The counts of the run's last line.
struct Counts {
  size_t passed = 0, failed = 0, skipped = 0;

  void add(const Outcome& o) {
    failed += is_failure(o);
    skipped += is_skip(o);
    passed += o.status == "PASS";
  }
};

int run_suite(const Options& options) {
  std::vector<Expectation> expectations;
  std::string error;
  if (!options.expectations_path.empty() &&
      !read_expectations(options.expectations_path, &expectations, &error)) {
    std::fprintf(stderr, "halo-cts: %s\n", error.c_str());
    return 2;
  }
  Reports reports(options.json_path, options.junit_path, {options.peer, host_name()});
  reports.start();
  Counts counts;
  const auto record = [&](const Outcome& o) {
    counts.add(o);
    reports.add(o);
  };
  const auto finish = [&] {
    for (const std::string& path : reports.failed_paths()) {
      std::fprintf(stderr, "halo-cts: cannot write %s\n", path.c_str());
      ++counts.failed;
    }
    std::printf("%zu passed, %zu failed, %zu skipped\n", counts.passed,
                counts.failed, counts.skipped);
    return counts.failed == 0 ? 0 : 1;
  };
  std::vector<const Case*> cases;
  for (const Case& c : all_cases()) {
    if (matches_filters(options, c.name)) cases.push_back(&c);
  }
  if (cases.empty()) {
    // A misspelt filter must not pass as a clean run of nothing.
    std::fprintf(stderr,
                 "halo-cts: no case matches %s, so nothing was tested "
                 "(halo-cts --list names every case)\n",
                 filter_arguments(options).c_str());
    counts.failed = 1;
    return finish();
  }
  std::vector<Target> plugins;
  if (!resolve_plugins(options, &plugins, record)) {
    counts.failed = std::max<size_t>(counts.failed, 1);
    return finish();
  }
  if (plugins.empty()) {
    // Nothing to certify is a failure, not a clean pass of zero cases.
    std::fprintf(stderr,
                 "halo-cts: no plugin was loaded, so nothing was tested; name "
                 "one with --plugin NAME|PATH (halo-info lists what was found "
                 "and why each plugin was skipped)\n");
    counts.failed = 1;
    return finish();
  }
  std::vector<Job> jobs;
  for (const Target& target : plugins) {
    for (int repetition = 0; repetition < options.repeat; ++repetition) {
      for (const Case* c : cases) {
        uint64_t seed = options.has_case_seed
                            ? options.case_seed
                            : case_seed(options.seed, c->name, repetition);
        jobs.push_back({target.spec, target.name, target.device, c, repetition, seed});
      }
    }
  }
  const std::string self = self_path();
  const std::string testdata =
      options.testdata_dir.empty() ? default_testdata_dir() : options.testdata_dir;
  std::vector<std::vector<std::string>> commands;
  for (const Job& job : jobs) {
    commands.push_back({self, "--worker", "--plugin", job.plugin_spec, "--case",
                        job.c->name, "--case-seed", std::to_string(job.seed),
                        "--testdata", testdata, "--device",
                        std::to_string(options.device), "--peer", options.peer,
                        "--runner-pid", std::to_string(getpid())});
  }
  run_processes(commands, options.jobs, options.timeout_s,
                [&](size_t index, ProcessResult&& process) {
                  Outcome o = to_outcome(jobs[index], options, std::move(process));
                  apply_expectation(expectations, options, &o);
                  // Reports first: whoever sees the line on stdout can rely
                  // on finding the case in them.
                  record(o);
                  print_outcome(o);
                });
  return finish();
}

}  // namespace
}  // namespace halo::cts

int main(int argc, char** argv) {
  halo::cts::Options options;
  CLI::App app{"halo-cts: the halo conformance suite"};
  app.add_option("--plugin", options.plugins,
                 "plugin name or path to a manifest/.so (repeatable; default: "
                 "every loaded plugin)");
  app.add_option("--filter", options.filters, "glob on case names (repeatable)");
  app.add_flag("--list", options.list, "list the cases and exit");
  app.add_option("--jobs,-j", options.jobs, "cases run at once")->check(CLI::PositiveNumber);
  app.add_option("--timeout", options.timeout_s, "seconds per case before a hard kill")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeat", options.repeat, "run every case N times (soak)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", options.seed, "global seed; each case's seed derives from it");
  auto* case_seed = app.add_option("--case-seed", options.case_seed,
                                   "use exactly this seed for every case (reproduction)");
  app.add_option("--json", options.json_path, "write one JSON line per case run");
  app.add_option("--junit", options.junit_path, "write JUnit XML");
  app.add_option("--expectations", options.expectations_path,
                 "expected failures: lines of 'PLUGIN_GLOB CASE_GLOB REASON'");
  app.add_flag("--verify-expectations", options.verify_expectations,
               "fail expected failures that now pass");
  app.add_option("--testdata", options.testdata_dir, "folder of test kernels");
  app.add_option("--device", options.device,
                 "index of the device under test among the plugin's devices "
                 "(default 0)");
  app.add_option("--peer", options.peer,
                 "the plugin whose device the interop cases pair with "
                 "(default: the first other loaded plugin with one)");
  auto* worker = app.add_flag("--worker", options.worker, "run one case (internal)");
  app.add_option("--case", options.worker_case, "the case a worker runs (internal)")
      ->needs(worker);
  app.add_option("--runner-pid", options.runner_pid,
                 "the runner that started this worker (internal)")
      ->needs(worker);
  worker->group("");
  app.get_option("--case")->group("");
  app.get_option("--runner-pid")->group("");
  CLI11_PARSE(app, argc, argv);
  options.has_case_seed = case_seed->count() > 0;
  if (options.worker) {
    if (options.plugins.size() != 1) {
      std::fprintf(stderr, "halo-cts: --worker needs exactly one --plugin\n");
      return 2;
    }
    options.worker_plugin = options.plugins[0];
    return halo::cts::run_worker(options);
  }
  if (options.list) return halo::cts::list_cases(options);
  std::signal(SIGPIPE, SIG_IGN);
  return halo::cts::run_suite(options);
}
