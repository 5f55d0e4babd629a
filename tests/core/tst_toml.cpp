// The TOML reader behind `import --format torchtitan` (export/toml.h): every torchtitan job
// config kept in tests/data/toml reads to the JSON stored next to it. Those .json files
// were written once by the hand-written parser this reader replaced (commit "tst_toml:
// torchtitan configs ..."), so a change in what a config reads to shows up here.
#include "export/toml.h"
#include "util/input_error.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

using namespace paraplan;
using nlohmann::json;

namespace {

const std::filesystem::path kDir = std::filesystem::path(PARAPLAN_TEST_DATA) / "toml";

std::string read(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}   // namespace

class TestToml : public QObject {
    Q_OBJECT

private slots:
    void configsReadAsBefore_data() {
        QTest::addColumn<QString>("name");
        int n = 0;
        for (const auto& e : std::filesystem::directory_iterator(kDir)) {
            if (e.path().extension() != ".toml") continue;
            QTest::newRow(e.path().filename().string().c_str()) << QString::fromStdString(e.path().stem().string());
            ++n;
        }
        QVERIFY(n >= 7);
    }
    void configsReadAsBefore() {
        QFETCH(QString, name);
        const auto base = kDir / name.toStdString();
        const json expected = json::parse(read(base.string() + ".json"));
        QVERIFY(expected.is_object() && !expected.empty());
        const json got = toml::parse(read(base.string() + ".toml"));
        QVERIFY2(got == expected, (got.dump(2) + "\nexpected\n" + expected.dump(2)).c_str());
    }
};

QTEST_APPLESS_MAIN(TestToml)
#include "tst_toml.moc"
