// Every command's options are declared once (app/cli/cmd_*.cpp) and CLI11 parses them: an
// unknown option or a missing value is refused with exit 2 and a message naming it, and each
// command's --help, generated from the declarations, lists exactly what the parser takes.
#include <QJsonArray>
#include <QRegularExpression>
#include <QtTest>

#include "clitest.h"

namespace {

// Command names as `paraplan-cli --help` lists them.
QStringList commandNames() {
    const QString help = QString::fromUtf8(cli({QStringLiteral("--help")}).out);
    QStringList names;
    static const QRegularExpression line(QStringLiteral("^  ([a-z][a-z0-9-]*)  "), QRegularExpression::MultilineOption);
    const QString commands = help.mid(help.indexOf(QStringLiteral("Commands:\n")));
    for (auto it = line.globalMatch(commands.left(commands.indexOf(QStringLiteral("\n\n")))); it.hasNext();)
        names << it.next().captured(1);
    return names;
}

struct Listed {
    QString name;   // "--gpu" or "-o"
    bool takes_value = false;
};

// The "Options:" section of a command's --help: "  --name VALUE   help" rows.
QList<Listed> listedOptions(const QString& usage) {
    QList<Listed> out;
    static const QRegularExpression row(QStringLiteral("^  (--[a-z0-9-]+|-[a-z])( \\S+)?(\\s|$)"),
                                        QRegularExpression::MultilineOption);
    const qsizetype at = usage.indexOf(QStringLiteral("\nOptions:\n"));
    if (at < 0) return out;
    for (auto it = row.globalMatch(usage.mid(at)); it.hasNext();) {
        const auto m = it.next();
        out.push_back({m.captured(1), !m.captured(2).isEmpty()});
    }
    return out;
}

}   // namespace

class TestCliOptions : public QObject {
    Q_OBJECT
private slots:
    // The case: a typo names the option and the one meant, exit 2, nothing planned.
    void unknownOptionExitTwo() {
        const Run r = cli({"plan", "--gpuz", "8"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("paraplan-cli plan: unknown option --gpuz; did you mean --gpu?"), r.err);
        QVERIFY(r.out.isEmpty());
        const Run eq = cli({"validate", example("gpt2-1node"), "--jsno=1"});
        QCOMPARE(eq.code, 2);
        QVERIFY2(eq.err.contains("unknown option --jsno; did you mean --json?"), eq.err);
        const Run shortopt = cli({"validate", example("gpt2-1node"), "-x"});
        QCOMPARE(shortopt.code, 2);
        QVERIFY2(shortopt.err.contains("unknown option -x"), shortopt.err);
        // -o is an option of the commands that write a file, not of the others.
        const Run o = cli({"validate", example("gpt2-1node"), "-o", "out.json"});
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("unknown option -o"), o.err);
    }

