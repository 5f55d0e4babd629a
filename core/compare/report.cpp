#include "compare/report.h"

#include "rules/validate.h"
#include "util/input_error.h"

namespace paraplan::compare {

ProjectReport report_project(const Project& p, const std::string& file) {
    ProjectReport r;
    r.file = file;
    r.diagnostics = validate(p);
    try {
        r.estimate = estimate::estimate_project(p);
    } catch (const InputError& err) {
        // The layout itself does not divide: a finding of this project, not unreadable input.
        r.error = ReportError{err.pointer(), err.message()};
    }
    return r;
}

nlohmann::json to_json(const ProjectReport& r) {
    if (!r.estimate) {
        const ReportError e = r.error.value_or(ReportError{});
        return {{"file", r.file},
                {"error", {{"field", e.field}, {"message", e.message}}},
                {"diagnostics", to_json(r.diagnostics)}};
    }
    nlohmann::json j = estimate::to_json(*r.estimate);
    j["file"] = r.file;
    j["diagnostics"] = to_json(r.diagnostics);
    return j;
}

}   // namespace paraplan::compare
