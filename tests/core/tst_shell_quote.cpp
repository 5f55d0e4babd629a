// Quoting: hostile values go through a real /bin/sh and must arrive as the same argv.
#include "launch/launch_plan.h"
#include "shell/shell_quote.h"
#include "ssh/ssh_command.h"

#include <QProcess>
#include <QtTest>

using namespace paraplan::runtime;

namespace {
// Runs `text` with /bin/sh -c and returns the NUL-separated words it printf'd.
QStringList run_sh(const std::string& text) {
    QProcess p;
    p.start("/bin/sh", {"-c", QString::fromStdString(text)});
    p.waitForFinished(10000);
    const QByteArray out = p.readAllStandardOutput();
    QStringList words;
    for (const QByteArray& w : out.split('\0')) words << QString::fromUtf8(w);
    if (!words.isEmpty()) words.removeLast();   // after the final NUL
    return words;
}

const std::vector<std::string> kHostile{
    "plain",
    "with space",
    "it's",
    "'",
    "\"double\"",
    "$HOME",
    "${PATH}",
    "`id`",
    "$(touch /tmp/paraplan-pwned)",
    "a; rm -rf /tmp/paraplan-pwned",
    "x && echo y | cat > /tmp/paraplan-pwned",
    "back\\slash",
    "new\nline",
    "tab\there",
    "*",
    "~",
    "-n",
    "--opt=v",
    "",
    "é ünïcode",
    "'\"'\"'",
    "!bang",
    "#hash",
    "a=b",
};
}   // namespace

class TestShellQuote : public QObject {
    Q_OBJECT
private slots:
    void plainWordsStayReadable() {
        QCOMPARE(sh_quote("train.py"), std::string("train.py"));
        QCOMPARE(sh_quote("--lr=0.1"), std::string("--lr=0.1"));
        QCOMPARE(sh_quote("/a/b-c_d"), std::string("/a/b-c_d"));
        QCOMPARE(sh_quote(""), std::string("''"));
        QCOMPARE(sh_quote("it's"), std::string("'it'\\''s'"));
        QCOMPARE(sh_quote("~"), std::string("'~'"));
    }

    void hostileArgvSurvivesTheShell() {
        QFile::remove("/tmp/paraplan-pwned");
        const std::string cmd = "printf '%s\\0' " + sh_join(kHostile);
        const QStringList got = run_sh(cmd);
        QCOMPARE(got.size(), static_cast<qsizetype>(kHostile.size()));
        for (std::size_t i = 0; i < kHostile.size(); ++i)
            QCOMPARE(got[static_cast<qsizetype>(i)], QString::fromStdString(kHostile[i]));
        QVERIFY(!QFile::exists("/tmp/paraplan-pwned"));
    }

    void nestedQuotingThroughRemoteSh() {
        // remote_sh wraps a script in another quoted layer, as ssh hands it to the login shell.
        QFile::remove("/tmp/paraplan-pwned");
        const std::string script = "printf '%s\\0' \"$@\"";
        const std::string outer = remote_sh(script, kHostile);
        const QStringList got = run_sh(outer);
        QCOMPARE(got.size(), static_cast<qsizetype>(kHostile.size()));
        for (std::size_t i = 0; i < kHostile.size(); ++i)
            QCOMPARE(got[static_cast<qsizetype>(i)], QString::fromStdString(kHostile[i]));
        QVERIFY(!QFile::exists("/tmp/paraplan-pwned"));
    }

    void envNames() {
        QVERIFY(is_env_name("NCCL_DEBUG"));
        QVERIFY(is_env_name("_x1"));
        QVERIFY(!is_env_name("1X"));
        QVERIFY(!is_env_name("A-B"));
        QVERIFY(!is_env_name("A;B"));
        QVERIFY(!is_env_name(""));
    }
};

QTEST_GUILESS_MAIN(TestShellQuote)
#include "tst_shell_quote.moc"
