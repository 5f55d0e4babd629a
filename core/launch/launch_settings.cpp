#include "launch/launch_settings.h"

#include "topofile/slurm_placement.h"

namespace paraplan::runtime {

SshOptions ssh_options_from(const RuntimeConfig& rc, const std::optional<SshProfile>& profile) {
    SshOptions o;
    o.connect_timeout_s = rc.connect_timeout_s;
    o.server_alive_interval_s = rc.server_alive_interval_s;
    o.extra_options = rc.ssh_options;
    if (profile) apply_ssh_profile(o, *profile);
    return o;
}

namespace {

// The sbatch option that keeps the plan's groups inside one leaf switch or block of the cluster's
// Slurm topology, as the slurm export writes it (topofile/slurm_placement.h). A --switches or
// --segment of the project's own runtime.slurm.sbatch_args wins; other modes never read these.
void add_placement(const Project& project, RuntimeConfig& rc) {
    const auto jp = topofile::project_placement(project);
    if (!jp || !jp->placement.ok) return;
    for (const auto& a : rc.slurm.sbatch_args)
        if (a.rfind("--switches", 0) == 0 || a.rfind("--segment", 0) == 0) return;
    for (const auto& a : jp->placement.sbatch_args) rc.slurm.sbatch_args.push_back(a);
}

}   // namespace

LaunchSettings launch_settings(const Project& project, const SshProfiles& profiles) {
    LaunchSettings s;
    s.rc = runtime_config_from_json(project.runtime);
    s.ignored = s.rc.ignored;
    add_placement(project, s.rc);
    for (auto& line : ignored_cluster_settings(project.cluster)) s.ignored.push_back(std::move(line));
    s.profile = resolve_ssh_profile(s.rc.ssh_profile, profiles);
    s.ssh = ssh_options_from(s.rc, s.profile);
    return s;
}

}   // namespace paraplan::runtime
