// manifest.*: the manifest that ships with the plugin (DESIGN.md §6). A
// vendor installs a library and its manifest, and libhalo reads the
// manifest before it opens the library: a manifest of another ABI major, or
// one naming another plugin or library, makes a conformant library
// unusable. These cases read it with libhalo's own reader and compare it
// with what the plugin under test says of itself. They skip, saying so, when
// halo-cts certifies a bare library (cts/README.md, --manifest).
#include <filesystem>
#include <system_error>

#include "cts.hpp"
#include "loader_manifest.hpp"

namespace {

using namespace halo::cts;

std::string version_text(uint32_t version) {
  return std::to_string(HALO_VERSION_MAJOR(version)) + "." +
         std::to_string(HALO_VERSION_MINOR(version));
}

// The manifest, read as the loader reads it; fails the case with the
// loader's reason when it would skip the manifest.
PluginManifest read_or_fail(Context& ctx) {
  PluginManifest manifest;
  halo_status_t status = read_plugin_manifest(ctx.manifest_path(), &manifest);
  if (status != nullptr) {
    fail(__FILE__, __LINE__,
         "libhalo cannot read the manifest: " + take_status_text(status));
  }
  return manifest;
}

// What the loader recorded of the plugin under test: the name and ABI
// version its descriptor declares and the library it was loaded from.
halo_plugin_record_t plugin_record(Context& ctx) {
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  if (!find_plugin_record(ctx.registry(), ctx.plugin_name(), &record)) {
    fail(__FILE__, __LINE__, "the registry holds no record of the loaded plugin " +
                                 ctx.plugin_name());
  }
  return record;
}

HALO_CTS_CASE("manifest.parses", kNeedManifest,
              "the manifest parses as libhalo reads it: every field present, well typed and in range") {
  read_or_fail(ctx);
}

HALO_CTS_CASE("manifest.abi_version", kNeedManifest,
              "plugin.abi_version has libhalo's major version and is the ABI version the plugin's descriptor declares") {
  const PluginManifest manifest = read_or_fail(ctx);
  const std::string declared = version_text(manifest.abi_version);
  CTS_ASSERT_MSG(HALO_VERSION_MAJOR(manifest.abi_version) == HALO_ABI_VERSION_MAJOR,
                 "plugin.abi_version is " + declared + ", but libhalo speaks ABI " +
                     std::to_string(HALO_ABI_VERSION_MAJOR) + ".0 to " +
                     version_text(HALO_ABI_VERSION) +
                     " and skips a manifest of another major before it opens the library");
  const uint32_t descriptor = plugin_record(ctx).abi_version;
  CTS_ASSERT_MSG(manifest.abi_version == descriptor,
                 "plugin.abi_version is " + declared + ", but the plugin's descriptor declares " +
                     version_text(descriptor) +
                     " (the headers it was built against); the manifest must say the same");
}

HALO_CTS_CASE("manifest.name", kNeedManifest,
              "plugin.name is the name the plugin's descriptor declares") {
  const PluginManifest manifest = read_or_fail(ctx);
  CTS_ASSERT_MSG(manifest.name == ctx.plugin_name(),
                 "plugin.name is '" + manifest.name + "', but the descriptor says '" +
                     ctx.plugin_name() + "': libhalo skips a plugin whose names differ");
}

HALO_CTS_CASE("manifest.library_path", kNeedManifest,
              "plugin.library_path, resolved against the manifest's folder, is the library under test") {
  const PluginManifest manifest = read_or_fail(ctx);
  const std::string tested = plugin_record(ctx).library_path;
  std::error_code error;
  const bool same = std::filesystem::equivalent(manifest.library_path, tested, error);
  CTS_ASSERT_MSG(same && !error,
                 "plugin.library_path resolves to " + manifest.library_path +
                     (error ? " (" + error.message() + ")" : std::string()) +
                     ", which is not the library under test, " + tested);
}

HALO_CTS_CASE("manifest.loads", kNeedManifest,
              "libhalo given only the manifest loads the plugin, as an application finds it") {
  const char* paths[] = {ctx.manifest_path().c_str()};
  halo_registry_options_t options = {};
  options.struct_size = sizeof(options);
  options.flags = HALO_REGISTRY_FLAG_NO_DEFAULT_FOLDERS |
                  HALO_REGISTRY_FLAG_IGNORE_ENVIRONMENT;
  options.plugin_path_count = 1;
  options.plugin_paths = paths;
  halo_registry_t* registry = nullptr;
  CTS_ASSERT_OK(halo_registry_create(&options, &registry));
  halo_plugin_record_t record = {};
  record.struct_size = sizeof(record);
  halo_status_t status = halo_registry_plugin_record(registry, 0, &record);
  const bool loaded = status == nullptr && record.state == HALO_PLUGIN_STATE_LOADED;
  const std::string why =
      status != nullptr ? take_status_text(status)
                        : std::string(halo_status_code_name(record.skip_code)) +
                              ": " + record.skip_reason;
  const std::string name = loaded ? record.name : "";
  halo_registry_release(registry);
  CTS_ASSERT_MSG(loaded, "libhalo skips the plugin of this manifest: " + why);
  CTS_ASSERT_EQ(name, ctx.plugin_name());
}

}  // namespace
