#pragma once
// One project's report: its findings and its estimate, or why the layout cannot be
// estimated. to_json() is the contract of `paraplan-cli estimate --json`, and
// `paraplan-cli compare --json` carries the very same object per project.
#include "estimate/estimate.h"
#include "project/project.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace paraplan::compare {

struct ReportError {
    std::string field;   // JSON pointer ("/layout/tp")
    std::string message;
};

struct ProjectReport {
    std::string file;                             // as the user named it
    std::vector<Diagnostic> diagnostics;          // validate(project)
    std::optional<estimate::Estimate> estimate;   // empty when the layout does not divide
    std::optional<ReportError> error;

    // The layout fits in memory and has no error.
    bool ok() const { return estimate && estimate->memory.fits && !has_errors(diagnostics); }
};

ProjectReport report_project(const Project& p, const std::string& file);

// estimate::to_json(e) plus "file" and "diagnostics"; without an estimate:
// {"file", "error": {"field", "message"}, "diagnostics"}.
nlohmann::json to_json(const ProjectReport& r);

}   // namespace paraplan::compare
