// paraplan-cli export FILE --format F [-o PATH] [--force] [--script S] [--master-port P] [--json]
#include "cli/command.h"
#include "util/local_dirs.h"
#include "export/export.h"
#include "project/project.h"
#include "util/input_error.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

namespace paraplan::cli {
namespace {

namespace fs = std::filesystem;

std::string formats_list() {
    std::string s;
    for (const auto& f : export_formats()) s += (s.empty() ? "" : "|") + f;
    return s;
}

void write_file(const fs::path& path, const std::string& content, bool executable) {
    std::error_code ec;
    if (!path.parent_path().empty()) fs::create_directories(path.parent_path(), ec);
    // A new file renamed into place: a link already at `path` (an unpacked archive may hold one)
    // is replaced, never written through.
    if (const std::string why = write_file_replacing(path.string(), content, executable ? 0755 : 0644); !why.empty())
        throw InputError("", why);
}

void print_diagnostics(const std::vector<Diagnostic>& ds) {
    for (const auto& d : ds) {
        std::cerr << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
        if (!d.framework_error.empty()) std::cerr << "    framework says: " << d.framework_error << '\n';
        for (const auto& f : d.fixes) std::cerr << "    fix: " << f.label << '\n';
    }
}

int run_export(const Args& a) {
    const std::string file = a.positional_at(0, "project FILE");
    const auto format = a.get("format");
    if (!format) throw UsageError("missing --format (" + formats_list() + ")");
    bool known = false;
    for (const auto& f : export_formats()) known = known || f == *format;
    if (!known) throw UsageError("unknown --format '" + *format + "' (" + formats_list() + ")");
    const Project p = load_project(file);
    ExportOptions opt;
    opt.force = a.flag("force");
    opt.script = a.get("script", "");
    opt.master_port = a.get_int("master-port", 29500, 1, 65535);
    opt.master_addr = a.get("master-addr", "");
    const ExportResult r = export_project(p, *format, opt);

    if (a.flag("json")) {
        nlohmann::json files = nlohmann::json::object();
        for (const auto& [path, f] : r.files) files[path] = f.content;
        nlohmann::json out = {{"format", r.format},
                              {"refused", r.refused},
                              {"forced", opt.force && has_errors(r.diagnostics)},
                              {"diagnostics", to_json(r.diagnostics)},
                              {"files", files}};
        if (r.refused) {
            print_json(out.dump(2));
            return kFindings;
        }
        if (auto o = a.get("o")) {
            for (const auto& [path, f] : r.files)
                write_file(fs::path(*o) / path, f.content, f.syntax == FileSyntax::Shell);
            out["written_to"] = *o;
        }
        print_json(out.dump(2));
        return kOk;
    }

    print_diagnostics(r.diagnostics);
    if (r.refused) {
        std::cerr
            << file << ": not exported: the layout is invalid for " << *format
            << " (fix the errors above, or pass --force to export anyway with the errors written into the files)\n";
        return kFindings;
    }
    const auto o = a.get("o");
    if (r.files.size() == 1 && export_format_single_file(*format)) {
        const auto& [path, f] = *r.files.begin();
        if (!o) {
            std::cout << f.content;
            std::cout.flush();
        } else {
            const bool dir = fs::is_directory(*o);
            const fs::path target = dir ? fs::path(*o) / path : fs::path(*o);
            write_file(target, f.content, f.syntax == FileSyntax::Shell);
            std::cerr << "wrote " << target.string() << '\n';
        }
        return kOk;
    }
    // Multi-file formats (or a forced export with a separate warnings file) go to a folder.
    fs::path dir;
    if (o) {
        dir = *o;
    } else {
        std::string stem = fs::path(file).filename().string();
        const std::string ext = ".paraplan.json";
        if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0)
            stem.resize(stem.size() - ext.size());
        else stem = fs::path(file).stem().string();
        dir = stem + "-" + *format;
        std::cerr << "no -o given: writing the " << r.files.size() << " files of the " << *format
                  << " export to folder " << dir.string() << '\n';
    }
    if (fs::exists(dir) && !fs::is_directory(dir))
        throw InputError("", "-o " + dir.string() + ": exists and is not a folder");
    for (const auto& [path, f] : r.files) {
        write_file(dir / path, f.content, f.syntax == FileSyntax::Shell);
        std::cerr << "wrote " << (dir / path).string() << '\n';
    }
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "export",
    .summary = "write the configs and launch scripts a training job needs",
    .synopsis = {"FILE --format FORMAT [-o PATH] [--force] [--json]\n"
                 "[--script S] [--master-addr A] [--master-port P]"},
    .description =
        "FORMAT: colossalai megatron deepspeed torchtitan torchrun slurm k8s layout-json trace pipeline-csv\n"
        "  colossalai   plugin.py (Booster plugin), hostfile, run.sh (colossalai run)\n"
        "  megatron     train_megatron.sh (torchrun pretrain_gpt.py with every flag)\n"
        "  deepspeed    ds_config.json, hostfile (host slots=N), run.sh (deepspeed launcher),\n"
        "               pipeline.py (PipelineModule with the pipe/model/data topology, pp > 1)\n"
        "  torchtitan   job.toml (v0.2 job config), run.sh\n"
        "  torchrun     launch.sh: one static-rendezvous torchrun command per node\n"
        "  slurm        job.sbatch: srun of torchrun, one task per node\n"
        "  k8s          pytorchjob.yaml: Kubeflow PyTorchJob (Master + Worker)\n"
        "A single-file format goes to stdout unless -o names a file or folder; a multi-file format\n"
        "goes to the folder -o (default FILE-FORMAT). An invalid layout is refused (exit 1) with\n"
        "its diagnostics on stderr; --force exports anyway and writes the findings into the files\n"
        "(a leading comment; \"_paraplan_warnings\" in JSON; PARAPLAN_WARNINGS.txt where neither fits).\n",
    .options = {{"format", "FORMAT", "what to write (the list above)"},
                {"o", "PATH", "the file or folder to write", true},
                {"force", "", "export an invalid layout too, its findings written into the files"},
                {"script", "S", "training script instead of the format's default"},
                {"master-addr", "A", "the rendezvous address (default: the first node)"},
                {"master-port", "P", "the rendezvous port (default 29500)"},
                {"json", "", "print {format, refused, diagnostics, files: {path: content}} on stdout"}},
    .run = run_export});

}   // namespace paraplan::cli
