#pragma once
// Starting a job, written once for both faces: `paraplan-cli launch` / `probe` and the Run
// panel. The plan is made (and settings that cannot run are refused) before any folder exists;
// then the job gets a folder of its own and a Job that is not yet started, so each face only
// connects its own output to it.
#include "launch/launch_plan.h"
#include "project/project.h"
#include "runtime/job.h"
#include "topology/rank_map.h"
#include "util/diagnostic.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

namespace paraplan::runtime {

enum class JobKind { Training, Probe };

// The job's plan for `id`: throws InputError for settings that cannot run. A training job
// carries the framework's config files (launch/config_upload.h), copied before it starts.
LaunchPlan plan_job(const Project& p, const RuntimeConfig& rc, const std::string& id, JobKind kind);

// plan_job, then the job's own folder under job_dir (a second start in the same second gets
// "<id>-2": claim_job_folder, with the plan made again for that id) and the Job writing there.
// A probe stops every process when one fails, whatever runtime.on_failure says: its result
// needs every rank.
std::unique_ptr<Job> create_job(const Project& p, const RuntimeConfig& rc, const SshOptions& ssh,
                                const std::string& job_dir, const std::string& id, JobKind kind,
                                QObject* parent = nullptr);

// The groups a probe checks: the project's rank map as `paraplan-cli groups --json` writes it.
// `built` is used when it is the project's (same world size), else the map is built here.
struct ProbeGroups {
    nlohmann::json layout;            // null when the layout is invalid
    std::vector<Diagnostic> errors;   // the map's findings when it is invalid
};
ProbeGroups probe_groups(const Project& p, const topology::RankMap* built = nullptr);

}   // namespace paraplan::runtime
