// paraplan-cli validate FILE [--json]
#include "cli/command.h"
#include "project/project.h"
#include "rules/validate.h"

#include <iostream>

namespace paraplan::cli {
namespace {

int run_validate(const Args& a) {
    const std::string file = a.positional_at(0, "project FILE");
    const Project p = load_project(file);
    const auto diags = validate(p);
    const bool valid = !has_errors(diags);
    if (a.flag("json")) {
        nlohmann::json out = {
            {"valid", valid}, {"diagnostics", to_json(diags)}, {"file", file}, {"world_size", p.world_size()}};
        print_json(out.dump(2));
    } else {
        for (const auto& d : diags) {
            std::cout << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
            if (!d.framework_error.empty()) std::cout << "    framework says: " << d.framework_error << '\n';
            for (const auto& f : d.fixes) {
                std::cout << "    fix: " << f.label << " (";
                for (std::size_t i = 0; i < f.changes.size(); ++i)
                    std::cout << (i ? ", " : "") << f.changes[i].field << " = " << f.changes[i].value.dump();
                std::cout << ")\n";
            }
        }
        std::cout << file << ": " << (valid ? "valid" : "invalid") << " (" << diags.size() << " finding"
                  << (diags.size() == 1 ? "" : "s") << ")\n";
    }
    return valid ? kOk : kFindings;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "validate",
    .summary = "parse and check a project file against its framework's rules",
    .synopsis = {"FILE [--json]"},
    .description = "Parses FILE (*.paraplan.json) and checks its layout against every rule of its\n"
                   "framework. Exit 0 when valid, 1 when a rule is broken, 2 when FILE cannot be read.\n",
    .options = {{"json", "", "print {\"valid\": bool, \"diagnostics\": [...]} on stdout"}},
    .run = run_validate});

}   // namespace paraplan::cli
