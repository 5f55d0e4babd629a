#pragma once
// Helpers for the export tests: run the real parsers (system Python 3.11 with
// tomllib and python3-yaml, bash) over exported files, stub launchers on PATH.
#include "export/export.h"

#include <QProcess>
#include <QString>
#include <QStringList>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace exporttest {

// The system interpreter (not a pyenv shim): it has tomllib and yaml.
inline const char* kPython = "/usr/bin/python3";

struct Proc {
    int code = -1;
    std::string out, err;
};

inline Proc run(const QString& program, const QStringList& args, const QStringList& extra_env = {}) {
    QProcess p;
    auto env = QProcessEnvironment::systemEnvironment();
    for (const auto& kv : extra_env) env.insert(kv.section('=', 0, 0), kv.section('=', 1));
    p.setProcessEnvironment(env);
    p.start(program, args);
    p.waitForFinished(120000);
    return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput().toStdString(),
            p.readAllStandardError().toStdString()};
}

inline std::string read_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline void write_file(const std::filesystem::path& p, const std::string& content) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out << content;
}

// Writes the export's files under dir.
inline void write_files(const paraplan::ExportFiles& files, const std::filesystem::path& dir) {
    for (const auto& [path, f] : files) write_file(dir / path, f.content);
}

// Parses a file with its language's own parser; returns an error text or "".
inline std::string check_syntax(const std::filesystem::path& file, paraplan::FileSyntax syntax) {
    using paraplan::FileSyntax;
    const QString f = QString::fromStdString(file.string());
    const QString parse = QStringLiteral(PARAPLAN_TEST_DATA "/export/parse_back.py");
    Proc r;
    switch (syntax) {
    case FileSyntax::Python: r = run(kPython, {parse, "python", f}); break;
    case FileSyntax::Shell: r = run("bash", {"-n", f}); break;
    case FileSyntax::Toml: r = run(kPython, {parse, "toml", f}); break;
    case FileSyntax::Yaml: r = run(kPython, {parse, "yaml", f}); break;
    case FileSyntax::Json: r = run(kPython, {parse, "json", f}); break;
    default: return "";
    }
    return r.code == 0 ? "" : file.string() + ": " + r.err + r.out;
}

// Parsed structure of a file as JSON (python plugin call, toml, yaml, json).
inline nlohmann::json parse_back(const std::string& mode, const std::filesystem::path& file) {
    const Proc r = run(kPython, {QStringLiteral(PARAPLAN_TEST_DATA "/export/parse_back.py"),
                                 QString::fromStdString(mode), QString::fromStdString(file.string())});
    if (r.code != 0) return {{"_error", r.err}};
    return nlohmann::json::parse(r.out);
}

// Stub launchers: each prints two environment lines and then its argv, one per line.
inline std::filesystem::path make_stubs(const std::filesystem::path& dir) {
    const auto bin = dir / "stub-bin";
    std::filesystem::create_directories(bin);
    const std::string printer =
        "#!/bin/bash\nprintf 'ENV CUDA_DEVICE_MAX_CONNECTIONS=%s\\n' \"${CUDA_DEVICE_MAX_CONNECTIONS-}\"\n"
        "printf 'ENV CUDA_VISIBLE_DEVICES=%s\\n' \"${CUDA_VISIBLE_DEVICES-}\"\nprintf 'ARG %s\\n' \"$(basename "
        "\"$0\")\" \"$@\"\n";
    for (const char* name : {"torchrun", "colossalai", "deepspeed"}) {
        write_file(bin / name, printer);
        std::filesystem::permissions(bin / name, std::filesystem::perms::owner_all);
    }
    write_file(bin / "srun",
               "#!/bin/bash\nwhile [[ $1 == --* ]]; do shift; done\nexport SLURM_NNODES=$STUB_NNODES "
               "SLURM_NODEID=$STUB_NODEID\nexec \"$@\"\n");
    write_file(bin / "scontrol", "#!/bin/bash\necho stub-head-node\necho stub-other-node\n");
    for (const char* name : {"srun", "scontrol"})
        std::filesystem::permissions(bin / name, std::filesystem::perms::owner_all);
    return bin;
}

struct Launch {
    int code = -1;
    std::string max_connections, visible_devices;
    std::vector<std::string> argv;   // argv[0] = the launcher's name
    std::string err;
};

// Runs a shell script with the stubs first on PATH.
inline Launch run_script(const std::filesystem::path& script, const std::filesystem::path& stubs,
                         const QStringList& env = {}) {
    QProcess p;
    auto pe = QProcessEnvironment::systemEnvironment();
    pe.remove("CUDA_DEVICE_MAX_CONNECTIONS");
    pe.remove("CUDA_VISIBLE_DEVICES");
    for (const auto& kv : env) pe.insert(kv.section('=', 0, 0), kv.section('=', 1));
    pe.insert("PATH", QString::fromStdString(stubs.string()) + ":" + qEnvironmentVariable("PATH"));
    p.setProcessEnvironment(pe);
    p.setWorkingDirectory(QString::fromStdString(script.parent_path().string()));
    p.start("bash", {QString::fromStdString(script.string())});
    p.waitForFinished(60000);
    Launch l;
    l.code = p.exitCode();
    l.err = p.readAllStandardError().toStdString();
    std::istringstream out(p.readAllStandardOutput().toStdString());
    std::string line;
    while (std::getline(out, line)) {
        if (line.rfind("ENV CUDA_DEVICE_MAX_CONNECTIONS=", 0) == 0) l.max_connections = line.substr(32);
        else if (line.rfind("ENV CUDA_VISIBLE_DEVICES=", 0) == 0) l.visible_devices = line.substr(25);
        else if (line.rfind("ARG ", 0) == 0) l.argv.push_back(line.substr(4));
    }
    return l;
}

// Value after `flag` in argv ("" if absent); `present` tells flags without values.
inline std::string arg_value(const std::vector<std::string>& argv, const std::string& flag) {
    for (std::size_t i = 0; i + 1 < argv.size(); ++i)
        if (argv[i] == flag) return argv[i + 1];
    return "";
}
inline bool has_arg(const std::vector<std::string>& argv, const std::string& flag) {
    for (const auto& a : argv)
        if (a == flag) return true;
    return false;
}

inline std::set<std::string> megatron_flags() {
    std::set<std::string> s;
    std::istringstream in(read_file(PARAPLAN_TEST_DATA "/megatron_flags.txt"));
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("--", 0) == 0) s.insert(line);
    return s;
}

}   // namespace exporttest
