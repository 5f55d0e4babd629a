#include "runtime/probe_job.h"

#include "shell/shell_quote.h"
#include "ssh/ssh_command.h"

#include <QProcess>
#include <QStringList>

#include <utility>

namespace paraplan::runtime {

std::string upload_probe(const SshNode& node, const std::string& remote_dir, const std::string& layout_json,
                         int timeout_ms) {
    // One command per file: `cat > file` reads stdin until EOF. The folder is the user's own
    // (0700, made for this run), so nothing else can have put a link there.
    const std::pair<std::string, std::string> files[] = {{"paraplan_probe.py", probe_script_text()},
                                                         {"layout.json", layout_json}};
    for (const auto& [name, text] : files) {
        const auto r = node.run(remote_sh("umask 077 && [ -d \"$1\" ] && [ ! -L \"$1\" ] && [ -O \"$1\" ] && "
                                          "cat > \"$1/$2\"",
                                          {remote_dir, name}),
                                timeout_ms, text.empty() ? std::string("\n") : text);
        if (r.exit_code != 0)
            return "cannot upload " + name + " to " + node.target().host + ":" + remote_dir + ": " +
                   (r.error.message.empty() ? r.err : r.error.message);
    }
    return "";
}

namespace {
// Removes the probe's folder from the first `count` nodes of the cluster.
void remove_from_nodes(const Cluster& cluster, const SshOptions& ssh, const std::string& dir, int timeout_ms,
                       std::size_t count) {
    if (probe_dir_from_output(dir).empty()) return;   // only ever a folder the probe made
    for (std::size_t k = 0; k < count && k < cluster.nodes.size(); ++k) {
        SshNode node(ssh_target(cluster.nodes[k]), ssh);
        if (node.waitConnected(timeout_ms)) node.run(probe_cleanup_command(dir), timeout_ms);
    }
}
}   // namespace

ProbeFolder prepare_probe(const Cluster& cluster, const SshOptions& ssh, const std::string& layout_json,
                          int connect_timeout_ms) {
    ProbeFolder out;
    std::size_t made = 0;   // nodes holding the folder, to clean up on an error
    auto failed = [&](const std::string& why) {
        out.error = why;
        remove_from_nodes(cluster, ssh, out.dir, connect_timeout_ms, made);
        return out;
    };
    for (std::size_t i = 0; i < cluster.nodes.size(); ++i) {
        const auto& n = cluster.nodes[i];
        SshNode node(ssh_target(n), ssh);
        if (!node.waitConnected(connect_timeout_ms)) {
            out.unreachable = is_unreachable(node.error().kind) || node.state() == SshNode::State::Connecting;
            return failed(n.name + ": " + node.error().message + " (fix: " + node.error().fix + ")");
        }
        if (i == 0) {
            const auto r = node.run(probe_mktemp_command(), connect_timeout_ms);
            out.dir = probe_dir_from_output(r.out);
            if (r.exit_code != 0 || out.dir.empty())
                return failed("cannot make a private folder for the probe on " + n.name +
                              " (mktemp -d): " + (r.error.message.empty() ? r.err : r.error.message));
        } else {
            const auto r = node.run(probe_claim_command(out.dir), connect_timeout_ms);
            if (r.exit_code != 0)
                return failed("cannot make the probe's folder on " + n.name + ": " +
                              (r.error.message.empty() ? r.err : r.error.message));
        }
        made = i + 1;
        if (std::string err = upload_probe(node, out.dir, layout_json); !err.empty()) return failed(err);
    }
    return out;
}

void remove_probe_folder(const Cluster& cluster, const SshOptions& ssh, const std::string& dir, int timeout_ms) {
    remove_from_nodes(cluster, ssh, dir, timeout_ms, cluster.nodes.size());
}

void remove_probe_folder_detached(const Cluster& cluster, const SshOptions& ssh, const std::string& dir) {
    if (probe_dir_from_output(dir).empty()) return;
    SshOptions direct = ssh;
    direct.control_dir.clear();   // the job's shared connections are gone
    for (const auto& n : cluster.nodes) {
        const auto argv = ssh_command_argv(ssh_target(n), direct, probe_cleanup_command(dir));
        QStringList args;
        for (std::size_t i = 1; i < argv.size(); ++i) args << QString::fromStdString(argv[i]);
        QProcess::startDetached(QString::fromStdString(argv[0]), args);
    }
}

}   // namespace paraplan::runtime
