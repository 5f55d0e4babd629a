#pragma once
// A Paraplan project file (*.paraplan.json): cluster, model, training, layout,
// runtime. Loading validates the schema (errors name the JSON pointer); saving is
// atomic and keeps keys this version does not know.
#include "catalog/model.h"
#include "project/cluster.h"
#include "project/layout.h"
#include "util/progress.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace paraplan {

inline constexpr int kProjectSchemaVersion = 1;

struct Project {
    std::string name;
    Cluster cluster;
    std::string model_preset;   // catalog id when the file says {"preset": ...}
    ModelSpec model;            // resolved spec (from the preset or inline)
    Training training;
    Layout layout;
    nlohmann::json runtime = nlohmann::json::object();   // launch settings (runtime issue)
    CowJson extra;                                       // unknown top-level keys (shared between copies)

    int world_size() const { return cluster.world_size(); }

    bool operator==(const Project&) const = default;
};

// Parse from text. Throws InputError: syntax errors carry line and column; schema
// errors the pointer and what was expected; unknown catalog ids and newer schema
// versions are refused with a message.
Project project_from_text(std::string_view text);
// The same, reporting the parse's progress (bytes of the text) through `watch`; throws
// Cancelled when it is asked to stop.
Project project_from_text(std::string_view text, const Progress& watch);
Project project_from_json(const nlohmann::json& j);
nlohmann::json project_to_json(const Project& p);
std::string project_to_text(const Project& p);   // pretty, 2-space indent, trailing newline

// File I/O. load throws InputError (unreadable file: message names the path);
// save writes a temporary file in the same folder and renames it over the target.
Project load_project(const std::string& path);
Project load_project(const std::string& path, const Progress& watch);   // as project_from_text's
void save_project(const Project& p, const std::string& path);

// Built-in example projects (resources/examples/*.paraplan.json): file names.
std::vector<std::string> example_names();
Project load_example(const std::string& name);   // by file name, with or without extension

}   // namespace paraplan
