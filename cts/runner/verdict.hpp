// The verdict line: how a worker tells the runner what its case did.
//
// The worker prints one line, kResultMarker followed by a JSON object
// {"status": "PASS"|"FAIL"|"SKIP", "reason": "…"}, and "peer": "NAME" when
// the case paired with another plugin's device (the interop.* cases). Everything else on the
// worker's output is free text, and the worker's output also carries
// whatever the plugin prints, so the runner parses the line defensively: a
// line that is not such an object is a malformed verdict, never a crash.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace halo::cts {

// The prefix of the one line a worker prints on stdout with its verdict.
inline constexpr char kResultMarker[] = "@@halo-cts-result ";

// Returns the verdict line's JSON for |status|, |reason| and |peer| (left
// out when ""). Case messages quote plugin statuses, which may hold any
// bytes: invalid UTF-8 becomes U+FFFD instead of throwing.
inline std::string format_verdict(const std::string& status,
                                  const std::string& reason,
                                  const std::string& peer = {}) {
  nlohmann::json verdict = {{"status", status}, {"reason", reason}};
  if (!peer.empty()) verdict["peer"] = peer;
  return verdict.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

struct Verdict {
  std::string status;  // PASS, FAIL or SKIP.
  std::string reason;
  std::string peer;  // The plugin the case paired with, or "".
};

// Parses |line| (the text after kResultMarker). Returns false with
// |out_error| saying what is wrong when it is not a JSON object whose
// "status" is PASS, FAIL or SKIP and whose "reason" and "peer", if present,
// are strings.
inline bool parse_verdict(std::string_view line, Verdict* out,
                          std::string* out_error) {
  const nlohmann::json verdict = nlohmann::json::parse(line, nullptr, false);
  if (verdict.is_discarded()) {
    *out_error = "not JSON";
    return false;
  }
  if (!verdict.is_object()) {
    *out_error = std::string("a JSON ") + verdict.type_name() + ", not an object";
    return false;
  }
  const auto status = verdict.find("status");
  if (status == verdict.end() || !status->is_string()) {
    *out_error = "no string \"status\"";
    return false;
  }
  const std::string& text = status->get_ref<const std::string&>();
  if (text != "PASS" && text != "FAIL" && text != "SKIP") {
    *out_error = "unknown status \"" + text + "\"";
    return false;
  }
  const auto reason = verdict.find("reason");
  if (reason != verdict.end() && !reason->is_string()) {
    *out_error = "\"reason\" is not a string";
    return false;
  }
  const auto peer = verdict.find("peer");
  if (peer != verdict.end() && !peer->is_string()) {
    *out_error = "\"peer\" is not a string";
    return false;
  }
  out->status = text;
  out->reason = reason != verdict.end() ? reason->get<std::string>() : "";
  out->peer = peer != verdict.end() ? peer->get<std::string>() : "";
  return true;
}

}  // namespace halo::cts
