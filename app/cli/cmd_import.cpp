// paraplan-cli import CONFIG [--format F] [--project BASE] -o PROJECT [--json]
#include "cli/command.h"
#include "util/read_file.h"
#include "export/import.h"
#include "project/project.h"
#include "rules/validate.h"
#include "util/input_error.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace paraplan::cli {
namespace {

int run_import(const Args& a) {
    const std::string file = a.positional_at(0, "CONFIG");
    const std::string text = read_input_file(file, "config");
    std::string format = a.get("format", "");
    if (format.empty()) {
        format = detect_import_format(file, text);
        if (format.empty())
            throw UsageError("cannot tell the format of '" + file +
                             "'; pass --format colossalai|megatron|deepspeed|torchtitan");
    } else {
        bool known = false;
        for (const auto& f : import_formats()) known = known || f == format;
        if (!known) throw UsageError("unknown --format '" + format + "' (colossalai|megatron|deepspeed|torchtitan)");
    }
    const auto out_path = a.get("o");
    if (!out_path && !a.flag("json")) throw UsageError("missing -o PROJECT (the project file to write)");
    const auto base_path = a.get("project");
    const Project base = base_path ? load_project(*base_path) : default_import_base(8);
    ImportResult r;
    try {
        r = import_config(text, format, base, !base_path);
    } catch (const InputError& e) {
        throw in_file(e, file);
    }
    const auto diags = validate(r.project);
    if (out_path) save_project(r.project, *out_path);
    if (a.flag("json")) {
        nlohmann::json out = {
            {"format", r.format}, {"project", project_to_json(r.project)}, {"warnings", r.warnings},
            {"notes", r.notes},   {"diagnostics", to_json(diags)},         {"valid", !has_errors(diags)}};
        if (out_path) out["written_to"] = *out_path;
        print_json(out.dump(2));
    } else {
        for (const auto& n : r.notes) std::cerr << "note: " << n << '\n';
        for (const auto& w : r.warnings) std::cerr << "warning: " << w << '\n';
        for (const auto& d : diags) std::cerr << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
        std::cerr << "wrote " << *out_path << " (" << r.format << " import, " << r.warnings.size() << " unread item"
                  << (r.warnings.size() == 1 ? "" : "s") << ")\n";
    }
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "import",
    .summary = "read a DeepSpeed, Megatron-LM, torchtitan or ColossalAI config into a project",
    .synopsis = {"CONFIG [--format colossalai|megatron|deepspeed|torchtitan]\n"
                 "[--project BASE] -o PROJECT [--json]"},
    .description = "Reads CONFIG (ds_config.json, a Megatron script or flag list, a torchtitan TOML, a Python\n"
                   "file calling HybridParallelPlugin/MoeHybridParallelPlugin/GeminiPlugin/LowLevelZeroPlugin)\n"
                   "and writes PROJECT. What the config lacks (cluster, model, ...) comes from BASE, or from\n"
                   "defaults (h100-sxm nodes sized to the config, llama3.1-8b) which are named in the notes.\n"
                   "Everything in CONFIG that cannot be read is listed as a warning on stderr.\n",
    .options = {{"format", "colossalai|megatron|deepspeed|torchtitan", "the config's format (default: guessed)"},
                {"project", "BASE", "the project that gives what the config lacks"},
                {"o", "PROJECT", "the project file to write (optional with --json)", true},
                {"json", "", "print {format, project, warnings, notes, diagnostics, valid} on stdout"}},
    .run = run_import});

}   // namespace paraplan::cli
