#pragma once
// Shared set-up of the end-to-end tests: a two-node cluster on the loopback sshd
// (127.0.0.2 and 127.0.0.3), runtime settings, the user's ssh profile that uses the
// fixture's key, config and known_hosts (local values never come from a project), and a
// remote PATH folder holding the stub nvidia-smi.
#include "project/cluster.h"
#include "launch/launch_settings.h"
#include "sshd_fixture.h"

#include <QFile>
#include <QTemporaryDir>

#include <pwd.h>
#include <unistd.h>

inline paraplan::Cluster loopback_cluster(const SshdFixture& f, int nodes = 2, int gpus = 2) {
    paraplan::Cluster c;
    for (int n = 0; n < nodes; ++n) {
        paraplan::Node node;
        node.name = "node" + std::to_string(n);
        node.host = "127.0.0." + std::to_string(n + 2);
        node.port = f.port;
        const passwd* pw = getpwuid(getuid());
        node.user = pw ? pw->pw_name : "root";
        node.gpus = gpus;
        c.nodes.push_back(node);
    }
    return c;
}

// A folder with the stubs of tests/runtime/stub (nvidia-smi and its scenario, the Slurm
// commands, the colossalai and deepspeed launchers).
inline QString stub_bin(const QString& base, const char* scenario = "h100-2gpu.csv") {
    const QString bin = base + "/stub-bin";
    QDir().mkpath(bin);
    QFile::remove(bin + "/nvidia-smi");
    QFile::copy(QString(PARAPLAN_SOURCE_DIR) + "/tests/runtime/stub/nvidia-smi", bin + "/nvidia-smi");
    QFile::setPermissions(bin + "/nvidia-smi", QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    for (const char* tool :
         {"sbatch", "squeue", "sacct", "scancel", "srun", "scontrol", "sinfo", "colossalai", "deepspeed", "rocm-smi"}) {
        QFile::remove(bin + "/" + tool);
        QFile::copy(QString(PARAPLAN_SOURCE_DIR) + "/tests/runtime/stub/" + tool, bin + "/" + tool);
        QFile::setPermissions(bin + "/" + tool, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
    }
    QFile::remove(bin + "/rocm-smi.json");
    QFile::copy(QString(PARAPLAN_TEST_DATA) + "/rocm-smi/mi300x-2gpu.json", bin + "/rocm-smi.json");
    QFile::remove(bin + "/nvidia-smi.csv");
    QFile::copy(QString(PARAPLAN_TEST_DATA) + "/nvidia-smi/" + scenario, bin + "/nvidia-smi.csv");
    return bin;
}

// The local ssh settings of the loopback sshd, as the user's profile `id` holds them.
inline paraplan::runtime::SshProfile loopback_profile(const SshdFixture& f, const std::string& id = "default") {
    paraplan::runtime::SshProfile p;
    p.id = id;
    p.config_file = f.client_config.toStdString();
    p.known_hosts_file = f.known_hosts.toStdString();
    p.identity_file = f.user_key.toStdString();
    return p;
}

// Points Paraplan's settings and state folders (XDG_CONFIG_HOME, XDG_STATE_HOME) into `base`
// for this process and the paraplan-cli it starts, and saves `profile` there as the user's.
inline void use_local_profile(const QString& base, const paraplan::runtime::SshProfile& profile) {
    qputenv("XDG_CONFIG_HOME", (base + "/xdg-config").toUtf8());
    qputenv("XDG_STATE_HOME", (base + "/xdg-state").toUtf8());
    paraplan::runtime::save_ssh_profiles({{profile.id, profile}});
}

inline paraplan::runtime::RuntimeConfig loopback_runtime(const QString& stub) {
    paraplan::runtime::RuntimeConfig rc;
    rc.connect_timeout_s = 5;
    rc.python = "/usr/bin/python3";
    rc.path_prepend = {stub.toStdString()};
    rc.stop_grace_s = 2;
    return rc;
}
