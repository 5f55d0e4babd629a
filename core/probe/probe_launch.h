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

// Remote folder for one probe run: /tmp/paraplan-probe-<job id>.
std::string probe_remote_dir(const std::string& job_id);

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
