// job.json is the record `paraplan-cli status` and `stop` read: when it cannot be written
// the job says so (once) in its first process's log and output, and still ends normally.
// The node refuses connections (loopback port 1), so no sshd is needed.
#include "runtime/job.h"

#include <QDir>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;

class TestJobRecord : public QObject {
    Q_OBJECT
private slots:
    void unwritableJobJsonIsReported() {
        QTemporaryDir work;
        const QString folder = work.path() + "/job";
        // A folder where job.json should go: no file can be saved there.
        QVERIFY(QDir().mkpath(folder + "/job.json"));
        Cluster c;
        Node n;
        n.name = "node0";
        n.host = "127.0.0.1";
        n.port = 1;
        c.nodes.push_back(n);
        LaunchPlan plan;
        plan.job_id = "20260101-000000-record";
        plan.mode = "torchrun";
        RemoteProcess p;
        p.label = "node-0";
        p.ranks = {0};
        p.argv = {"true"};
        plan.processes.push_back(p);
        SshOptions ssh;
        ssh.connect_timeout_s = 2;
        Job job(c, plan, ssh, folder.toStdString(), nlohmann::json::object());
        QStringList said;
        connect(&job, &Job::line, this, [&](int, const QString& text, bool) { said << text; });
        job.start();
        QVERIFY(job.waitFinished(30000));
        QCOMPARE(job.state(), Job::State::Failed);   // the connection was refused
        const QStringList notes = said.filter("cannot write " + folder + "/job.json");
        QCOMPARE(notes.size(), 1);   // said once, though every state change retried
        QFile log(folder + "/node-0.log");
        QVERIFY(log.open(QIODevice::ReadOnly));
        QVERIFY(log.readAll().contains("paraplan: cannot write " + (folder + "/job.json").toUtf8()));
    }
};

QTEST_GUILESS_MAIN(TestJobRecord)
#include "tst_job_record.moc"
