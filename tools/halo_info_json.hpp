// halo-info's JSON document (schema "halo-info/1", tools/README.md): the
// report and, with --doctor, the doctor's findings, each built by its own
// file and printed as one document.
#ifndef HALO_TOOLS_HALO_INFO_JSON_HPP_
#define HALO_TOOLS_HALO_INFO_JSON_HPP_

#include <ostream>

#include <nlohmann/json.hpp>

#include "halo_info_doctor.hpp"
#include "halo_info_report.hpp"

namespace halo::info {

// Ordered, so that keys keep the order the schema lists them in and two
// outputs can be compared with diff.
using Json = nlohmann::ordered_json;

// The schema of the document; a change that removes or redefines a field
// gets a new number, new fields do not.
inline constexpr char kJsonSchema[] = "halo-info/1";

Json report_json(const Report& report);
Json doctor_json(const Doctor& doctor);

// Prints |json| indented, with invalid UTF-8 (a plugin's strings are only
// bytes) replaced rather than thrown on halfway through the document.
void write_json(std::ostream& out, const Json& json);

}  // namespace halo::info

#endif  // HALO_TOOLS_HALO_INFO_JSON_HPP_
