// halo-info --doctor --json: the doctor's section of the JSON document
// ("doctor" in tools/README.md).
#include "halo_info_json.hpp"

namespace halo::info {
namespace {

Json findings_json(const std::vector<Finding>& findings) {
  Json json = Json::array();
  for (const Finding& finding : findings) {
    json.push_back({{"id", finding.id},
                    {"problem", finding.problem},
                    {"action", finding.action}});
  }
  return json;
}

Json paths_json(const std::vector<SearchedPath>& paths) {
  Json json = Json::array();
  for (const SearchedPath& path : paths) {
    json.push_back({{"path", path.path},
                    {"source", path.source},
                    {"state", path.state},
                    {"files", path.files}});
  }
  return json;
}

Json icds_json(const IcdSearch& search) {
  Json icds = Json::array();
  for (const IcdFile& icd : search.icds) {
    icds.push_back({{"path", icd.path.empty() ? Json(nullptr) : Json(icd.path)},
                    {"library", icd.library},
                    {"loads", icd.problem.empty()},
                    {"problem", icd.problem.empty() ? Json(nullptr)
                                                    : Json(icd.problem)}});
  }
  Json json;
  json["chosen_by"] =
      search.chosen_by.empty() ? Json(nullptr) : Json(search.chosen_by);
  json["paths"] = paths_json(search.paths);
  json["icds"] = icds;
  return json;
}

}  // namespace

Json doctor_json(const Doctor& doctor) {
  Json json;
  json["environment"] = Json::object();
  for (const auto& [name, value] : doctor.environment) {
    json["environment"][name] = value;
  }
  json["manifest_paths"] = paths_json(doctor.manifest_paths);
  json["vulkan"] = icds_json(doctor.vulkan);
  json["opencl"] = icds_json(doctor.opencl);
  json["device_nodes"] = Json::array();
  for (const DeviceNode& node : doctor.device_nodes) {
    json["device_nodes"].push_back({{"path", node.path},
                                    {"accessible", node.accessible},
                                    {"group", node.group}});
  }
  json["findings"] = findings_json(doctor.findings);
  json["plugins"] = Json::array();
  for (const PluginDiagnosis& plugin : doctor.plugins) {
    json["plugins"].push_back({{"name", plugin.name},
                               {"state", plugin.state},
                               {"device_count", plugin.device_count},
                               {"findings", findings_json(plugin.findings)}});
  }
  return json;
}

}  // namespace halo::info
