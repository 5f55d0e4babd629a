#pragma once
// Applying a Fix (JSON pointer -> value changes) to a Project in memory, and
// reading the field a pointer names. Supported pointers: /layout/<field>,
// /training/<field>, /cluster/nodes/<i>/{gpu,gpus}, /cluster/system (a systems-catalog id, "" for
// none) and, for a cluster written as a count (short form), /cluster/nodes (the node count).
#include "project/project.h"
#include "util/diagnostic.h"

#include <string>

namespace paraplan {

// Throws std::invalid_argument naming the pointer when it is unknown or the
// value has the wrong type.
void set_field(Project& p, const std::string& pointer, const nlohmann::json& value);
nlohmann::json get_field(const Project& p, const std::string& pointer);
void apply_fix(Project& p, const Fix& f);
Project with_fix(Project p, const Fix& f);

}   // namespace paraplan
