#include "calibrate/runs.h"
#include "calibrate/runs_table.h"
#include "util/json_read.h"
#include "util/read_file.h"

#include "calibrate/log_parse.h"
#include "util/input_error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

namespace paraplan::calibrate {
namespace fs = std::filesystem;

namespace {

std::string read_file(const std::string& path, const std::string& what) {
    return read_input_file(path, what, kMaxLogBytes);
}

std::string resolve(const fs::path& base, const std::string& p) {
    const fs::path x(p);
    return (x.is_absolute() ? x : base / x).lexically_normal().string();
}

void from_log_text(Run& r, const std::string& text, const std::string& where) {
    std::string why;
    const auto m = measured_step(parse_log(text), r.project, &why);
    if (!m) throw InputError("", where + ": " + why);
    if (r.step_s <= 0) r.step_s = m->step_s;
    if (r.peak_gib <= 0 && m->peak_gib > 0) {
        r.peak_gib = m->peak_gib;
        r.memory_kind = m->memory_kind;
    }
    r.source = where + " (" + m->how + ")";
}

Run make_run(const fs::path& base, const std::string& project, double step_s, double peak, const std::string& log,
             const std::string& name, const std::string& where) {
    if (project.empty()) throw InputError("", where + ": no project file");
    Run r;
    const std::string pp = resolve(base, project);
    try {
        r.project = load_project(pp);
    } catch (const InputError& e) {
        throw InputError(e.pointer(), where + ": " + e.what());
    }
    r.name = name.empty() ? fs::path(project).stem().stem().string() : name;
    r.step_s = step_s;
    r.peak_gib = peak;
    r.source = where;
    if (!log.empty()) from_log_text(r, read_file(resolve(base, log), "log"), resolve(base, log));
    if (r.step_s <= 0) throw InputError("", where + ": no measured step time (give step_s or a log)");
    return r;
}

}   // namespace

std::vector<Run> load_runs(const std::string& table_path) {
    const std::string text = read_file(table_path, "runs table");
    const fs::path base = fs::path(table_path).parent_path();
    std::vector<Run> runs;
    for (const RunRow& row : read_runs_table(text, table_path))
        runs.push_back(make_run(base, row.project, row.step_s, row.peak_gib, row.log, row.name, row.where));
    return runs;
}

Run run_from_log(const std::string& project_path, const std::string& log_path) {
    return make_run(fs::path(), project_path, 0, 0, log_path, "", project_path);
}

Run run_from_job(const std::string& folder) {
    const fs::path dir(folder);
    const std::string jpath = (dir / "job.json").string();
    nlohmann::json j;
    try {
        j = json_read::parse(read_file(jpath, "job record"));
    } catch (const InputError& e) {
        throw InputError("", jpath + ": not JSON (" + e.message() + ")", e.line(), e.column(), jpath);
    }
    if (!j.contains("project") || !j.at("project").is_object())
        throw InputError("/project", jpath + ": the job record holds no project snapshot");
    Run r;
    try {
        r.project = project_from_json(j.at("project"));
    } catch (const InputError& e) {
        throw InputError("/project" + e.pointer(), jpath + ": " + e.message());
    }
    r.name = j.value("id", dir.filename().string());
    // The first process log (rank 0 prints the frameworks' step lines) that has a measurement.
    std::vector<fs::path> logs;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().extension() == ".log") logs.push_back(e.path());
    std::sort(logs.begin(), logs.end());
    std::string last_why = "no *.log files";
    for (const auto& l : logs) {
        try {
            from_log_text(r, read_file(l.string(), "log"), l.string());
            return r;
        } catch (const InputError& e) {
            last_why = e.message();
        }
    }
    throw InputError("", folder + ": no measured step time in the job's logs (" + last_why + ")");
}

}   // namespace paraplan::calibrate
