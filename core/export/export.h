#pragma once
// Exporters: a Project becomes the files a training job needs (framework configs,
// launch scripts). Each format is a function Project -> {relative path -> file}.
//
// An export of an invalid layout is refused with the diagnostics of validate()
// (checked as if the layout ran on the format's framework) plus the exporter's own
// findings (settings the target cannot express). With `force` the files are
// written anyway and carry the findings: text formats start with a comment block
// listing them; JSON files (which have no comments) get a top-level
// "_paraplan_warnings" array of strings; formats whose syntax has neither (CSV,
// the ColossalAI hostfile) get a separate PARAPLAN_WARNINGS.txt next to them.
#include "project/project.h"
#include "util/diagnostic.h"

#include <map>
#include <string>
#include <vector>

namespace paraplan {

// How a file is parsed; decides how warnings are embedded and which parser the
// tests run over it.
enum class FileSyntax { Python, Shell, Toml, Yaml, Json, Csv, HashCommentText, PlainText };

struct ExportFile {
    std::string content;
    FileSyntax syntax = FileSyntax::PlainText;
};

using ExportFiles = std::map<std::string, ExportFile>;   // relative path -> file

struct ExportOptions {
    bool force = false;
    std::string script;                     // training script; "" = the format's default
    std::vector<std::string> script_args;   // extra arguments after the script
    int master_port = 29500;
    std::string master_addr;   // "" = the first node's host
};

struct ExportResult {
    std::string format;
    ExportFiles files;                     // empty when refused
    std::vector<Diagnostic> diagnostics;   // validate() findings + the exporter's own
    bool refused = false;                  // errors and not forced
};

// Format ids: colossalai megatron deepspeed torchtitan torchrun slurm slurm-topology k8s
// layout-json trace pipeline-csv.
const std::vector<std::string>& export_formats();
bool export_format_available(const std::string& format);   // false where the helper code has not landed
bool export_format_single_file(const std::string& format);

// Throws InputError for an unknown or unavailable format.
ExportResult export_project(const Project& p, const std::string& format, const ExportOptions& opt = {});

// The framework id a format's layout is validated against ("" = the project's own).
std::string export_framework(const Project& p, const std::string& format);

// Individual exporters: files plus findings about what the target cannot express.
// They do not validate and do not add warning headers (export_project does).
struct FormatOutput {
    ExportFiles files;
    std::vector<Diagnostic> findings;
};
FormatOutput export_colossalai(const Project& p, const ExportOptions& opt);
FormatOutput export_megatron(const Project& p, const ExportOptions& opt);
FormatOutput export_deepspeed(const Project& p, const ExportOptions& opt);
FormatOutput export_torchtitan(const Project& p, const ExportOptions& opt);
FormatOutput export_torchrun(const Project& p, const ExportOptions& opt);
FormatOutput export_slurm(const Project& p, const ExportOptions& opt);
// topology.conf of cluster.network.slurm_topology; throws InputError when the cluster has none.
FormatOutput export_slurm_topology(const Project& p, const ExportOptions& opt);
FormatOutput export_k8s(const Project& p, const ExportOptions& opt);
// From core/topology (layout.json) and core/schedule (trace.json, schedule.csv).
FormatOutput export_layout_json(const Project& p, const ExportOptions& opt);
FormatOutput export_trace(const Project& p, const ExportOptions& opt);
FormatOutput export_pipeline_csv(const Project& p, const ExportOptions& opt);

// The framework a format's layout is checked against.
std::string colossalai_framework(const Project& p);   // the project's colossalai* id, or by ep
// PyTorch pipelining schedule name for torchtitan ("" when none fits).
std::string torchtitan_schedule_name(Schedule schedule, int chunks);
// Megatron-LM pretrain_gpt.py arguments for the project (flag, values, ...), grouped
// as the official example scripts group them; findings collect what cannot be expressed.
struct MegatronArgs {
    std::vector<std::string> model, moe, parallel, training, data;
    std::vector<std::string> all() const;
};
MegatronArgs megatron_args(const Project& p, std::vector<Diagnostic>& findings);
// The training script Megatron runs: opt.script, else pretrain_mamba.py for a hybrid Mamba model
// (model.hybrid_override_pattern), else pretrain_gpt.py.
std::string megatron_script(const Project& p, const ExportOptions& opt);
// Environment Megatron needs (name, value), e.g. CUDA_DEVICE_MAX_CONNECTIONS=1.
std::vector<std::pair<std::string, std::string>> megatron_env(const Project& p);

}   // namespace paraplan
