#include "worker.hpp"

#include <fnmatch.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <csignal>
#include <cstdio>
#include <vector>

#include "../framework/counting_allocator.hpp"
#include "../framework/cts.hpp"
#include "manifest_search.hpp"

namespace halo::cts {
namespace {

void print_verdict(const char* status, const std::string& reason,
                   const std::string& peer = {}) {
  const std::string verdict = format_verdict(status, reason, peer);
  std::fflush(stderr);
  std::printf("\n%s%s\n", kResultMarker, verdict.c_str());
  std::fflush(stdout);
}

const Case* find_case(const std::string& name) {
  for (const Case& c : all_cases()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// The reason the plugin at |path| was skipped, from the registry's records.
std::string skip_reason_for_path(halo_registry_t* registry) {
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  if (halo_registry_plugin_record(registry, 0, &record) != nullptr) {
    return "the plugin was not considered";
  }
  return std::string("the plugin was skipped: ") +
         halo_status_code_name(record.skip_code) + ": " + record.skip_reason;
}

// Ties this worker's life to its runner's. The runner is what kills a hung
// case, and a worker runs in a process group of its own, which a signal to
// the runner's group does not reach: without this, a runner killed midway
// (a cancelled CI job) would leave a hung case running forever.
void die_with_runner(int64_t runner_pid) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  // A runner that died before the line above is no longer our parent.
  if (runner_pid != 0 && getppid() != runner_pid) _exit(1);
}

// The name the plugin at record |index| of |registry| was loaded under, or
// |fallback| when it was not loaded (the skip reasons then name the path).
std::string loaded_name(halo_registry_t* registry, size_t index,
                        const std::string& fallback) {
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  halo_status_t status = halo_registry_plugin_record(registry, index, &record);
  if (status != nullptr) {
    halo_status_free(status);
    return fallback;
  }
  return record.state == HALO_PLUGIN_STATE_LOADED ? record.name : fallback;
}

// The manifest the manifest.* cases check, found as the runner found it.
void choose_context_manifest(const Options& options, const std::string& name,
                             Context* context) {
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  if (!find_plugin_record(context->registry(), name, &record)) return;
  ManifestChoice choice = choose_manifest(options.worker_plugin, options.manifest, record);
  context->set_manifest(std::move(choice.path), std::move(choice.missing_reason));
}

}  // namespace

bool is_plugin_path(const std::string& plugin) {
  return plugin.find('/') != std::string::npos ||
         plugin.ends_with(".so") || plugin.ends_with(".json");
}

bool open_plugin(const std::string& plugin, const std::string& peer_path,
                 halo_registry_flags_t flags, halo_registry_t** out_registry,
                 halo_driver_t** out_driver, std::string* out_name,
                 std::string* out_error) {
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = flags;
  // Lets the cases of allocation_cases.cpp see what the plugins allocate.
  options.allocator = counting_allocator();
  const bool by_path = is_plugin_path(plugin);
  std::vector<const char*> paths;
  if (by_path) paths.push_back(plugin.c_str());
  if (!peer_path.empty()) paths.push_back(peer_path.c_str());
  options.plugin_path_count = paths.size();
  options.plugin_paths = paths.empty() ? nullptr : paths.data();
  halo_registry_t* registry = nullptr;
  halo_status_t status = halo_registry_create(&options, &registry);
  if (status != nullptr) {
    *out_error = "halo_registry_create returned " + take_status_text(status);
    return false;
  }
  std::string name = plugin;
  if (by_path) {
    halo_plugin_record_t record = {};
    record.struct_size = sizeof(record);
    halo_status_free(halo_registry_plugin_record(registry, 0, &record));
    if (record.state != HALO_PLUGIN_STATE_LOADED) {
      *out_error = skip_reason_for_path(registry);
      halo_registry_release(registry);
      return false;
    }
    name = record.name;
  }
  halo_driver_t* driver = nullptr;
  status = halo_registry_find_driver(registry, name.c_str(), &driver);
  if (status != nullptr) {
    *out_error = take_status_text(status);
    halo_registry_release(registry);
    return false;
  }
  *out_registry = registry;
  *out_driver = driver;
  *out_name = name;
  return true;
}

int run_worker(const Options& options) {
  die_with_runner(options.runner_pid);
  const Case* c = find_case(options.worker_case);
  if (c == nullptr) {
    print_verdict("FAIL", "no case is named " + options.worker_case);
    return 0;
  }
  halo_registry_t* registry = nullptr;
  halo_driver_t* driver = nullptr;
  std::string name, error;
  // The worker loads the plugin under test, and the peer when its case
  // pairs with one, from the files the runner found them in, and nothing
  // else: another plugin could not change the verdict, and starting every
  // installed driver (an OpenCL platform, a Vulkan instance) cost each case
  // more than most cases take. Only a peer left to the worker's search
  // (no --peer) needs the loader's whole discovery.
  const bool needs_peer = (c->needs & kNeedSecondPlugin) != 0;
  const bool exact = !options.worker_plugin_file.empty() &&
                     (!needs_peer || !options.worker_peer_file.empty());
  const std::string& plugin = exact ? options.worker_plugin_file : options.worker_plugin;
  const halo_registry_flags_t flags =
      exact ? HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT | HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS
            : 0;
  // A peer named by its path (the reference peer, say) or found by the
  // runner is loaded beside the plugin, right after it.
  std::string peer_path;
  if (exact && needs_peer) {
    peer_path = options.worker_peer_file;
  } else if (!exact && is_plugin_path(options.peer)) {
    peer_path = options.peer;
  }
  if (!open_plugin(plugin, peer_path, flags, &registry, &driver, &name, &error)) {
    print_verdict("FAIL", error);
    return 0;
  }
  const std::string peer =
      peer_path.empty() ? options.peer
                        : loaded_name(registry, is_plugin_path(plugin) ? 1 : 0, peer_path);
  // The verdict is printed only after teardown, so a crash or hang while
  // releasing the device is reported as one, not hidden behind a PASS.
  const char* verdict = "PASS";
  std::string reason;
  std::string peer_used;
  {
    Context context(registry, driver, name, options.case_seed,
                    options.testdata_dir, options.device, peer);
    choose_context_manifest(options, name, &context);
    try {
      std::string missing = missing_needs(c->needs, context);
      if (!missing.empty()) {
        verdict = "SKIP";
        reason = missing;
      } else {
        c->run(context);
      }
    } catch (const Skipped& skipped) {
      verdict = "SKIP";
      reason = skipped.what();
    } catch (const Failure& failure) {
      verdict = "FAIL";
      reason = failure.what();
    } catch (const std::exception& exception) {
      verdict = "FAIL";
      reason = std::string("exception: ") + exception.what();
    }
    peer_used = context.foreign_plugin_name();
  }
  halo_driver_release(driver);
  halo_registry_release(registry);
  print_verdict(verdict, reason, peer_used);
  return 0;
}

}  // namespace halo::cts
