#include "probe/probe_launch.h"
#include "util/input_error.h"
#include "util/read_file.h"

#include "ssh/ssh_command.h"
#include "util/resources.h"

#include <cctype>

#include <fstream>
#include <sstream>
#include <stdexcept>

namespace paraplan::runtime {

std::string probe_mktemp_command() {
    std::string command = "umask 077 && mktemp -d ";
    command += kProbeDirPrefix;
    command += "XXXXXXXXXX";
    return remote_sh(command);
}

std::string probe_dir_from_output(std::string_view out) {
    while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.remove_suffix(1);
    const std::string_view prefix = kProbeDirPrefix;
    if (out.size() != prefix.size() + 10 || out.substr(0, prefix.size()) != prefix) return "";
    for (char c : out.substr(prefix.size()))
        if (!std::isalnum(static_cast<unsigned char>(c))) return "";
    return std::string(out);
}

std::string probe_claim_command(const std::string& dir) {
    // mkdir without -p fails on anything already there, a planted link included; a folder that
    // is there must be this user's own 0700 folder (the same /tmp as a node before).
    return remote_sh(
        "d=\"$1\"; umask 077\n"
        "if mkdir -m 700 -- \"$d\" 2>/dev/null; then exit 0; fi\n"
        "if [ -d \"$d\" ] && [ ! -L \"$d\" ] && [ -O \"$d\" ] && [ \"$(stat -c %a -- \"$d\")\" = 700 ]; then exit 0; "
        "fi\n"
        "echo \"$d exists and is not a private folder of this user (a link, another user's, or open to others)\" >&2\n"
        "exit 3\n",
        {dir});
}

std::string probe_cleanup_command(const std::string& dir) {
    return remote_sh("d=\"$1\"; [ -d \"$d\" ] && [ ! -L \"$d\" ] && [ -O \"$d\" ] && rm -rf -- \"$d\"; exit 0", {dir});
}

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
    std::string text;
    try {
        text = read_input_file(log_path, "log", kMaxLogBytes);
    } catch (const InputError&) {
        return std::nullopt;   // not written yet (or not a log)
    }
    return probe_result_from_log_text(text);
}

}   // namespace paraplan::runtime
