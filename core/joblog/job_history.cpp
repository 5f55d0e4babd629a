#include "joblog/job_history.h"
#include "util/plain_name.h"

#include "shell/shell_quote.h"
#include "util/input_error.h"
#include "util/json_read.h"
#include "util/local_dirs.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <stdexcept>

namespace paraplan::runtime {

namespace fs = std::filesystem;

namespace {

// A job.json Paraplan wrote: its folder and the file are this user's and nobody else can write
// them (local_dirs.h), so a record planted or edited by another user is refused, not acted on.
std::optional<JobRecord> read_record(const fs::path& folder, std::string* problem) {
    constexpr std::size_t kMaxRecordBytes = 64u << 20;   // a job.json of 16k ranks is a few MB
    if (const std::string why = private_dir_problem(folder.string()); !why.empty()) {
        if (problem) *problem = why + " (Paraplan acts only on job records it wrote itself)";
        return std::nullopt;
    }
    std::string why;
    bool missing = false;
    const auto text = read_own_file((folder / "job.json").string(), kMaxRecordBytes, &why, &missing);
    if (!text) {
        if (problem)
            *problem = missing ? folder.string() + ": no job.json"
                               : why + " (Paraplan acts only on job records it wrote itself)";
        return std::nullopt;
    }
    return job_record_from_text(*text, folder.string(), problem);
}

}   // namespace

bool job_over(std::string_view state) { return state == "succeeded" || state == "failed" || state == "stopped"; }

bool is_job_id(std::string_view id) { return is_plain_name(id, {.leading_dot = false, .max_size = 200}); }

std::string printable(std::string_view text) {
    std::string out;
    out.reserve(text.size());
    for (unsigned char c : text) out += c < 0x20 || c == 0x7f ? ' ' : static_cast<char>(c);
    return out;
}

std::optional<JobRecord> job_record_from_text(std::string_view text, const std::string& folder, std::string* problem) {
    const std::string file = (fs::path(folder) / "job.json").string();
    std::string why;
    const auto parsed = json_read::try_parse(text, &why);   // nesting bounded, never throws
    if (!parsed || !parsed->is_object() || !parsed->contains("paraplan_job")) {
        if (problem) *problem = file + ": not a Paraplan job record" + (why.empty() ? "" : " (" + why + ")");
        return std::nullopt;
    }
    try {
        const json_read::Obj o(*parsed, "");
        JobRecord r;
        r.folder = folder;
        r.id = o.string("id", fs::path(folder).filename().string());
        // The id is matched on the nodes as PARAPLAN_JOB=<id> (remote_stop_script): only the
        // characters make_job_id writes, so no line or pattern can be slipped into that check.
        if (!is_job_id(r.id)) json_read::fail(o.at("id"), "a job id (letters, digits, '.', '_', '-')", *o.get("id"));
        r.state = o.string("state", "");
        r.mode = o.string("mode", "");
        r.started = o.string("started", "");
        r.ended = o.string("ended", "");
        r.error = o.string("error", "");
        // What `jobs` and `status` print to a terminal carries no control character (an escape
        // sequence could rewrite the screen or the clipboard).
        for (const char* key : {"state", "mode", "started", "ended"})
            if (o.has(key)) json_read::no_control_chars(o.at(key), o.string(key, ""));
        r.error = printable(r.error);
        r.world_size = o.non_negative_int("world_size", 0);
        r.json = *parsed;
        return r;
    } catch (const InputError& e) {
        if (problem) *problem = file + ": " + e.what();
        return std::nullopt;
    }
}

std::vector<JobRecord> list_jobs(const std::string& job_dir, std::vector<std::string>* problems) {
    std::vector<JobRecord> out;
    std::error_code ec;
    if (!fs::is_directory(job_dir, ec)) return out;
    for (const auto& e : fs::directory_iterator(job_dir, ec)) {
        if (!e.is_directory(ec) || e.is_symlink(ec)) continue;
        std::string problem;
        if (auto r = read_record(e.path(), &problem)) out.push_back(std::move(*r));
        else if (problems) problems->push_back(problem);
    }
    std::sort(out.begin(), out.end(), [](const JobRecord& a, const JobRecord& b) { return a.id > b.id; });
    return out;
}

std::string claim_job_folder(const std::string& job_dir, const std::string& base_id) {
    if (const std::string why = ensure_private_dir(job_dir); !why.empty())
        throw std::runtime_error("cannot keep job records in " + job_dir + ": " + why);
    for (int n = 1; n <= 10000; ++n) {
        const std::string id = n == 1 ? base_id : base_id + "-" + std::to_string(n);
        std::string problem;
        const int made = make_private_dir((fs::path(job_dir) / id).string(), &problem);
        if (made > 0) return id;
        if (made < 0) throw std::runtime_error("cannot create the job folder: " + problem);
    }
    throw std::runtime_error("no free job folder for " + base_id + " in " + job_dir);
}

std::optional<JobRecord> find_job(const std::string& job_dir, const std::string& id_or_folder, std::string* problem) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(fs::path(id_or_folder) / "job.json", ec)))
        return read_record(id_or_folder, problem);
    if (id_or_folder.find('/') == std::string::npos && !id_or_folder.empty() && id_or_folder != "." &&
        id_or_folder != "..")
        return read_record(fs::path(job_dir) / id_or_folder, problem);
    if (problem) *problem = id_or_folder + ": no job.json";
    return std::nullopt;
}

std::string remote_stop_script(const std::string& job_id, long long pgid, int grace_s) {
    const std::string pg = std::to_string(pgid);
    const std::string tag = sh_quote("PARAPLAN_JOB=" + job_id);
    return "pg=" + pg +
           "\n"
           "if ! kill -0 -$pg 2>/dev/null; then echo gone; exit 0; fi\n"
           "if ! tr '\\0' '\\n' </proc/$pg/environ 2>/dev/null | grep -qxF " +
           tag +
           "; then echo not-this-job; exit 3; fi\n"
           "kill -TERM -$pg 2>/dev/null; n=0\n"
           "while kill -0 -$pg 2>/dev/null && [ $n -lt " +
           std::to_string(grace_s) +
           " ]; do sleep 1; n=$((n+1)); done\n"
           "kill -KILL -$pg 2>/dev/null; echo stopped\n";
}

}   // namespace paraplan::runtime
