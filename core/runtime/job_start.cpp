#include "runtime/job_start.h"

#include "joblog/job_history.h"
#include "launch/config_upload.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <optional>

namespace paraplan::runtime {

LaunchPlan plan_job(const Project& p, const RuntimeConfig& rc, const std::string& id, JobKind kind) {
    LaunchPlan plan = plan_launch(p.cluster, rc, id);
    if (kind == JobKind::Training) add_config_uploads(plan, p, rc);
    return plan;
}

std::unique_ptr<Job> create_job(const Project& p, const RuntimeConfig& rc, const SshOptions& ssh,
                                const std::string& job_dir, const std::string& id, JobKind kind, QObject* parent) {
    LaunchPlan plan = plan_job(p, rc, id, kind);   // refuses bad settings before any folder exists
    const std::string claimed = claim_job_folder(job_dir, id);
    if (claimed != id) plan = plan_job(p, rc, claimed, kind);
    const std::string on_failure = kind == JobKind::Probe ? std::string("stop_all") : rc.on_failure;
    return std::make_unique<Job>(p.cluster, std::move(plan), ssh, job_dir + "/" + claimed, project_to_json(p),
                                 on_failure, parent);
}

ProbeGroups probe_groups(const Project& p, const topology::RankMap* built) {
    ProbeGroups g;
    std::optional<topology::RankMap> own;
    const topology::RankMap* map = built;
    if (!map || map->world_size != p.world_size()) {
        own = topology::build_rank_map(topology::from_project(p), &p.cluster);
        map = &*own;
    }
    if (!map->valid()) {
        for (const auto& d : map->diagnostics)
            if (d.severity == Severity::Error) g.errors.push_back(d);
        return g;
    }
    g.layout = topology::to_json(*map);
    return g;
}

}   // namespace paraplan::runtime
