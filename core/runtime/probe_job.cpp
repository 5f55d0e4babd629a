#include "runtime/probe_job.h"

#include "shell/shell_quote.h"
#include "ssh/ssh_command.h"
#include "util/resources.h"

#include <fstream>
#include <stdexcept>

namespace paraplan::runtime {

std::string probe_remote_dir(const std::string& job_id) { return "/tmp/paraplan-probe-" + job_id; }

std::string probe_script_text() {
    const auto data = resources::find("probe/paraplan_probe.py");
    if (!data) throw std::runtime_error("the probe script is not embedded in this build");
    return std::string(*data);
}

std::string upload_probe(const SshNode& node, const std::string& remote_dir, const std::string& layout_json,
                         int timeout_ms) {
    // One command per file: `cat > file` reads stdin until EOF.
    const std::string dir = sh_quote(remote_dir);
    const std::pair<std::string, std::string> files[] = {{"paraplan_probe.py", probe_script_text()},
                                                         {"layout.json", layout_json}};
    for (const auto& [name, text] : files) {
        const auto r = node.run(remote_sh("umask 077 && mkdir -p " + dir + " && cat > " + dir + "/" + name), timeout_ms,
                                text.empty() ? std::string("\n") : text);
        if (r.exit_code != 0)
            return "cannot upload " + name + " to " + node.target().host + ":" + remote_dir + ": " +
                   (r.error.message.empty() ? r.err : r.error.message);
    }
    return "";
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

std::optional<ProbeResult> probe_result_from_log(const std::string& log_path) {
    std::ifstream in(log_path);
    std::string line;
    while (std::getline(in, line)) {
        const std::string payload = find_probe_result_line(line);
        if (!payload.empty()) return probe_result_from_text(payload);
    }
    return std::nullopt;
}

}   // namespace paraplan::runtime
