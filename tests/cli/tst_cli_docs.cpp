// docs/cli.md is `paraplan-cli --markdown`, generated from the command table that
// --help and --man print: this test fails when the committed file is stale, and
// checks that the Markdown really holds every command and its usage. The projects the
// guides open (docs/projects/*.paraplan.json) validate clean.
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QtTest>

namespace {

QByteArray cliOut(const QStringList& args, int* code = nullptr) {
    QProcess p;
    p.start(QStringLiteral(PARAPLAN_CLI), args);
    p.waitForFinished(60000);
    if (code) *code = p.exitCode();
    return p.readAllStandardOutput();
}

// Command names as `paraplan-cli --help` lists them ("  name   summary").
QStringList helpCommands() {
    QStringList names;
    const QString help = QString::fromUtf8(cliOut({QStringLiteral("--help")}));
    const qsizetype from = help.indexOf(QStringLiteral("Commands:\n"));
    const qsizetype to = help.indexOf(QStringLiteral("\n\n"), from);
    static const QRegularExpression line(QStringLiteral("^  ([a-z][a-z0-9-]*)  "));
    for (const QString& l : help.mid(from, to - from).split(QLatin1Char('\n'))) {
        const auto m = line.match(l);
        if (m.hasMatch()) names << m.captured(1);
    }
    return names;
}

}   // namespace

class TestCliDocs : public QObject {
    Q_OBJECT
private slots:
    void markdownHasEveryCommandAndUsage() {
        int code = -1;
        const QString md = QString::fromUtf8(cliOut({QStringLiteral("--markdown")}, &code));
        QCOMPARE(code, 0);
        const QStringList names = helpCommands();
        QVERIFY2(names.size() >= 10, qPrintable(names.join(QLatin1Char(' '))));
        for (const QString& n : names) {
            QVERIFY2(md.contains(QStringLiteral("\n## %1\n").arg(n)), qPrintable(n));
            QVERIFY2(md.contains(QStringLiteral("(#%1)").arg(n)), qPrintable(n));
            // The section holds the command's own usage text, word for word.
            const QString usage = QString::fromUtf8(cliOut({n, QStringLiteral("--help")}));
            QVERIFY2(usage.startsWith(QStringLiteral("Usage: paraplan-cli ") + n), qPrintable(usage.left(80)));
            QVERIFY2(md.contains(usage), qPrintable(n));
        }
        // Code fences balance, so the page renders.
        QCOMPARE(md.count(QStringLiteral("```")) % 2, 0);
    }

    void docsProjectsAreValid() {
        const QDir dir(QStringLiteral(PARAPLAN_SOURCE_DIR "/docs/projects"));
        const QStringList files = dir.entryList({QStringLiteral("*.paraplan.json")}, QDir::Files);
        QVERIFY(!files.isEmpty());
        for (const QString& f : files) {
            int code = -1;
            const QByteArray out = cliOut({QStringLiteral("validate"), dir.filePath(f)}, &code);
            QVERIFY2(code == 0, qPrintable(f + QStringLiteral(": ") + QString::fromUtf8(out)));
            QVERIFY2(out.contains(": valid ("), qPrintable(f));   // notes and warnings allowed, no error
        }
    }

    void docsCliMdIsCurrent() {
        QFile f(QStringLiteral(PARAPLAN_SOURCE_DIR "/docs/cli.md"));
        QVERIFY2(f.open(QIODevice::ReadOnly),
                 "docs/cli.md is missing: run "
                 "`build/dev/app/paraplan-cli --markdown > docs/cli.md`");
        const QByteArray committed = f.readAll();
        const QByteArray generated = cliOut({QStringLiteral("--markdown")});
        QVERIFY2(committed == generated,
                 "docs/cli.md differs from `paraplan-cli --markdown`: regenerate it with "
                 "`build/dev/app/paraplan-cli --markdown > docs/cli.md` (or scripts/screenshots.sh) and commit it");
    }
};

QTEST_GUILESS_MAIN(TestCliDocs)
#include "tst_cli_docs.moc"
