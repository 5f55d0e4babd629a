#pragma once
// The Qt-free half of running the probe (resources/probe/paraplan_probe.py) as a job: where
// it goes on a node, the runtime settings that launch it, and reading its result back from
// rank 0's log. Uploading it over ssh is runtime/probe_job.h (QProcess).
#include "launch/runtime_config.h"
#include "probe/probe_result.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::runtime {

// Where one probe run keeps its files on the nodes: a folder only the user can use, made fresh
// for the run, never reused by a predictable name. The first node makes it with
// `mktemp -d /tmp/paraplan-probe.XXXXXXXXXX` (mktemp(1): a new 0700 folder with a random
// name); every other node makes the same name with an exclusive mkdir, or, where /tmp is shared
// with a node before it, accepts the folder only when it is that user's own folder (not a link,
// mode 0700). Files are then written only inside it.
inline constexpr const char* kProbeDirPrefix = "/tmp/paraplan-probe.";

// Remote text that makes the folder on the first node and prints its path.
std::string probe_mktemp_command();

// The folder printed by probe_mktemp_command's output, or "" when the output is not one
// (kProbeDirPrefix and ten letters or digits).
std::string probe_dir_from_output(std::string_view out);

// Remote text that claims `dir` on another node (exit 0 when it is the user's own, private
// folder; exit 3, with the reason on stderr, when it is not).
std::string probe_claim_command(const std::string& dir);

// Remote text that removes the folder after the run.
std::string probe_cleanup_command(const std::string& dir);

// The embedded probe script (throws std::runtime_error if the build lacks it).
std::string probe_script_text();

// The runtime settings that launch the uploaded probe (mode forced to "direct" unless
// "torchrun"; script/args replaced; the rest of `base` kept).
RuntimeConfig probe_runtime(const RuntimeConfig& base, const std::string& remote_dir,
                            const std::vector<std::string>& extra_args = {});

// The probe result printed in the text of a log (the first line carrying kProbeResultMarker),
// or nullopt when no line carries it. Throws InputError (naming the JSON pointer) if the line
// is there but malformed. The log comes from a remote node: any bytes may be in it.
std::optional<ProbeResult> probe_result_from_log_text(std::string_view log);

// The same over a log file (rank-0.log); nullopt too when the file cannot be read (the job
// has not written it yet).
std::optional<ProbeResult> probe_result_from_log(const std::string& log_path);

}   // namespace paraplan::runtime
