#include "probe/probe_launch.h"

#include "util/resources.h"

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace paraplan::runtime {

std::string probe_remote_dir(const std::string& job_id) { return "/tmp/paraplan-probe-" + job_id; }

std::string probe_script_text() {
    const auto data = resources::find("probe/paraplan_probe.py");
    if (!data) throw std::runtime_error("the probe script is not embedded in this build");
    return std::string(*data);
}

RuntimeConfig probe_runtime(const RuntimeConfig& base, const std::string& remote_dir,
                            const std::vector<std::string>& extra_args) {
    RuntimeConfig rc = base;
    if (rc.mode != "torchrun") rc.mode = "direct";
    rc.script = remote_dir + "/paraplan_probe.py";
    rc.args = {remote_dir + "/layout.json"};
    rc.args.insert(rc.args.end(), extra_args.begin(), extra_args.end());
    return rc;
}

std::optional<ProbeResult> probe_result_from_log_text(std::string_view log) {
    while (!log.empty()) {
        const auto nl = log.find('\n');
        const std::string_view line = log.substr(0, nl);
        const std::string payload = find_probe_result_line(line);
        if (!payload.empty()) return probe_result_from_text(payload);
        if (nl == std::string_view::npos) break;
        log.remove_prefix(nl + 1);
    }
    return std::nullopt;
}

std::optional<ProbeResult> probe_result_from_log(const std::string& log_path) {
    std::ifstream in(log_path, std::ios::binary);
    if (!in) return std::nullopt;
    std::ostringstream ss;
    ss << in.rdbuf();
    return probe_result_from_log_text(ss.str());
}

}   // namespace paraplan::runtime
