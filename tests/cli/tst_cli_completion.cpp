// The shell completions generated from paraplan-cli's command table (--completion bash|zsh,
// written by the build for packaging): the bash script parses, registers itself for
// paraplan-cli, and completes command names, a command's declared options, the words an
// option's value is chosen from, and a command's first word.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

class TestCliCompletion : public QObject {
    Q_OBJECT

    QTemporaryDir tmp_;
    QString script_;

    // Runs bash with the completion script sourced and `body` after it; stdout.
    QByteArray bash(const QString& body, int* code = nullptr) {
        QProcess p;
        p.start(QStringLiteral("bash"),
                {QStringLiteral("--norc"), QStringLiteral("--noprofile"), QStringLiteral("-c"),
                 QStringLiteral("source \"$1\" || exit 9\n") + body, QStringLiteral("bash"), script_});
        p.waitForFinished(60000);
        if (code) *code = p.exitCode();
        return p.readAllStandardOutput();
    }

    // What the completion function offers for the words typed (the last one being completed).
    QStringList complete(const QStringList& typed) {
        QString words;
        for (const QString& w : typed) words += QStringLiteral(" '") + w + QLatin1Char('\'');
        const QByteArray out = bash(QStringLiteral("COMP_WORDS=(paraplan-cli%1); COMP_CWORD=%2; _paraplan_cli; "
                                                   "printf '%s\\n' \"${COMPREPLY[@]}\"")
                                        .arg(words)
                                        .arg(typed.size()));
        return QString::fromUtf8(out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        const Run r = cli({QStringLiteral("--completion"), QStringLiteral("bash")});
        QCOMPARE(r.code, 0);
        script_ = tmp_.filePath(QStringLiteral("paraplan-cli.bash"));
        QFile f(script_);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(r.out);
    }

    void bashScriptIsValid() {
        QProcess p;
        p.start(QStringLiteral("bash"), {QStringLiteral("-n"), script_});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(p.readAllStandardError().isEmpty(), "bash -n complained");
        int code = -1;
        const QByteArray reg = bash(QStringLiteral("complete -p paraplan-cli"), &code);
        QCOMPARE(code, 0);
        QVERIFY2(reg.contains("-F _paraplan_cli") && reg.trimmed().endsWith("paraplan-cli"), reg);
        const Run bad = cli({QStringLiteral("--completion"), QStringLiteral("fish")});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("bash or zsh"), bad.err);
    }

    void completesCommandNames() {
        QCOMPARE(complete({QStringLiteral("va")}), QStringList{QStringLiteral("validate")});
        const QStringList im = complete({QStringLiteral("im")});
        QCOMPARE(im, (QStringList{QStringLiteral("import"), QStringLiteral("import-hf")}));
        QCOMPARE(complete({QStringLiteral("help"), QStringLiteral("expl")}),
                 QStringList{QStringLiteral("explain-error")});
    }

    void completesDeclaredOptions() {
        QStringList gp = complete({QStringLiteral("plan"), QStringLiteral("--gp")});
        gp.sort();
        QCOMPARE(gp, (QStringList{QStringLiteral("--gpu"), QStringLiteral("--gpus-per-node")}));
        // Another command's options are not offered: estimate takes --profile and --json only.
        QStringList est = complete({QStringLiteral("estimate"), QStringLiteral("x.json"), QStringLiteral("--")});
        est.sort();
        QCOMPARE(est, (QStringList{QStringLiteral("--help"), QStringLiteral("--json"), QStringLiteral("--profile")}));
        QCOMPARE(complete({QStringLiteral("export"), QStringLiteral("-")}).contains(QStringLiteral("-o")), true);
    }

    void completesValuesAndFirstWords() {
        QCOMPARE(complete({QStringLiteral("plan"), QStringLiteral("--objective"), QStringLiteral("m")}),
                 QStringList{QStringLiteral("memory")});
        QCOMPARE(complete({QStringLiteral("ssh-profile"), QStringLiteral("set"), QStringLiteral("x"),
                           QStringLiteral("--strict-host-key-checking"), QString()}),
                 (QStringList{QStringLiteral("yes"), QStringLiteral("accept-new")}));
        QStringList cat = complete({QStringLiteral("catalog"), QStringLiteral("s")});
        cat.sort();
        QCOMPARE(cat, (QStringList{QStringLiteral("shardformer"), QStringLiteral("systems")}));
        // A file where a file goes: the value of --project.
        QFile f(tmp_.filePath(QStringLiteral("zz-project.paraplan.json")));
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.close();
        QCOMPARE(complete({QStringLiteral("plan"), QStringLiteral("--project"), tmp_.filePath(QStringLiteral("zz-"))}),
                 QStringList{f.fileName()});
    }

    // The build writes both scripts (packaging installs them) from the same binary.
    void buildWritesTheScripts() {
        for (const char* shell : {"bash", "zsh"}) {
            const QString path = QStringLiteral(PARAPLAN_BINARY_DIR "/completions/%1/%2")
                                     .arg(QLatin1String(shell),
                                          QLatin1String(shell == QByteArray("zsh") ? "_paraplan-cli" : "paraplan-cli"));
            // The test's target depends on paraplan_packaging_assets (tests/CMakeLists.txt): built.
            QFile f(path);
            QVERIFY2(f.open(QIODevice::ReadOnly), qPrintable(path));
            QCOMPARE(f.readAll(), cli({QStringLiteral("--completion"), QLatin1String(shell)}).out);
        }
    }

    void zshScript() {
        const QByteArray z = cli({QStringLiteral("--completion"), QStringLiteral("zsh")}).out;
        QVERIFY(z.startsWith("#compdef paraplan-cli\n"));
        QVERIFY(z.contains("'--gpu=[catalog GPU id (paraplan-cli catalog gpus)]:ID:_files'"));
        QVERIFY(z.contains(
            "'--objective=[what to rank by (default time)]:time|memory|throughput:(time memory throughput)'"));
        const QString zsh = QStandardPaths::findExecutable(QStringLiteral("zsh"));
        if (zsh.isEmpty()) QSKIP("no zsh here to parse the script with (zsh -n)");
        const QString path = tmp_.filePath(QStringLiteral("_paraplan-cli"));
        QFile f(path);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(z);
        f.close();
        QProcess p;
        p.start(zsh, {QStringLiteral("-n"), path});
        QVERIFY(p.waitForFinished(60000));
        QCOMPARE(p.exitCode(), 0);
    }
};

QTEST_GUILESS_MAIN(TestCliCompletion)
#include "tst_cli_completion.moc"
