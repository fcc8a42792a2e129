#include "manifest.hpp"

#include <charconv>
#include <cstdint>
#include <filesystem>
#include <limits>

#include <nlohmann/json.hpp>

#include "halo/abi.h"
#include "check.hpp"
#include "regular_file.hpp"

namespace halo::loader {
namespace {

// Each half of "major.minor" packs into 16 bits (HALO_MAKE_VERSION).
constexpr uint32_t kMaxVersionPart = 0xFFFF;

halo_status_t field_error(const std::string& path, const char* field,
                          const char* expected) {
  return halo_status_format(HALO_STATUS_INVALID_ARGUMENT,
                            "manifest %s: field %s is missing or not %s",
                            path.c_str(), field, expected);
}

// Reads plugin.abi_version. A half past 16 bits would wrap (65537.0 is
// 1.0 once packed), so it is refused, not truncated.
halo_status_t read_abi_version(const nlohmann::json& plugin,
                               const std::string& path, uint32_t* out_version) {
  if (!plugin.contains("abi_version") || !plugin["abi_version"].is_string()) {
    return field_error(path, "plugin.abi_version", "a \"major.minor\" string");
  }
  const std::string& text = plugin["abi_version"].get_ref<const std::string&>();
  switch (parse_abi_version(text, out_version)) {
    case VersionParse::kOk:
      return nullptr;
    case VersionParse::kOutOfRange:
      return halo_status_format(
          HALO_STATUS_INVALID_ARGUMENT,
          "manifest %s: field plugin.abi_version \"%s\" is out of range: major "
          "and minor must each be 0 to %u",
          path.c_str(), text.c_str(), kMaxVersionPart);
    case VersionParse::kMalformed:
      break;
  }
  return field_error(path, "plugin.abi_version", "a \"major.minor\" string");
}

// Reads the optional plugin.priority into the int32 it is kept as; a value
// outside it is refused, not wrapped.
halo_status_t read_priority(const nlohmann::json& plugin,
                            const std::string& path, int32_t* out_priority) {
  if (!plugin.contains("priority")) return nullptr;
  const nlohmann::json& priority = plugin["priority"];
  if (!priority.is_number_integer()) {
    return field_error(path, "plugin.priority", "an integer");
  }
  constexpr int64_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  // nlohmann keeps integers above INT64_MAX as unsigned: compare them as such.
  const bool in_range =
      priority.is_number_unsigned()
          ? priority.get<uint64_t>() <= static_cast<uint64_t>(kMax)
          : priority.get<int64_t>() >= kMin && priority.get<int64_t>() <= kMax;
  if (!in_range) {
    return halo_status_format(
        HALO_STATUS_INVALID_ARGUMENT,
        "manifest %s: field plugin.priority %s is out of range: it must be "
        "%lld to %lld",
        path.c_str(), priority.dump().c_str(), static_cast<long long>(kMin),
        static_cast<long long>(kMax));
  }
  *out_priority = static_cast<int32_t>(priority.get<int64_t>());
  return nullptr;
}

}  // namespace

VersionParse parse_abi_version(const std::string& text, uint32_t* out_version) {
  const char* begin = text.data();
  const char* end = begin + text.size();
  uint32_t major = 0, minor = 0;
  auto [dot, error] = std::from_chars(begin, end, major);
  if (error == std::errc::result_out_of_range) return VersionParse::kOutOfRange;
  if (error != std::errc() || dot == end || *dot != '.') {
    return VersionParse::kMalformed;
  }
  auto [tail, minor_error] = std::from_chars(dot + 1, end, minor);
  if (minor_error == std::errc::result_out_of_range) {
    return VersionParse::kOutOfRange;
  }
  if (minor_error != std::errc() || tail != end) return VersionParse::kMalformed;
  if (major > kMaxVersionPart || minor > kMaxVersionPart) {
    return VersionParse::kOutOfRange;
  }
  *out_version = HALO_MAKE_VERSION(major, minor);
  return VersionParse::kOk;
}

halo_status_t read_manifest(const std::string& path, Manifest* out_manifest) {
  std::string text;
  if (halo_status_t status = read_regular_file(path, "manifest", &text)) {
    return status;
  }
  // Without exceptions: a parse error is this manifest's reason, never an
  // exception's text.
  const nlohmann::json document =
      nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
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
      plugin["name"].get_ref<const std::string&>().empty()) {
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
  HALO_RETURN_IF_ERROR(read_abi_version(plugin, path, &manifest.abi_version));
  HALO_RETURN_IF_ERROR(read_priority(plugin, path, &manifest.priority));
  *out_manifest = std::move(manifest);
  return nullptr;
}

}  // namespace halo::loader
