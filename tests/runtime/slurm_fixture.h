#pragma once
// Test fixture: the real Slurm on loopback that scripts/slurm-up.sh starts (Debian's
// slurmctld, four slurmd, munge; partition "cpu" without gres, "gpu" with gpu gres).
// start() brings it up (idempotent) and exports SLURM_CONF, so an SshdFixture started
// afterwards passes it to remote commands. `installed` is false only when the Slurm
// binaries are missing: the only case a test may skip.
#include <QFile>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>

class SlurmFixture {
public:
    bool installed = false;
    QString conf, error;

    // `env`: the environment of slurm-up.sh (PARAPLAN_SLURM_DIR, _PORT, _TOPOLOGY for a second
    // cluster of its own); the default is this process's, the shared cluster.
    bool start(const QProcessEnvironment& env = QProcessEnvironment::systemEnvironment()) {
        installed = true;
        for (const char* b : {"/usr/sbin/slurmctld", "/usr/sbin/slurmd", "/usr/bin/sbatch", "/usr/sbin/munged"})
            if (!QFile::exists(b)) installed = false;
        if (!installed) {
            error = "Slurm is not installed (apt-get install slurmctld slurmd slurm-client munge)";
            return false;
        }
        QProcess p;
        p.setProcessEnvironment(env);
        p.start("bash", {QString(PARAPLAN_SOURCE_DIR) + "/scripts/slurm-up.sh", "start"});
        if (!p.waitForFinished(120000)) {
            p.kill();
            error = "scripts/slurm-up.sh start did not finish in 120 s";
            return false;
        }
        if (p.exitCode() != 0) {
            error = "scripts/slurm-up.sh start failed: " + QString::fromUtf8(p.readAllStandardError());
            return false;
        }
        conf = QString::fromUtf8(p.readAllStandardOutput()).trimmed();
        qputenv("SLURM_CONF", conf.toUtf8());
        return true;
    }

    // A Slurm command run here (same machine as the nodes): its stdout.
    static QString run(const QString& prog, const QStringList& args) {
        QProcess p;
        p.start(prog, args);
        p.waitForFinished(30000);
        return QString::fromUtf8(p.readAllStandardOutput());
    }
};
