// What a project names, or a folder the user exports into, cannot make a command read a device
// or write through a planted link: a project can no longer make `estimate` read /dev/zero as its
// cluster profile, export replaces links, hosts are names when the project loads. (Every reader
// on /dev/zero, a FIFO, a folder, a 1 GB file and deep nesting: tst_cli_bounded.)
#include "clitest.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QtTest>

#include <sys/stat.h>
#include <unistd.h>

class TestCliReaders : public QObject {
    Q_OBJECT
    QTemporaryDir work;
    QString fifo;

    static void write(const QString& path, const QByteArray& text) {
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
        f.write(text);
    }

private slots:
    void initTestCase() {
        QVERIFY(work.isValid());
        fifo = work.filePath("fifo");
        QCOMPARE(::mkfifo(fifo.toLocal8Bit().constData(), 0600), 0);
    }

    // A project naming /dev/zero or a FIFO as its cluster profile: refused with the field.
    void projectProfileIsBounded() {
        QFile in(example("gpt2-1node"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        for (const QString& target : {QStringLiteral("/dev/zero"), fifo}) {
            const int brace = text.lastIndexOf('}');
            const QByteArray p = text.left(brace) + ", \"estimate\": {\"profile\": \"" + target.toUtf8() + "\"}}\n";
            const QString file = work.filePath("profile.paraplan.json");
            write(file, p);
            const Run r = cli({"estimate", file}, {}, work.path());
            QVERIFY2(r.code != 0, qPrintable(QString::number(r.code) + "\n" + r.err));
            QVERIFY2(QString::fromUtf8(r.err).contains("/estimate/profile") &&
                         QString::fromUtf8(r.err).contains("not a regular file"),
                     qPrintable(r.err));
        }
    }

    // Writing where the user asked never writes through a link someone left there: export into
    // a folder (from an unpacked archive, say) whose hostfile is a link to a file of the user's
    // replaces the link and leaves that file as it was.
    void exportReplacesPlantedLinks() {
        const QString out = work.filePath("gpt2-1node-deepspeed");
        QVERIFY(QDir().mkpath(out));
        const QString victim = work.filePath("authorized_keys");
        write(victim, "ssh-ed25519 AAAA mine\n");
        QVERIFY(QFile::link(victim, out + "/hostfile"));
        const Run r = cli({"export", example("gpt2-1node"), "--format", "deepspeed", "-o", out}, {}, work.path());
        QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
        QFile v(victim);
        QVERIFY(v.open(QIODevice::ReadOnly));
        QCOMPARE(v.readAll(), QByteArray("ssh-ed25519 AAAA mine\n"));
        QVERIFY(!QFileInfo(out + "/hostfile").isSymLink());
    }

    // A node host that is not a host name (a key line, a shell word) is refused when the project
    // loads, so it never reaches a hostfile or a command line.
    void hostsAreNamesWhenLoaded() {
        QFile in(example("gpt2-1node"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        const QByteArray text = in.readAll();
        const QString file = work.filePath("host.paraplan.json");
        for (const QByteArray& host : {QByteArray("ssh-ed25519 AAAA attacker@evil"), QByteArray("$(id)")}) {
            QByteArray p = text;
            p.replace("\"host\": \"localhost\"", "\"host\": \"" + host + "\"");
            QVERIFY(p != text);
            write(file, p);
            const Run r = cli({"validate", file}, {}, work.path());
            QVERIFY2(r.code == 2, qPrintable(QString::number(r.code) + r.err));
            QVERIFY2(QString::fromUtf8(r.err).contains("/cluster/nodes/0/host"), r.err.constData());
        }
    }
};

QTEST_GUILESS_MAIN(TestCliReaders)
#include "tst_cli_readers.moc"
