#include "util/diagnostic.h"

namespace paraplan {

const char* to_string(Severity s) {
    switch (s) {
    case Severity::Error: return "error";
    case Severity::Warning: return "warning";
    case Severity::Info: return "info";
    }
    return "error";
}

nlohmann::json to_json(const Fix& f) {
    nlohmann::json changes = nlohmann::json::object();
    for (const auto& c : f.changes) changes[c.field] = c.value;
    return {{"label", f.label}, {"changes", changes}};
}

nlohmann::json to_json(const Diagnostic& d) {
    nlohmann::json fixes = nlohmann::json::array();
    for (const auto& f : d.fixes) fixes.push_back(to_json(f));
    return {{"severity", to_string(d.severity)},    {"rule", d.rule},     {"message", d.message},
            {"framework_error", d.framework_error}, {"fields", d.fields}, {"fixes", fixes}};
}

nlohmann::json to_json(const std::vector<Diagnostic>& ds) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& d : ds) a.push_back(to_json(d));
    return a;
}

Fix fix_from_json(const nlohmann::json& j) {
    Fix f;
    f.label = j.value("label", "");
    if (j.contains("changes") && j["changes"].is_object())
        for (auto it = j["changes"].begin(); it != j["changes"].end(); ++it)
            f.changes.push_back({it.key(), it.value()});
    return f;
}

Diagnostic diagnostic_from_json(const nlohmann::json& j) {
    Diagnostic d;
    const std::string sev = j.value("severity", "error");
    d.severity = sev == "warning" ? Severity::Warning : sev == "info" ? Severity::Info : Severity::Error;
    d.rule = j.value("rule", "");
    d.message = j.value("message", "");
    d.framework_error = j.value("framework_error", "");
    if (j.contains("fields")) d.fields = j["fields"].get<std::vector<std::string>>();
    if (j.contains("fixes"))
        for (const auto& f : j["fixes"]) d.fixes.push_back(fix_from_json(f));
    return d;
}

bool has_errors(const std::vector<Diagnostic>& ds) {
    for (const auto& d : ds)
        if (d.severity == Severity::Error) return true;
    return false;
}

}   // namespace paraplan
