// Every command the README shows runs as written: the `sh` block under "The command line" is run
// line by line from a scratch folder that sees the repository's resources/, docs/ and tests/ (so
// the files the commands write, trace.json, best.paraplan.json, ..., stay out of the source tree),
// with paraplan-cli on PATH, and each line must exit 0. Every `paraplan-cli NAME` the program's own
// messages name is a command that exists.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QtTest>

namespace {

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

QStringList cliCommands() {
    QProcess p;
    p.start(QStringLiteral(PARAPLAN_CLI), {QStringLiteral("--help")});
    p.waitForFinished(60000);
    const QString help = QString::fromUtf8(p.readAllStandardOutput());
    QStringList names;
    static const QRegularExpression line(QStringLiteral("^  ([a-z][a-z0-9-]*)  "), QRegularExpression::MultilineOption);
    for (auto it = line.globalMatch(help.mid(help.indexOf(QStringLiteral("Commands:")))); it.hasNext();)
        names << it.next().captured(1);
    return names;
}

}   // namespace

class TestCliReadme : public QObject {
    Q_OBJECT
private slots:
    void everyReadmeCommandRuns() {
        const QString readme = readText(QStringLiteral(PARAPLAN_SOURCE_DIR "/README.md"));
        const qsizetype section = readme.indexOf(QStringLiteral("## The command line"));
        QVERIFY(section > 0);
        const qsizetype from = readme.indexOf(QStringLiteral("```sh\n"), section) + 6;
        const qsizetype to = readme.indexOf(QStringLiteral("```"), from);
        const QStringList lines = readme.mid(from, to - from).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() >= 15);

        QTemporaryDir work;
        QVERIFY(work.isValid());
        for (const char* d : {"resources", "docs", "tests"})
            QVERIFY(QFile::link(QStringLiteral(PARAPLAN_SOURCE_DIR "/") + QLatin1String(d),
                                work.filePath(QLatin1String(d))));
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("PATH"), QFileInfo(QStringLiteral(PARAPLAN_CLI)).absolutePath() + QLatin1Char(':') +
                                               env.value(QStringLiteral("PATH")));
        const QStringList known = cliCommands();
        QString assignments;
        int ran = 0;
        for (const QString& line : lines) {
            if (QRegularExpression(QStringLiteral("^[A-Z]+=\\S+$")).match(line).hasMatch()) {
                assignments += line + QLatin1Char('\n');
                continue;
            }
            QVERIFY2(line.startsWith(QStringLiteral("paraplan-cli ")), qPrintable(line));
            QVERIFY2(known.contains(line.section(QLatin1Char(' '), 1, 1)), qPrintable(line));
            QProcess sh;
            sh.setWorkingDirectory(work.path());
            sh.setProcessEnvironment(env);
            sh.start(QStringLiteral("bash"), {QStringLiteral("-c"), assignments + line});
            QVERIFY(sh.waitForFinished(300000));
            QVERIFY2(sh.exitStatus() == QProcess::NormalExit && sh.exitCode() == 0,
                     qPrintable(line + QStringLiteral(" -> exit ") + QString::number(sh.exitCode()) +
                                QLatin1Char('\n') + QString::fromUtf8(sh.readAllStandardError()).left(2000)));
            ++ran;
        }
        QVERIFY(ran >= 15);
        // What the lines wrote landed in the scratch folder.
        for (const char* f : {"trace.json", "best.paraplan.json", "imported.paraplan.json"})
            QVERIFY2(QFile::exists(work.filePath(QLatin1String(f))), f);
    }

    // A message that tells the user to run `paraplan-cli NAME` names a command that exists.
    void messagesNameRealCommands() {
        const QStringList known = cliCommands();
        QVERIFY(known.contains(QStringLiteral("status")) && known.contains(QStringLiteral("jobs")));
        static const QRegularExpression named(QStringLiteral("paraplan-cli ([a-z][a-z-]*)"));
        int seen = 0;
        for (const char* dir : {"core", "app", "widgets"}) {
            QDirIterator it(QStringLiteral(PARAPLAN_SOURCE_DIR "/") + QLatin1String(dir),
                            {QStringLiteral("*.cpp"), QStringLiteral("*.h")}, QDir::Files,
                            QDirIterator::Subdirectories);
            while (it.hasNext()) {
                const QString path = it.next();
                for (const QString& line : readText(path).split(QLatin1Char('\n'))) {
                    if (line.trimmed().startsWith(QStringLiteral("//")) || !line.contains(QLatin1Char('"'))) continue;
                    for (auto m = named.globalMatch(line); m.hasNext();) {
                        const QString name = m.next().captured(1);
                        if (name == QLatin1String("reference")) continue;   // the title of --markdown's page
                        ++seen;
                        QVERIFY2(known.contains(name), qPrintable(path + ": paraplan-cli " + name));
                    }
                }
            }
        }
        QVERIFY(seen >= 20);
    }
};

QTEST_GUILESS_MAIN(TestCliReadme)
#include "tst_cli_readme.moc"
