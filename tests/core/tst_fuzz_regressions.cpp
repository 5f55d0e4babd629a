// Every input the fuzzers ever found troublesome (tests/data/fuzz/) is replayed
// through the loaders: each either loads or is refused with an InputError.
#include "catalog/hf_import.h"
#include "project/project.h"
#include "util/input_error.h"

#include <QDir>
#include <QFile>
#include <QtTest>

using namespace paraplan;

class TestFuzzRegressions : public QObject {
    Q_OBJECT
private:
    static QStringList inputs(const char* sub) {
        QDir d(QStringLiteral(PARAPLAN_TEST_DATA "/fuzz/") + QLatin1String(sub));
        QStringList out;
        for (const auto& f : d.entryList(QDir::Files, QDir::Name)) out << d.filePath(f);
        return out;
    }
    static std::string read(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) return {};
        return f.readAll().toStdString();
    }

private slots:
    void projects_data() {
        QTest::addColumn<QString>("path");
        const auto files = inputs("project");
        QVERIFY(!files.isEmpty());
        for (const auto& f : files) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    }
    void projects() {
        QFETCH(QString, path);
        const std::string text = read(path);
        try {
            const Project p = project_from_text(text);
            // Whatever loads must survive a save/load round trip unchanged.
            QCOMPARE(project_to_json(project_from_text(project_to_text(p))), project_to_json(p));
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).size() > 0);
        }
    }

    void hfConfigs_data() {
        QTest::addColumn<QString>("path");
        const auto files = inputs("hf");
        QVERIFY(!files.isEmpty());
        for (const auto& f : files) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    }
    void hfConfigs() {
        QFETCH(QString, path);
        const std::string text = read(path);
        try {
            const ModelSpec m = import_hf_config(std::string_view(text));
            QVERIFY(count_params(m).total > 0);
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).size() > 0);
        }
    }
};

QTEST_APPLESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