    void missingValueRefused() {
        const Run r = cli({"plan", "--model", "gpt2", "--gpu"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("paraplan-cli plan: --gpu needs a value (ID)"), r.err);
        const Run o = cli({"import", example("gpt2-1node"), "-o"});
        QCOMPARE(o.code, 2);
        QVERIFY2(o.err.contains("-o needs a value (PROJECT)"), o.err);
        const Run flag = cli({"validate", example("gpt2-1node"), "--json=yes"});
        QCOMPARE(flag.code, 2);
        QVERIFY2(flag.err.contains("--json takes no value"), flag.err);
        QVERIFY(flag.out.isEmpty());
    }

    // --key=value, --key value, a repeat (the last counts) and an option before the file all parse
    // as before CLI11.
    void valueForms() {
        const Run eq = cli({"plan", "--model=gpt2", "--gpu=h100-sxm", "--nodes=1", "--global-batch=8", "--seq=1024",
                            "--top", "5", "--top=1", "--json"});
        QVERIFY2(eq.code == 0, eq.err);
        const QJsonObject o = parseObject(eq.out);
        QCOMPARE(o.value(QStringLiteral("results")).toArray().size(), 1);
        QCOMPARE(o.value(QStringLiteral("world_size")).toInt(), 8);
        const Run before = cli({"validate", "--json", example("gpt2-1node")});
        QCOMPARE(before.code, 0);
        QCOMPARE(parseObject(before.out).value(QStringLiteral("valid")).toBool(), true);
        // --key= is an empty value, which the command then judges (here: no such GPU).
        const Run empty = cli(
            {"plan", "--model", "gpt2", "--gpu=", "--nodes", "1", "--global-batch", "8", "--seq", "9"});
        QCOMPARE(empty.code, 2);
        QVERIFY2(empty.err.contains("--gpu '' is not in the catalog"), empty.err);
    }

    // Each command's --help is generated from its declarations: every option in its Options
    // table is one the parser takes (a value option refuses a missing value, a flag refuses a
    // value, neither is "unknown"), and every option its usage forms name is in that table.
    void everyHelpListsWhatTheParserTakes() {
        const QStringList names = commandNames();
        QVERIFY2(names.size() >= 22, qPrintable(names.join(QLatin1Char(' '))));
        static const QRegularExpression named(QStringLiteral("(?:^|[\\s\\[(|])(--[a-z0-9-]+|-o)\\b"));
        for (const QString& n : names) {
            const Run h = cli({n, QStringLiteral("--help")});
            QCOMPARE(h.code, 0);
            const QString usage = QString::fromUtf8(h.out);
            QVERIFY2(usage.startsWith(QStringLiteral("Usage: paraplan-cli ") + n + QLatin1Char(' ')), qPrintable(n));
            const QList<Listed> listed = listedOptions(usage);
            QVERIFY2(!listed.isEmpty(), qPrintable(n + QStringLiteral(": no Options table")));
            QStringList listedNames;
            for (const Listed& o : listed) {
                listedNames << o.name;
                const Run r = o.takes_value ? cli({n, o.name}) : cli({n, o.name + QStringLiteral("=x")});
                const QString what = n + QLatin1Char(' ') + o.name + QStringLiteral(": ") + QString::fromUtf8(r.err);
                QCOMPARE(r.code, 2);
                QVERIFY2(!r.err.contains("unknown option"), qPrintable(what));
                QVERIFY2(r.err.contains((o.name + (o.takes_value ? QStringLiteral(" needs a value")
                                                                 : QStringLiteral(" takes no value")))
                                            .toUtf8()),
                         qPrintable(what));
            }
            const QString forms = usage.left(usage.indexOf(QStringLiteral("\n\n")));
            for (auto it = named.globalMatch(forms); it.hasNext();) {
                const QString opt = it.next().captured(1);
                QVERIFY2(listedNames.contains(opt), qPrintable(n + QStringLiteral(": usage names ") + opt));
            }
        }
    }

    // One table of exit codes, printed by --help, the man page and docs/cli.md alike.
    void exitCodeTable() {
        const QString help = QString::fromUtf8(cli({QStringLiteral("--help")}).out);
        const QString man = QString::fromUtf8(cli({QStringLiteral("--man")}).out);
        const QString md = QString::fromUtf8(cli({QStringLiteral("--markdown")}).out);
        for (int code = 0; code <= 4; ++code) {
            QVERIFY2(help.contains(QRegularExpression(QStringLiteral("\n  %1  \\S").arg(code))), qPrintable(help));
            QVERIFY2(man.contains(QStringLiteral(".TP\n%1\n").arg(code)), qPrintable(man.right(600)));
            QVERIFY2(md.contains(QRegularExpression(QStringLiteral("\n\\| %1 \\| \\S").arg(code))), "markdown");
        }
        QVERIFY(help.contains(QStringLiteral("cluster could not be reached")));
        QVERIFY(man.contains(QStringLiteral("cluster could not be reached")));
    }
};

QTEST_GUILESS_MAIN(TestCliOptions)
#include "tst_cli_options.moc"
