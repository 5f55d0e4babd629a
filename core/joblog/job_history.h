#pragma once
// Past and running jobs, read from <job_dir>/<id>/job.json (written by Job). job_dir is
// Paraplan's own jobs_dir() unless the user names another; every folder is created 0700 and a
// record is read only from a folder and file of this user that nobody else can write.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::runtime {

struct JobRecord {
    std::string id;
    std::string folder;
    std::string state;   // pending connecting running stopping succeeded failed stopped
    std::string mode;
    std::string started, ended;
    std::string error;
    int world_size = 0;
    nlohmann::json json;   // the whole job.json
};

// A recorded state the job cannot leave: succeeded, failed or stopped. Any other (pending,
// connecting, running, stopping, or a state the scheduler could not tell) may still have
// processes to stop.
bool job_over(std::string_view state);

// A job id as make_job_id writes it: 1-200 letters, digits, '.', '_' or '-', not starting with
// '-' or '.'. A record with any other id is refused.
bool is_job_id(std::string_view id);

// `text` with every control character (C0, DEL) replaced by a space: for values read back from a
// record and printed to a terminal.
std::string printable(std::string_view text);

// The record in the text of a job.json that lies in `folder` (the folder's name is the id
// when the record has none). nullopt, with `problem` (if given) saying why, when the text is
// not a Paraplan job record or one of the fields above has the wrong type (its JSON pointer).
// Never throws: job.json is read back from disk, and a job folder may hold anything.
std::optional<JobRecord> job_record_from_text(std::string_view text, const std::string& folder,
                                              std::string* problem = nullptr);

// Every readable job in job_dir, newest first (ids start with the UTC time). Folders
// without a readable job.json are skipped; `problems` (if given) says why.
std::vector<JobRecord> list_jobs(const std::string& job_dir, std::vector<std::string>* problems = nullptr);

// Creates a new private job folder (0700) under job_dir (created 0700 too, and refused when
// another user owns it or can write it) and returns its id:
// base_id ("<yyyymmdd-hhmmss>-<slug>", make_job_id) when that folder is free, else
// base_id-2, base_id-3, ... Creating a folder is atomic, so two launches in the same
// second, even from two processes, never share a folder. Throws std::runtime_error
// when no folder can be created.
std::string claim_job_folder(const std::string& job_dir, const std::string& base_id);

// A job by id, or by a folder path holding job.json; nullopt with `problem` (if given) saying
// why (no such job, or a record Paraplan refuses to trust).
std::optional<JobRecord> find_job(const std::string& job_dir, const std::string& id_or_folder,
                                  std::string* problem = nullptr);

// The file `paraplan-cli stop` leaves in a job's folder before it signals the job's processes, so
// that the launch following them records the job as stopped, not failed by their signal.
inline constexpr const char* kStopRequestedFile = "stop-requested";

// Remote text that stops one process group of a job on its node, and only if the
// group leader still carries PARAPLAN_JOB=<job_id> (a recycled PID is left alone):
// TERM, up to grace_s seconds, then KILL. Prints "stopped", "gone" or "not-this-job".
std::string remote_stop_script(const std::string& job_id, long long pgid, int grace_s);

}   // namespace paraplan::runtime
