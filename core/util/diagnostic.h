#pragma once
// A finding about a project or a layout: the common currency of rules, schedules,
// estimates and exports. Its JSON form is a CLI contract:
// {"severity", "rule", "message", "framework_error", "fields", "fixes"}.
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace paraplan {

enum class Severity { Error, Warning, Info };

const char* to_string(Severity s);

// One concrete change of the project, e.g. {"/layout/tp", 4}. `field` is a JSON
// pointer into the project file.
struct FixChange {
    std::string field;
    nlohmann::json value;
};

// A suggested fix: a label for the button and the changes it applies together.
struct Fix {
    std::string label;
    std::vector<FixChange> changes;
};

struct Diagnostic {
    Severity severity = Severity::Error;
    std::string rule;                  // stable id, e.g. "colossalai.tp_divides_heads"
    std::string message;               // plain words: what and why
    std::string framework_error;       // the framework's own error text, where it would fail
    std::vector<std::string> fields;   // JSON pointers involved, e.g. "/layout/tp"
    std::vector<Fix> fixes;            // nearest first
};

nlohmann::json to_json(const Fix& f);
nlohmann::json to_json(const Diagnostic& d);
nlohmann::json to_json(const std::vector<Diagnostic>& ds);
Fix fix_from_json(const nlohmann::json& j);
Diagnostic diagnostic_from_json(const nlohmann::json& j);

bool has_errors(const std::vector<Diagnostic>& ds);

}   // namespace paraplan
