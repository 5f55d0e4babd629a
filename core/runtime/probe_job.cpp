#include "runtime/probe_job.h"

#include "shell/shell_quote.h"
#include "ssh/ssh_command.h"

#include <utility>

namespace paraplan::runtime {

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

}   // namespace paraplan::runtime
