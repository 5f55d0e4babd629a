// Every input the fuzzers ever found troublesome (tests/data/fuzz/) is replayed
// through the loaders: each either loads or is refused with an InputError.
#include "calibrate/log_parse.h"
#include "calibrate/runs_table.h"
#include "catalog/hf_import.h"
#include "export/import.h"
#include "export/python_call.h"
#include "export/toml.h"
#include "joblog/job_history.h"
#include "launch/runtime_config.h"
#include "project/project.h"
#include "schedule/pytorch_csv.h"
#include "util/input_error.h"
#include "util/json_read.h"

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

    // The project's "runtime" section (tests/data/fuzz/runtime/): read, and read again from
    // its own JSON, or refused with the field's pointer.
    void runtimeSections_data() {
        QTest::addColumn<QString>("path");
        const auto files = inputs("runtime");
        QVERIFY(!files.isEmpty());
        for (const auto& f : files) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    }
    void runtimeSections() {
        QFETCH(QString, path);
        try {
            const auto c = runtime::runtime_config_from_json(json_read::parse(read(path)));
            QCOMPARE(runtime::to_json(runtime::runtime_config_from_json(runtime::to_json(c))), runtime::to_json(c));
        } catch (const InputError& e) {
            QVERIFY(e.pointer().rfind("/runtime", 0) == 0 || e.line() > 0);
        }
    }

    // job.json records (tests/data/fuzz/jobs/: real ones written by Job): read, or refused
    // with a reason; never an exception.
    void jobRecords_data() {
        QTest::addColumn<QString>("path");
        const auto files = inputs("jobs");
        QVERIFY(!files.isEmpty());
        for (const auto& f : files) QTest::newRow(qPrintable(QFileInfo(f).fileName())) << f;
    }
    void jobRecords() {
        QFETCH(QString, path);
        std::string problem;
        const auto r = runtime::job_record_from_text(read(path), "/jobs/x", &problem);
        QVERIFY(r.has_value() != !problem.empty());
        if (r) QVERIFY(r->world_size >= 0);
    }

    // The readers of user-named files that have their own fuzz targets (runs tables and
    // training logs, PyTorch's schedule CSV, Python calls, TOML): every seed is read or
    // refused with an InputError or diagnostics, never anything else.
    void otherReaders_data() {
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("reader");
        for (const char* sub : {"runs", "pipeline-csv", "pycall", "toml"}) {
            const auto files = inputs(sub);
            QVERIFY(!files.isEmpty());
            for (const auto& f : files)
                QTest::newRow(qPrintable(QString(sub) + "/" + QFileInfo(f).fileName())) << f << QString(sub);
        }
    }
    void otherReaders() {
        QFETCH(QString, path);
        QFETCH(QString, reader);
        const std::string text = read(path);
        try {
            if (reader == "runs") {
                (void)calibrate::parse_log(text);
                QVERIFY(!calibrate::read_runs_table(text, "t").empty());
            } else if (reader == "pipeline-csv") {
                const auto r = schedule::from_pytorch_csv(text);
                QVERIFY(r.schedule.has_value() || !r.diagnostics.empty());
            } else if (reader == "pycall") {
                if (const auto c = pycall::find_call(text, {"HybridParallelPlugin"})) QVERIFY(c->line >= 1);
            } else {
                QVERIFY(toml::parse(text).is_object());
            }
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).size() > 0);
        }
    }

    // Config text that is not UTF-8 is refused with its place (JSON output cannot carry it:
    // nlohmann's dump threw from `import --json`); TOML escapes must be Unicode scalar values.
    void nonUtf8Configs() {
        const Project base = default_import_base(8);
        for (const char* format : {"colossalai", "torchtitan", "megatron", "deepspeed"}) {
            try {
                import_config("plugin = HybridParallelPlugin(tp_size=2, x='a\x9e' 'b')\n", format, base, true);
                QFAIL(format);
            } catch (const InputError& e) {
                QCOMPARE(e.line(), 1);
                QVERIFY2(std::string(e.what()).find("not UTF-8 text: byte 0x9E") != std::string::npos, e.what());
            }
        }
        for (const char* text : {"a = \"\\uZZZZ\"\n", "a = \"\\uD800\"\n", "a = \"\\U00110000\"\n"})
            QVERIFY_THROWS_EXCEPTION(InputError, toml::parse(text));
        QCOMPARE(toml::parse("a = \"\\u00e9\"\n")["a"].get<std::string>(), std::string("\xc3\xa9"));
        // An unclosed string is not a literal (its last byte was taken for the closing quote).
        QVERIFY(!pycall::literal("\"M\xd5\xb9"));
        QCOMPARE(pycall::literal("'ab'")->get<std::string>(), std::string("ab"));
    }

    // Nesting is bounded in every reader (json_read::kMaxJsonDepth = 256): deeper input
    // is refused with the line and column of the bracket that goes too deep, before
    // nlohmann's recursive copy/compare/dump could overflow the stack.
    void deepNesting() {
        auto nested = [](int depth) { return std::string(depth, '[') + std::string(depth, ']'); };
        auto project = [&](int depth) {
            return R"({"paraplan": 1, "cluster": {"nodes": [{"name": "n", "gpu": "a100-80g", "gpus": 8}]},
"model": {"preset": "gpt2"}, "runtime": {"args": )" +
                   nested(depth) + "}}";
        };
        auto refusal = [](auto&& load) -> std::string {
            try {
                load();
            } catch (const InputError& e) {
                return e.what();
            }
            return "";
        };
        // The project's "runtime" object is itself 2 levels: 254 more fit, 255 do not.
        const Project ok = project_from_text(project(json_read::kMaxJsonDepth - 2));
        QVERIFY(ok.runtime.contains("args"));
        for (int depth : {json_read::kMaxJsonDepth - 1, 100000}) {
            const std::string why = refusal([&] { project_from_text(project(depth)); });
            QVERIFY2(why.find("nested more than 256 levels") != std::string::npos, why.c_str());
            QVERIFY2(why.rfind("line 2, column ", 0) == 0, why.c_str());
        }
        // Brackets inside strings do not count.
        QVERIFY(json_read::parse("[\"" + std::string(1000, '[') + "\"]").is_array());
        // Hugging Face config.json.
        const std::string hf = refusal(
            [&] { import_hf_config(std::string_view(R"({"model_type": "llama", "x": )" + nested(100000) + "}")); });
        QVERIFY2(hf.find("nested more than 256 levels") != std::string::npos, hf.c_str());
        // Imported framework configs: DeepSpeed JSON and torchtitan TOML (arrays, inline
        // tables and dotted keys all nest).
        const Project base = project_from_text(project(1));   // a cluster to import onto
        const std::string ds = refusal(
            [&] { import_config(R"({"train_batch_size": 8, "x": )" + nested(100000) + "}", "deepspeed", base, true); });
        QVERIFY2(ds.find("nested more than 256 levels") != std::string::npos, ds.c_str());
        const std::string tt = refusal(
            [&] { import_config("[job]\nx = " + nested(100000) + "\n", "torchtitan", base, true); });
        QVERIFY2(tt.find("nested more than 256 levels") != std::string::npos, tt.c_str());
        // ColossalAI's Python: a list literal that deep is kept as unread source, not recursed into.
        try {
            const ImportResult r = import_config(
                "plugin = HybridParallelPlugin(tp_size=2, pp_size=1, x=" + nested(100000) + ")\n", "colossalai", base,
                true);
            QCOMPARE(r.project.layout.tp, 2);
        } catch (const InputError& e) {
            QVERIFY(std::string(e.what()).size() > 0);
        }
        std::string inline_tables = "x = ";
        for (int i = 0; i < 100000; ++i) inline_tables += "{a = ";
        inline_tables += "1" + std::string(100000, '}') + "\n";
        QVERIFY(refusal([&] { toml::parse(inline_tables); }).find("nested more than 256 levels") != std::string::npos);
        std::string dotted = "a";
        for (int i = 0; i < 100000; ++i) dotted += ".a";
        QVERIFY(!refusal([&] { toml::parse(dotted + " = 1\n"); }).empty());
        QVERIFY(!refusal([&] { toml::parse("[" + dotted + "]\nx = 1\n"); }).empty());
        QCOMPARE(toml::parse("a.b.c = [[1], {d = 2}]\n")["a"]["b"]["c"][1]["d"].get<int>(), 2);
    }
};

QTEST_APPLESS_MAIN(TestFuzzRegressions)
#include "tst_fuzz_regressions.moc"
