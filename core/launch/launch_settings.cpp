#include "launch/launch_settings.h"

namespace paraplan::runtime {

SshOptions ssh_options_from(const RuntimeConfig& rc, const std::optional<SshProfile>& profile) {
    SshOptions o;
    o.connect_timeout_s = rc.connect_timeout_s;
    o.server_alive_interval_s = rc.server_alive_interval_s;
    o.extra_options = rc.ssh_options;
    if (profile) apply_ssh_profile(o, *profile);
    return o;
}

LaunchSettings launch_settings(const Project& project, const SshProfiles& profiles) {
    LaunchSettings s;
    s.rc = runtime_config_from_json(project.runtime);
    s.ignored = s.rc.ignored;
    for (auto& line : ignored_cluster_settings(project.cluster)) s.ignored.push_back(std::move(line));
    s.profile = resolve_ssh_profile(s.rc.ssh_profile, profiles);
    s.ssh = ssh_options_from(s.rc, s.profile);
    return s;
}

}   // namespace paraplan::runtime
