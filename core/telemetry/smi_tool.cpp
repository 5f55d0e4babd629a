#include "telemetry/smi_tool.h"

#include "catalog/catalog.h"
#include "project/project_gpu.h"
#include "shell/shell_quote.h"
#include "ssh/ssh_command.h"
#include "telemetry/nvidia_smi.h"
#include "telemetry/rocm_smi.h"

#include <cstdio>

namespace paraplan::runtime {

SmiTool smi_tool_for(const Node& node) {
    const GpuSpec* g = catalog::find_gpu(node.gpu);
    return g && g->vendor == "amd" ? SmiTool::Rocm : SmiTool::Nvidia;
}

SmiTool smi_tool_for(const Cluster& cluster, const Node& node) {
    const GpuSpec* g = find_gpu(cluster, node.gpu);
    return g && g->vendor == "amd" ? SmiTool::Rocm : SmiTool::Nvidia;
}

const char* smi_tool_name(SmiTool tool) { return tool == SmiTool::Rocm ? "rocm-smi" : "nvidia-smi"; }

std::string telemetry_command(int interval_ms, const std::vector<std::string>& path_prepend, bool once, SmiTool tool) {
    std::string s;
    if (!path_prepend.empty()) {
        std::string path;
        for (const auto& d : path_prepend) path += sh_quote(d) + ":";
        s += "PATH=" + path + "\"$PATH\"; export PATH\n";
    }
    if (once) {
        // One reading, in its own process group, under a watchdog on the channel's stdin:
        // closing it (a timeout here) ends the tool on the node, so a hung nvidia-smi is
        // never left behind. The status is the tool's (127 when it is missing).
        std::string one;
        if (tool == SmiTool::Rocm) {
            std::vector<std::string> argv{"rocm-smi"};
            for (auto& a : rocm_smi_args()) argv.push_back(a);
            one = sh_join(argv) + " || exit $?; echo; echo " + kRocmSmiEndMarker;
        } else {
            auto argv = nvidia_smi_argv(interval_ms);
            argv.resize(3);
            one = "exec " + sh_join(argv);
        }
        s += "command -v " + std::string(smi_tool_name(tool)) + " >/dev/null 2>&1 || exit 127\n";
        s += "exec 3<&0\n";
        s += "setsid /bin/sh -c " + sh_quote(one) + " </dev/null 3<&- &\n";
        s += "p=$!\n";
        s += "{ cat >/dev/null; kill -TERM -$p; sleep 1; kill -KILL -$p; } <&3 3<&- >/dev/null 2>&1 &\n";
        s += "w=$!\n";
        s += "exec 3<&-\n";
        s += "wait $p; rc=$?\n";
        s += "kill $w 2>/dev/null\n";
        s += "exit $rc\n";
        return remote_sh(s);
    }
    if (tool == SmiTool::Rocm) {
        // rocm-smi has no streaming mode: a loop, each reading ended by the marker; a missing
        // tool ends the loop with its status (127). The loop ends with the channel (SIGPIPE/HUP).
        std::vector<std::string> argv{"rocm-smi"};
        for (auto& a : rocm_smi_args()) argv.push_back(a);
        const std::string one = sh_join(argv) + " || exit $?; echo; echo " + kRocmSmiEndMarker;
        char sleep_s[32];
        std::snprintf(sleep_s, sizeof sleep_s, "%.3f", interval_ms / 1000.0);
        return remote_sh(s + "while :; do " + one + "; sleep " + sleep_s + " || exit 0; done\n");
    }
    auto argv = nvidia_smi_argv(interval_ms);
    // exec: closing the channel ends nvidia-smi with it.
    s += "exec " + sh_join(argv) + "\n";
    return remote_sh(s);
}

}   // namespace paraplan::runtime
