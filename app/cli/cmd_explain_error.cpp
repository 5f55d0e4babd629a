// paraplan-cli explain-error TEXT [--project FILE] [--json]
#include "cli/command.h"
#include "util/read_file.h"
#include "project/project.h"
#include "rules/explain_error.h"
#include "util/input_error.h"

#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

namespace paraplan::cli {
namespace {

inline constexpr std::size_t kMaxStdinBytes = 16u << 20;

std::string read_text(const Args& a) {
    if (auto f = a.get("file")) {
        return read_input_file(*f, "--file", kMaxLogBytes);
    }
    if (a.positional.empty()) throw UsageError("missing error TEXT (or '-' to read standard input)");
    if (a.positional.size() == 1 && a.positional[0] == "-") {
        // Standard input, up to kMaxStdinBytes (it may be a pipe that never ends).
        std::string text;
        char buf[65536];
        while (text.size() <= kMaxStdinBytes && std::cin.read(buf, sizeof buf).gcount() > 0)
            text.append(buf, static_cast<std::size_t>(std::cin.gcount()));
        if (text.size() > kMaxStdinBytes)
            throw InputError("", "standard input is longer than the limit of 16 MiB (give the log's end, or --file)");
        return text;
    }
    std::string text;
    for (const auto& p : a.positional) text += (text.empty() ? "" : " ") + p;
    return text;
}

int run_explain(const Args& a) {
    for (const auto& [k, v] : a.options)
        if (k != "project" && k != "file") throw UsageError("unknown option --" + k);
    const std::string text = read_text(a);
    std::optional<Project> project;
    if (auto f = a.get("project")) project = load_project(*f);
    if (text.size() > kExplainBytes)
        std::cerr << "paraplan-cli explain-error: searched the last " << (kExplainBytes >> 20) << " MiB of "
                  << text.size() << " bytes (a run's error is at its end)\n";
    const ErrorExplanation e = explain_error(text, project ? &*project : nullptr);
    if (a.flag("json")) {
        print_json(to_json(e).dump(2));
    } else if (!e.matched) {
        std::cout
            << "No known error matched. Paraplan knows " << known_error_patterns()
            << " messages of ColossalAI, Megatron-LM, torchtitan, DeepSpeed, PyTorch distributed, NCCL and CUDA.\n";
    } else {
        std::cout << "[" << e.rule << "] (" << e.framework << ")\n" << e.explanation << '\n';
        for (const auto& d : e.diagnostics)
            std::cout << "  " << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
        for (const auto& f : e.fixes) {
            std::cout << "  fix: " << f.label << " (";
            for (std::size_t i = 0; i < f.changes.size(); ++i)
                std::cout << (i ? ", " : "") << f.changes[i].field << " = " << f.changes[i].value.dump();
            std::cout << ")\n";
        }
    }
    return e.matched ? kOk : kFindings;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "explain-error",
    .summary = "name the rule behind a framework / NCCL / CUDA error message and propose fixes",
    .synopsis = {"TEXT [--project FILE] [--json]", "- [--project FILE]      (read the message from stdin)",
                 "--file LOG [--project FILE]"},
    .description = "Matches an error message of ColossalAI, Megatron-LM, torchtitan, DeepSpeed, PyTorch\n"
                   "distributed, NCCL or CUDA to the rule behind it and explains it. With --project, the\n"
                   "project is validated and the fixes for that rule are listed.\n"
                   "Exit 0 when the message is recognised, 1 when not, 2 on usage errors.\n",
    .options = {{"file", "LOG", "read the message from LOG"},
                {"project", "FILE", "validate FILE and list the fixes for the rule"},
                {"json", "",
                 "print {\"matched\", \"rule\", \"framework\", \"explanation\", \"fixes\", \"diagnostics\"}"}},
    .run = run_explain});

}   // namespace paraplan::cli
