#include "joblog/job_summary.h"

#include <algorithm>
#include <filesystem>

namespace paraplan::runtime {

using nlohmann::json;

namespace {

// The string at `key`, printable (no control character reaches a terminal), or "".
std::string string_of(const json& o, const char* key) {
    const auto it = o.find(key);
    return it != o.end() && it->is_string() ? printable(it->get<std::string>()) : std::string();
}

}   // namespace

JobSummary summarize(const JobRecord& r) {
    JobSummary s;
    s.record = &r;
    const auto procs = r.json.find("processes");
    if (procs != r.json.end() && procs->is_array())
        for (const auto& p : *procs) {
            if (!p.is_object()) continue;
            ProcessSummary ps;
            ps.label = string_of(p, "label");
            ps.host = string_of(p, "host");
            const std::string log = string_of(p, "log");
            if (!log.empty() && log.find('/') == std::string::npos)
                ps.log = (std::filesystem::path(r.folder) / log).string();
            const auto code = p.find("exit_code");
            if (code != p.end() && code->is_number_integer() && code->get<long long>() >= -1000000 &&
                code->get<long long>() <= 1000000)
                ps.exit_code = code->get<int>();
            const auto sig = p.find("slurm_signal");
            if (sig != p.end() && sig->is_number_integer() && sig->get<long long>() > 0 && sig->get<long long>() < 128)
                ps.signal = sig->get<int>();
            const auto fin = p.find("finished");
            ps.finished = fin != p.end() && fin->is_boolean() && fin->get<bool>();
            ps.error = string_of(p, "error");
            if (!ps.host.empty() && std::find(s.hosts.begin(), s.hosts.end(), ps.host) == s.hosts.end())
                s.hosts.push_back(ps.host);
            if (ps.exit_code && (!s.exit_code || *s.exit_code == 0)) s.exit_code = ps.exit_code;
            s.processes.push_back(std::move(ps));
        }
    if (!job_over(r.state)) s.exit_code.reset();
    return s;
}

json to_json(const JobSummary& s, bool with_processes) {
    const JobRecord& r = *s.record;
    json j = {{"id", r.id},
              {"state", r.state},
              {"mode", r.mode},
              {"hosts", s.hosts},
              {"started", r.started},
              {"ended", r.ended.empty() ? json() : json(r.ended)},
              {"exit_code", s.exit_code ? json(*s.exit_code) : json()},
              {"error", r.error},
              {"world_size", r.world_size},
              {"folder", r.folder}};
    const auto sid = r.json.find("slurm_job_id");
    if (sid != r.json.end() && sid->is_number_integer()) j["slurm_job_id"] = *sid;
    if (with_processes) {
        json ps = json::array();
        for (const auto& p : s.processes) {
            json pj = {{"label", p.label},
                       {"host", p.host},
                       {"log", p.log.empty() ? json() : json(p.log)},
                       {"exit_code", p.exit_code ? json(*p.exit_code) : json()},
                       {"finished", p.finished}};
            if (!p.error.empty()) pj["error"] = p.error;
            if (p.signal) pj["signal"] = *p.signal;
            ps.push_back(pj);
        }
        j["processes"] = ps;
    }
    return j;
}

std::string summary_line(const JobSummary& s) {
    const JobRecord& r = *s.record;
    std::string hosts;
    for (const auto& h : s.hosts) hosts += (hosts.empty() ? "" : ",") + h;
    return r.id + "  " + r.state + "  " + r.mode + "  " + (hosts.empty() ? "-" : hosts) + "  since " + r.started +
           (s.exit_code ? "  exit " + std::to_string(*s.exit_code) : std::string());
}

}   // namespace paraplan::runtime
