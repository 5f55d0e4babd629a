#include "project/migrate.h"

#include "project/project.h"
#include "util/input_error.h"
#include "util/json_read.h"

#include <string>

namespace paraplan {

using nlohmann::json;

const std::vector<ProjectMigration>& project_migrations() {
    // Add a step here, and raise kProjectSchemaVersion, when a change makes a field mean
    // something else or go away; a field added with the old behaviour as its default needs none.
    static const std::vector<ProjectMigration> steps;
    return steps;
}

int project_file_version(const json& root) {
    const json_read::Obj o(root, "");
    const std::string current = std::to_string(kProjectSchemaVersion);
    const json* ver = o.get("paraplan");
    if (!ver)
        throw InputError("/paraplan",
                         "required field is missing: not a Paraplan project (expected \"paraplan\": " + current + ")");
    if (!ver->is_number_integer() || ver->get<long long>() < 1)
        json_read::fail("/paraplan", "the schema version " + current, *ver);
    const long long v = ver->get<long long>();
    if (v > kProjectSchemaVersion)
        throw InputError("/paraplan", "this project was written by a newer Paraplan (schema version " +
                                          std::to_string(v) + "); this version reads version " + current +
                                          ". Update Paraplan to open it.");
    return static_cast<int>(v);
}

namespace {

// training.precision "fp8" as a string: the one legacy spelling (see migrate.h).
bool has_fp8_precision(const json& root) {
    const auto t = root.find("training");
    if (t == root.end() || !t->is_object()) return false;
    const auto p = t->find("precision");
    return p != t->end() && p->is_string() && p->get_ref<const std::string&>() == "fp8";
}

}   // namespace

bool normalize_legacy_forms(json& root) {
    if (!root.is_object() || !has_fp8_precision(root)) return false;
    // A missing or null layout reads as the defaults; an object gets the switch unless its fp8
    // is of another type (the typed read then names /layout/fp8, as it did before this pass);
    // anything else is left for the typed read to refuse at /layout.
    json& layout = root["layout"];
    if (layout.is_null()) layout = json::object();
    if (layout.is_object()) {
        json& fp8 = layout["fp8"];
        if (fp8.is_null() || fp8.is_boolean()) fp8 = true;
    }
    root["training"]["precision"] = "bf16";
    return true;
}

bool project_needs_migration(const json& root) {
    return project_file_version(root) < kProjectSchemaVersion || has_fp8_precision(root);
}

void migrate_project(json& root) {
    const int version = project_file_version(root);
    const auto& steps = project_migrations();
    for (int v = version; v < kProjectSchemaVersion; ++v) steps.at(static_cast<std::size_t>(v - 1)).apply(root);
    normalize_legacy_forms(root);
    root["paraplan"] = kProjectSchemaVersion;
}

}   // namespace paraplan
