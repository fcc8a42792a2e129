#include "manifest.hpp"

#include <charconv>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "halo/abi.h"

namespace halo::loader {
namespace {

halo_status_t field_error(const std::string& path, const char* field,
                          const char* expected) {
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                            "manifest %s: field %s is missing or not %s",
                            path.c_str(), field, expected);
}

}  // namespace

bool parse_abi_version(const std::string& text, uint32_t* out_version) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  uint32_t major = 0, minor = 0;
  auto [dot, error] = std::from_chars(begin, end, major);
  if (error != std::errc() || dot == end || *dot != '.') return false;
  auto [tail, minor_error] = std::from_chars(dot + 1, end, minor);
  if (minor_error != std::errc() || tail != end || minor > 0xFFFF) return false;
  *out_version = HALO_MAKE_VERSION(major, minor);
  return true;
}

halo_status_t read_manifest(const std::string& path, Manifest* out_manifest) {
  std::ifstream stream(path);
  std::error_code exists_error;
  if (!std::filesystem::exists(path, exists_error)) {
    return halo_status_format(HALO_STATUS_NOT_FOUND,
                              "manifest %s: no such file", path.c_str());
  }
  if (!stream) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "manifest %s: cannot be read", path.c_str());
  }
  nlohmann::json document =
      nlohmann::json::parse(stream, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {
    return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                              "manifest %s: not valid JSON", path.c_str());
  }
  if (!document.is_object() || !document.contains("file_format_version") ||
      !document["file_format_version"].is_string()) {
    return field_error(path, "file_format_version", "a string");
  }
  if (!document.contains("plugin") || !document["plugin"].is_object()) {
    return field_error(path, "plugin", "an object");
  }
  const nlohmann::json& plugin = document["plugin"];
  Manifest manifest;
  manifest.path = path;
  if (!plugin.contains("name") || !plugin["name"].is_string() ||
      plugin["name"].get<std::string>().empty()) {
    return field_error(path, "plugin.name", "a non-empty string");
  }
  manifest.name = plugin["name"].get<std::string>();
  if (!plugin.contains("library_path") || !plugin["library_path"].is_string()) {
    return field_error(path, "plugin.library_path", "a string");
  }
  std::filesystem::path library(plugin["library_path"].get<std::string>());
  if (library.is_relative()) {
    library = std::filesystem::path(path).parent_path() / library;
  }
  std::error_code error;
  std::filesystem::path absolute = std::filesystem::absolute(library, error);
  manifest.library_path =
      (error ? library : absolute).lexically_normal().string();
  if (!plugin.contains("abi_version") || !plugin["abi_version"].is_string() ||
      !parse_abi_version(plugin["abi_version"].get<std::string>(),
                         &manifest.abi_version)) {
    return field_error(path, "plugin.abi_version", "a \"major.minor\" string");
  }
  if (plugin.contains("priority")) {
    if (!plugin["priority"].is_number_integer()) {
      return field_error(path, "plugin.priority", "an integer");
    }
    manifest.priority = plugin["priority"].get<int32_t>();
  }
  *out_manifest = std::move(manifest);
  return nullptr;
}

}  // namespace halo::loader
