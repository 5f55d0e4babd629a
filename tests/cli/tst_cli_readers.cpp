// Every file a command reads is taken only when it is a regular file of a stated size, checked
// before a byte is read: /dev/zero, a FIFO and a 1 GB file get a clear refusal naming the file
// (exit 2) instead of filling memory or waiting forever, and 200,000-deep nesting is refused
// where it once crashed `calibrate`. A project can no longer make `estimate` read /dev/zero as
// its cluster profile.
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
    QString fifo, big, deep;

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
        big = work.filePath("big.json");   // sparse: 1 GB long, no disk used
        {
            QFile f(big);
            QVERIFY(f.open(QIODevice::WriteOnly));
            QVERIFY(f.resize(qint64(1) << 30));
        }
        deep = work.filePath("deep.json");
        write(deep, "{\"runs\": " + QByteArray(200000, '[') + QByteArray(200000, ']') + "}");
    }

    void unreadableInputsAreRefusedAtOnce_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("why");
        const QString notRegular = "not a regular file";
        for (const QString& f : {QStringLiteral("/dev/zero"), QStringLiteral("@fifo")}) {
            const QString tag = f == "@fifo" ? "fifo" : "zero";
            QTest::newRow(qPrintable("validate " + tag)) << QStringList{"validate", f} << notRegular;
            QTest::newRow(qPrintable("estimate " + tag)) << QStringList{"estimate", f} << notRegular;
            QTest::newRow(qPrintable("import " + tag))
                << QStringList{"import", f, "--format", "deepspeed"} << notRegular;
            QTest::newRow(qPrintable("import-hf " + tag)) << QStringList{"import-hf", f} << notRegular;
            QTest::newRow(qPrintable("calibrate " + tag)) << QStringList{"calibrate", f} << notRegular;
            QTest::newRow(qPrintable("explain-error " + tag))
                << QStringList{"explain-error", "--file", f} << notRegular;
        }
        QTest::newRow("validate 1 GB") << QStringList{"validate", "@big"} << "more than the 64 MiB allowed";
        QTest::newRow("import-hf 1 GB") << QStringList{"import-hf", "@big"} << "more than the 64 MiB allowed";
        QTest::newRow("calibrate deep") << QStringList{"calibrate", "@deep"} << "nested more than 256 levels";
    }
    void unreadableInputsAreRefusedAtOnce() {
        QFETCH(QStringList, args);
        QFETCH(QString, why);
        for (QString& a : args) a.replace("@fifo", fifo).replace("@big", big).replace("@deep", deep);
        const Run r = cli(args, {}, work.path());   // clitest.h: a 120 s guard, never a timing assertion
        QVERIFY2(r.code == 2, qPrintable(args.join(' ') + " -> " + QString::number(r.code) + "\n" + r.err));
        QVERIFY2(QString::fromUtf8(r.err).contains(why), qPrintable(r.err));
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
