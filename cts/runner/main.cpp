// halo-cts: runs the conformance suite against plugins, each case in its own
// worker process (see cts/README.md).
#include <fnmatch.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <csignal>
#include <cstdio>
#include <functional>

#include "../framework/cts.hpp"
#include "command_text.hpp"
#include "expectations.hpp"
#include "job_runner.hpp"
#include "manifest_search.hpp"
#include "options.hpp"
#include "peer_choice.hpp"
#include "report.hpp"
#include "sanitizer.hpp"
#include "shard.hpp"
#include "worker.hpp"

namespace halo::cts {
namespace {

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

bool matches_any(const std::vector<std::string>& globs, const char* name) {
  for (const auto& glob : globs) {
    if (fnmatch(glob.c_str(), name, 0) == 0) return true;
  }
  return false;
}

bool matches_filters(const Options& options, const char* name) {
  if (matches_any(options.skips, name)) return false;
  return options.filters.empty() || matches_any(options.filters, name);
}

// A plugin to certify: how it was named, its name, the device under test
// ("name (driver version)"), the manifest certified with it (or why there
// is none) and the peer its interop cases pair with.
struct Target {
  std::string spec;
  std::string name;
  std::string file;  // Where the plugin loaded from: its manifest or library.
  std::string peer_file;  // Where |peer| loaded from, when one is named.
  std::string device;
  ManifestChoice manifest;
  PeerChoice peer;
};

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

// The file |record|'s plugin loaded from: its manifest, or its library
// when it was named by that.
std::string plugin_file(const halo_plugin_record_t& record) {
  return record.manifest_path[0] != '\0' ? record.manifest_path : record.library_path;
}

// The file the loader's discovery loads the plugin called |name| from, or
// "" when it loads none by that name.
std::string discovered_file(const std::string& name) {
  halo_registry_t* registry = nullptr;
  halo_status_t status = halo_registry_create(nullptr, &registry);
  if (status != nullptr) {
    halo_status_free(status);
    return {};
  }
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  const std::string file =
      find_plugin_record(registry, name, &record) ? plugin_file(record) : "";
  halo_registry_release(registry);
  return file;
}

// Opens |spec| and fills |target|, or returns false with why it cannot be
// tested.
bool resolve_target(const std::string& spec, const Options& options,
                    Target* target, std::string* error) {
  halo_registry_t* registry = nullptr;
  halo_driver_t* driver = nullptr;
  std::string name;
  bool ok = open_plugin(spec, "", 0, &registry, &driver, &name, error);
  if (ok) {
    target->spec = spec;
    target->name = name;
    ok = describe_device(driver, options, target, error);
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    if (ok && find_plugin_record(registry, name, &record)) {
      target->manifest = choose_manifest(spec, options.manifest, record);
      target->file = is_plugin_path(spec) ? spec : plugin_file(record);
    }
    halo_driver_release(driver);
    halo_registry_release(registry);
  }
  return ok;
}

// Says which manifest and peer |target| is certified with.
void print_target(const Target& target, const Options& options) {
  std::printf("halo-cts: plugin %s, device %zu: %s\n", target.name.c_str(),
              options.device, target.device.c_str());
  if (!target.manifest.path.empty()) {
    std::printf("halo-cts: plugin %s: manifest %s\n", target.name.c_str(),
                target.manifest.path.c_str());
  } else if (!target.manifest.missing_reason.empty()) {
    std::printf("halo-cts: plugin %s: %s\n", target.name.c_str(),
                target.manifest.missing_reason.c_str());
  }
  if (!target.peer.note.empty()) {
    std::printf("halo-cts: plugin %s: %s\n", target.name.c_str(), target.peer.note.c_str());
  }
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

// Returns "" when the plugin at |path| loads, or why not.
std::string load_problem(const std::string& path) {
  halo_registry_t* registry = nullptr;
  halo_driver_t* driver = nullptr;
  std::string name, error;
  if (!open_plugin(path, "", 0, &registry, &driver, &name, &error)) return error;
  halo_driver_release(driver);
  halo_registry_release(registry);
  return {};
}

// Returns "" when the peer that |options| name can pair with the plugins, or
// why not: a peer named by name must be loaded, one named by its path must
// load.
std::string peer_problem(const Options& options, const std::vector<std::string>& loaded) {
  if (options.peer.empty()) return {};
  if (!is_plugin_path(options.peer)) {
    if (std::find(loaded.begin(), loaded.end(), options.peer) != loaded.end()) return {};
    return "it is the peer (--peer) but is not loaded (halo-info says why)";
  }
  const std::string problem = load_problem(options.peer);
  return problem.empty() ? problem : "it is the peer (--peer) but does not load: " + problem;
}

// A reference peer that does not load is a broken installation of halo-cts:
// a failure, not a reason to skip the interop cases.
bool reference_peer_loads(const Target& target, const Options& options,
                          const std::function<void(const Outcome&)>& on_failure) {
  if (target.peer.peer.empty() || target.peer.peer == options.peer) return true;
  const std::string problem = load_problem(target.peer.peer);
  if (problem.empty()) return true;
  on_failure(load_failure(target.peer.peer, options,
                          "it is the reference peer but does not load: " + problem,
                          plugins_command(options)));
  return false;
}

// The plugins to run: those named, or every loaded one; each with its device
// under test, manifest and, when |needs_peer| (an interop case is selected),
// peer. Returns false when one of them cannot be tested, after passing a
// "plugin.load" failure for each such plugin to |on_failure|.
bool resolve_plugins(const Options& options, bool needs_peer, std::vector<Target>* out,
                     const std::function<void(const Outcome&)>& on_failure) {
  std::vector<std::string> loaded;
  if (!loaded_plugin_names(&loaded)) return false;
  const std::string problem = peer_problem(options, loaded);
  if (!problem.empty()) {
    on_failure(load_failure(options.peer, options, problem, plugins_command(options)));
    return false;
  }
  const std::vector<std::string>& specs =
      options.plugins.empty() ? loaded : options.plugins;
  bool ok = true;
  for (const auto& spec : specs) {
    Target target;
    std::string error;
    if (resolve_target(spec, options, &target, &error)) {
      target.peer = needs_peer ? choose_peer(options, loaded, target.name)
                               : PeerChoice{options.peer, ""};
      const std::string& peer = target.peer.peer;
      if (needs_peer && !peer.empty()) {
        target.peer_file = is_plugin_path(peer) ? peer : discovered_file(peer);
      }
      if (!reference_peer_loads(target, options, on_failure)) {
        ok = false;
        continue;
      }
      print_target(target, options);
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

// The cases that match the filters, in name order.
std::vector<const Case*> matching_cases(const Options& options) {
  std::vector<const Case*> cases;
  for (const Case& c : all_cases()) {
    if (matches_filters(options, c.name)) cases.push_back(&c);
  }
  return cases;
}

int list_cases(const Options& options) {
  for (const Case* c : take_shard(matching_cases(options), options.shard)) {
    std::printf("%-55s %s\n", c->name, c->description);
  }
  return 0;
}

// The filters and skips as given, for messages ("--filter 'a.*' --skip
// a.b").
std::string filter_arguments(const Options& options) {
  std::string text;
  for (const auto& glob : options.filters) {
    text += (text.empty() ? "--filter " : " --filter ") + shell_quote(glob);
  }
  for (const auto& glob : options.skips) {
    text += (text.empty() ? "--skip " : " --skip ") + shell_quote(glob);
  }
  return text;
}

std::string host_name() {
  char name[256] = {};
  if (gethostname(name, sizeof(name) - 1) != 0) return "";
  return name;
}

// |argv| as one line a shell would split back into it.
std::string command_line(int argc, char** argv) {
  std::string line = "halo-cts";
  for (int i = 1; i < argc; ++i) line += " " + shell_quote(argv[i]);
  return line;
}

// A failing case that stands for a run that could test nothing, so that
// its reports say why it failed, not only its exit code.
Outcome run_failure(const char* name, const std::string& reason,
                    const Options& options) {
  Outcome o;
  o.case_name = name;
  o.status = "FAIL";
  o.reason = reason;
  o.seed = options.seed;
  o.command = plugins_command(options);
  const std::string filters = filter_arguments(options);
  if (!filters.empty()) o.command += " " + filters;
  o.started_at = std::chrono::system_clock::now();
  return o;
}

RunInfo run_info(const Options& options, const std::string& command) {
  RunInfo info;
  info.halo_version = HALO_CTS_HALO_VERSION;
  info.peer = options.peer;
  info.host = host_name();
  info.command = command;
  info.plugins = options.plugins;
  info.filters = options.filters;
  info.skips = options.skips;
  info.device = options.device;
  info.seed = options.seed;
  info.case_seed = options.has_case_seed ? std::to_string(options.case_seed) : "";
  info.repeat = options.repeat;
  info.shard = options.sharded ? options.shard.text() : "";
  info.rerun_failures = options.rerun_failures;
  info.timeout_s = options.timeout_s;
  info.started_at = std::chrono::system_clock::now();
  return info;
}

std::vector<Job> make_jobs(const std::vector<Target>& plugins,
                           const std::vector<const Case*>& cases,
                           const Options& options) {
  std::vector<Job> jobs;
  for (const Target& target : plugins) {
    for (int repetition = 0; repetition < options.repeat; ++repetition) {
      for (const Case* c : cases) {
        uint64_t seed = options.has_case_seed
                            ? options.case_seed
                            : case_seed(options.seed, c->name, repetition);
        jobs.push_back({target.spec, target.name, target.file, target.device,
                        target.peer.peer, target.peer_file, c, repetition, seed});
      }
    }
  }
  return jobs;
}

// |command| is the runner's own command line, for the reports.
int run_suite(const Options& options, const std::string& command) {
  std::vector<Expectation> expectations;
  std::string error;
  if (!options.expectations_path.empty() &&
      !read_expectations(options.expectations_path, &expectations, &error)) {
    std::fprintf(stderr, "halo-cts: %s\n", error.c_str());
    return 2;
  }
  Reports reports(options.json_path, options.junit_path, run_info(options, command));
  reports.start();
  Counts counts;
  std::vector<std::string> flaky;
  const auto record = [&](const Outcome& o) {
    counts.add(o);
    if (is_flaky(o)) flaky.push_back(o.plugin + " " + o.case_name);
    reports.add(o);
  };
  const auto finish = [&] {
    std::vector<std::string> broken = reports.failed_paths();
    counts.failed += broken.size();
    reports.finish(counts, counts.failed == 0 ? 0 : 1);
    if (broken.empty() && !reports.failed_paths().empty()) {
      broken = reports.failed_paths();  // The "end" record did not fit.
      counts.failed += broken.size();
    }
    for (const std::string& path : broken) {
      std::fprintf(stderr, "halo-cts: cannot write %s\n", path.c_str());
    }
    if (!flaky.empty()) {
      std::string names;
      for (const std::string& name : flaky) names += (names.empty() ? "" : ", ") + name;
      std::printf("halo-cts: %zu flaky (failed, then passed when run again): %s\n",
                  flaky.size(), names.c_str());
    }
    std::printf("%zu passed, %zu failed, %zu skipped\n", counts.passed,
                counts.failed, counts.skipped);
    return counts.failed == 0 ? 0 : 1;
  };
  const std::vector<const Case*> matching = matching_cases(options);
  if (matching.empty()) {
    // A misspelt filter must not pass as a clean run of nothing.
    const std::string reason = "no case matches " + filter_arguments(options) +
                               ", so nothing was tested (halo-cts --list names "
                               "every case)";
    std::fprintf(stderr, "halo-cts: %s\n", reason.c_str());
    record(run_failure("run.filter", reason, options));
    return finish();
  }
  const std::vector<const Case*> cases = take_shard(matching, options.shard);
  const bool needs_peer = std::any_of(cases.begin(), cases.end(), [](const Case* c) {
    return (c->needs & kNeedSecondPlugin) != 0;
  });
  std::vector<Target> plugins;
  if (!resolve_plugins(options, needs_peer, &plugins, record)) {
    counts.failed = std::max<size_t>(counts.failed, 1);
    return finish();
  }
  if (plugins.empty()) {
    // Nothing to certify is a failure, not a clean pass of zero cases.
    const std::string reason =
        "no plugin was loaded, so nothing was tested; name one with --plugin "
        "NAME|PATH (halo-info lists what was found and why each plugin was "
        "skipped)";
    std::fprintf(stderr, "halo-cts: %s\n", reason.c_str());
    record(run_failure("run.plugins", reason, options));
    return finish();
  }
  if (options.sharded) {
    // An empty shard is no error: with more shards than cases, some get none.
    std::printf("halo-cts: shard %s: %zu of the %zu selected cases\n",
                options.shard.text().c_str(), cases.size(), matching.size());
  }
  const std::vector<Job> jobs = make_jobs(plugins, cases, options);
  run_jobs(jobs, options, expectations, record);
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
  app.add_option("--skip", options.skips,
                 "glob on case names not to run, whatever --filter selects "
                 "(repeatable)");
  app.add_flag("--list", options.list, "list the cases and exit");
  app.add_option("--jobs,-j", options.jobs, "cases run at once")->check(CLI::PositiveNumber);
  app.add_option("--timeout", options.timeout_s, "seconds per case before a hard kill")
      ->check(CLI::PositiveNumber);
  app.add_option("--repeat", options.repeat, "run every case N times (soak)")
      ->check(CLI::PositiveNumber);
  app.add_option("--seed", options.seed, "global seed; each case's seed derives from it");
  auto* case_seed = app.add_option("--case-seed", options.case_seed,
                                   "use exactly this seed for every case (reproduction)");
  app.add_option("--json", options.json_path,
                 "write JSON lines as cases finish (cts/report_schema.md)");
  app.add_option("--junit", options.junit_path,
                 "write JUnit XML as cases finish (cts/report_schema.md)");
  app.add_option("--expectations", options.expectations_path,
                 "expected failures: lines of 'PLUGIN_GLOB CASE_GLOB REASON'");
  app.add_flag("--verify-expectations", options.verify_expectations,
               "fail expected failures that now pass");
  app.add_option("--testdata", options.testdata_dir, "folder of test kernels");
  std::string shard;
  auto* shard_option = app.add_option(
      "--shard", shard,
      "run only shard I of N (I from 0): the selected cases dealt out in turn");
  app.add_option("--rerun-failures", options.rerun_failures,
                 "run a failing case up to N more times; one that then passes "
                 "is flaky and does not fail the run")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--device", options.device,
                 "index of the device under test among the plugin's devices "
                 "(default 0)");
  app.add_option("--peer", options.peer,
                 "the plugin (name or path) whose device the interop cases pair "
                 "with (default: the first other loaded plugin with one, else "
                 "the reference peer)");
  app.add_option("--manifest", options.manifest,
                 "the manifest certified with the --plugin library (default: "
                 "the one beside it)");
  app.add_option("--sanitize", options.sanitize,
                 "run the workers under this sanitizer's runtime: a report fails "
                 "the case")
      ->check(CLI::IsMember({"address", "thread"}));
  app.add_option("--sanitizer-runtime", options.sanitizer_runtime,
                 "the sanitizer runtime --sanitize preloads (default: the one of "
                 "the compiler that built halo-cts)");
  auto* worker = app.add_flag("--worker", options.worker, "run one case (internal)");
  app.add_option("--case", options.worker_case, "the case a worker runs (internal)")
      ->needs(worker);
  app.add_option("--plugin-file", options.worker_plugin_file,
                 "the file the runner loaded the plugin from (internal)")
      ->needs(worker);
  app.add_option("--peer-file", options.worker_peer_file,
                 "the file the runner found the peer in (internal)")
      ->needs(worker);
  app.add_option("--runner-pid", options.runner_pid,
                 "the runner that started this worker (internal)")
      ->needs(worker);
  worker->group("");
  app.get_option("--case")->group("");
  app.get_option("--plugin-file")->group("");
  app.get_option("--peer-file")->group("");
  app.get_option("--runner-pid")->group("");
  CLI11_PARSE(app, argc, argv);
  options.has_case_seed = case_seed->count() > 0;
  if (shard_option->count() > 0) {
    std::string error;
    if (!halo::cts::parse_shard(shard, &options.shard, &error)) {
      std::fprintf(stderr, "halo-cts: --shard '%s': %s\n", shard.c_str(), error.c_str());
      return 2;
    }
    options.sharded = true;
  }
  if (options.worker) {
    if (options.plugins.size() != 1) {
      std::fprintf(stderr, "halo-cts: --worker needs exactly one --plugin\n");
      return 2;
    }
    options.worker_plugin = options.plugins[0];
    return halo::cts::run_worker(options);
  }
  if (options.list) return halo::cts::list_cases(options);
  if (!options.manifest.empty() && options.plugins.size() != 1) {
    std::fprintf(stderr, "halo-cts: --manifest needs exactly one --plugin\n");
    return 2;
  }
  if (!options.sanitize.empty()) {
    const std::string error = halo::cts::enter_sanitizer(options, argv);
    if (!error.empty()) {
      std::fprintf(stderr, "halo-cts: %s\n", error.c_str());
      return 2;
    }
  }
  std::signal(SIGPIPE, SIG_IGN);
  return halo::cts::run_suite(options, halo::cts::command_line(argc, argv));
}
