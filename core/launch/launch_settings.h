#pragma once
// Everything a launch, probe, monitor or connection test takes from a project and from the
// user's own settings, resolved once for the CLI and the app alike: the runtime section, the
// ssh profile it names (ssh_profile.h), the ssh options built from both, and every project
// setting that is ignored because only the user may choose it.
#include "launch/runtime_config.h"
#include "project/project.h"
#include "ssh/ssh_command.h"
#include "ssh/ssh_profile.h"

#include <optional>
#include <string>
#include <vector>

namespace paraplan::runtime {

struct LaunchSettings {
    RuntimeConfig rc;
    std::optional<SshProfile> profile;   // the user's profile the project uses, if any
    SshOptions ssh;                      // rc's plain connection values + the profile's local ones
    std::vector<std::string> ignored;    // "POINTER: ignored: why", RuntimeConfig::ignored + nodes
};

// The ssh options of a launch: the project's plain connection values and the local values of
// the user's profile, if any.
SshOptions ssh_options_from(const RuntimeConfig& rc, const std::optional<SshProfile>& profile);

// Throws InputError (the runtime field, or /runtime/ssh/profile when the profile named is not
// defined in `profiles`).
LaunchSettings launch_settings(const Project& project, const SshProfiles& profiles);

}   // namespace paraplan::runtime
