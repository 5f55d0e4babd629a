#include "export/export.h"

#include "export/export_common.h"
#include "project/framework.h"
#include "rules/validate.h"
#include "util/input_error.h"

#include <algorithm>

namespace paraplan {

namespace {

using Exporter = FormatOutput (*)(const Project&, const ExportOptions&);

struct FormatInfo {
    const char* id;
    Exporter fn;   // nullptr: waits for code from another module
    bool single_file;
    const char* waits_for;
};

const std::vector<FormatInfo>& table() {
    static const std::vector<FormatInfo> t = {
        {"colossalai", export_colossalai, false, ""},
        {"megatron", export_megatron, true, ""},
        {"deepspeed", export_deepspeed, false, ""},
        {"torchtitan", export_torchtitan, false, ""},
        {"torchrun", export_torchrun, true, ""},
        {"slurm", export_slurm, true, ""},
        {"slurm-topology", export_slurm_topology, true, ""},
        {"k8s", export_k8s, true, ""},
        {"layout-json", export_layout_json, true, "the topology module (core/topology to_json(RankMap))"},
        {"trace", export_trace, true, "the schedule module (core/schedule)"},
        {"pipeline-csv", export_pipeline_csv, true, "the schedule module (core/schedule)"},
    };
    return t;
}

const FormatInfo* find(const std::string& format) {
    for (const auto& f : table())
        if (format == f.id) return &f;
    return nullptr;
}

std::string comment_block(const std::vector<Diagnostic>& ds, const std::string& prefix) {
    std::string s = prefix + "PARAPLAN WARNING: exported with --force although the layout is invalid:\n";
    for (const auto& d : ds) {
        if (d.severity == Severity::Info) continue;
        std::string msg = d.message;
        std::replace(msg.begin(), msg.end(), '\n', ' ');
        s += prefix;
        s.append("  ").append(to_string(d.severity)).append(" [").append(d.rule).append("] ").append(msg).append("\n");
    }
    return s;
}

// Puts the findings into each file in the way its syntax allows (see export.h).
void embed_warnings(ExportFiles& files, const std::vector<Diagnostic>& ds) {
    bool separate = false;
    for (auto& [path, f] : files) {
        switch (f.syntax) {
        case FileSyntax::Python:
        case FileSyntax::Shell:
        case FileSyntax::Toml:
        case FileSyntax::Yaml:
        case FileSyntax::HashCommentText: {
            std::string& c = f.content;
            std::string block = comment_block(ds, "# ");
            if (c.rfind("#!", 0) == 0) {   // keep the shebang first
                const auto nl = c.find('\n');
                c.insert(nl == std::string::npos ? c.size() : nl + 1, block);
            } else {
                c.insert(0, block);
            }
            break;
        }
        case FileSyntax::Json: {
            nlohmann::json j = nlohmann::json::parse(f.content);
            nlohmann::json w = nlohmann::json::array();
            for (const auto& d : ds)
                if (d.severity != Severity::Info)
                    w.push_back(std::string(to_string(d.severity)) + " [" + d.rule + "] " + d.message);
            if (j.is_object()) {
                j["_paraplan_warnings"] = w;
                f.content = j.dump(2) + "\n";
            } else {
                separate = true;
            }
            break;
        }
        case FileSyntax::Csv:
        case FileSyntax::PlainText: separate = true; break;
        }
    }
    if (separate) files["PARAPLAN_WARNINGS.txt"] = {comment_block(ds, ""), FileSyntax::PlainText};
}

}   // namespace

const std::vector<std::string>& export_formats() {
    static const std::vector<std::string> ids = [] {
        std::vector<std::string> v;
        for (const auto& f : table()) v.push_back(f.id);
        return v;
    }();
    return ids;
}

bool export_format_available(const std::string& format) {
    const FormatInfo* f = find(format);
    return f && f->fn;
}

bool export_format_single_file(const std::string& format) {
    const FormatInfo* f = find(format);
    return f && f->single_file;
}

std::string export_framework(const Project& p, const std::string& format) {
    // A framework's own exporter writes that framework's files (ColossalAI: the project's plugin).
    const FrameworkTraits* t = find_traits(format);
    if (!t || format != t->exporter) return p.layout.framework;
    if (t->family == FrameworkFamily::colossalai) return colossalai_framework(p);
    return format;
}

ExportResult export_project(const Project& p, const std::string& format, const ExportOptions& opt) {
    const FormatInfo* f = find(format);
    if (!f) {
        std::string known;
        for (const auto& id : export_formats()) known += (known.empty() ? "" : ", ") + id;
        throw InputError("", "unknown export format '" + format + "' (known: " + known + ")");
    }
    if (!f->fn)
        throw InputError("",
                         "the '" + format + "' export is not available in this build yet: it needs " + f->waits_for);
    ExportResult r;
    r.format = format;
    Project q = p;
    q.layout.framework = export_framework(p, format);
    r.diagnostics = validate(q);
    FormatOutput o = f->fn(q, opt);
    r.diagnostics.insert(r.diagnostics.end(), o.findings.begin(), o.findings.end());
    // An FP4 recipe the framework has no switch for is not written (the rule kernel.fp4_recipe refuses
    // the export; with --force the files say so): one place for every format.
    if (!runs_fp4_recipe(q.layout.framework, q.layout.fp4_recipe))
        r.diagnostics.push_back(exportutil::finding(
            Severity::Warning, "export.fp4_recipe",
            traits_of(q.layout).display_name + std::string(" has no ") + to_string(q.layout.fp4_recipe) +
                " training switch: these files train without FP4 (fp4_recipe is not "
                "written).",
            {"/layout/fp4_recipe"}));
    if (has_errors(r.diagnostics)) {
        if (!opt.force) {
            r.refused = true;
            return r;
        }
        embed_warnings(o.files, r.diagnostics);
    }
    r.files = std::move(o.files);
    return r;
}

}   // namespace paraplan
