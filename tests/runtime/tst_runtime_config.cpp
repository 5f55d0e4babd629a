// The project's "runtime" section: defaults, every field, and errors naming the field.
#include "runtime/runtime_config.h"
#include "util/input_error.h"

#include <QtTest>

using namespace paraplan;
using namespace paraplan::runtime;
using nlohmann::json;

class TestRuntimeConfig : public QObject {
    Q_OBJECT
private slots:
    void defaults() {
        const auto c = runtime_config_from_json(json::object());
        QCOMPARE(c.mode, std::string("direct"));
        QCOMPARE(c.python, std::string("python3"));
        QCOMPARE(c.master_port, 29500);
        QCOMPARE(c.on_failure, std::string("stop_all"));
        QCOMPARE(c.job_dir, std::string("jobs"));
        QCOMPARE(c.strict_host_key_checking, std::string("yes"));
        QCOMPARE(c.slurm.gpus, std::string("auto"));
        QVERIFY(!c.fail_fast);
    }

    void fullSection() {
        const auto c = runtime_config_from_json(json::parse(R"({
            "mode": "torchrun", "workdir": "/w d", "python": "/usr/bin/python3", "script": "train.py",
            "args": ["--lr", "0.1"], "env": {"NCCL_DEBUG": "INFO", "B": 2}, "path_prepend": ["/opt/x"],
            "master_port": 29600, "job_dir": "runs", "on_failure": "continue", "stop_grace_s": 2,
            "ssh": {"connect_timeout_s": 3, "known_hosts_file": "/k", "strict_host_key_checking": "accept-new",
                    "options": ["ProxyJump=bastion"]},
            "telemetry": {"interval_ms": 500},
            "slurm": {"partition": "gpu", "time": "01:00:00", "gpus": "none"}, "fail_fast": true})"));
        QCOMPARE(c.mode, std::string("torchrun"));
        QCOMPARE(c.workdir, std::string("/w d"));
        QCOMPARE(c.args.size(), std::size_t(2));
        QCOMPARE(c.env.size(), std::size_t(2));
        QCOMPARE(c.env[0].first, std::string("B"));   // key order
        QCOMPARE(c.env[0].second, std::string("2"));
        QCOMPARE(c.env[1].first, std::string("NCCL_DEBUG"));
        QCOMPARE(c.master_port, 29600);
        QCOMPARE(c.on_failure, std::string("continue"));
        QCOMPARE(c.connect_timeout_s, 3);
        QCOMPARE(c.strict_host_key_checking, std::string("accept-new"));
        QCOMPARE(c.ssh_options.front(), std::string("ProxyJump=bastion"));
        QCOMPARE(c.telemetry_interval_ms, 500);
        QCOMPARE(c.slurm.partition, std::string("gpu"));
        QCOMPARE(c.slurm.gpus, std::string("none"));
        QVERIFY(c.fail_fast);
    }

    void errorsNameTheField_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("pointer");
        QTest::newRow("mode") << R"({"mode": "mpirun"})" << "/runtime/mode";
        QTest::newRow("env name") << R"({"env": {"A B": "x"}})" << "/runtime/env/A B";
        QTest::newRow("env value") << R"({"env": {"A": [1]}})" << "/runtime/env/A";
        QTest::newRow("args") << R"({"args": "--lr 1"})" << "/runtime/args";
        QTest::newRow("args item") << R"({"args": ["a", 3]})" << "/runtime/args/1";
        QTest::newRow("port") << R"({"master_port": 70000})" << "/runtime/master_port";
        QTest::newRow("on_failure") << R"({"on_failure": "retry"})" << "/runtime/on_failure";
        QTest::newRow("unknown") << R"({"scirpt": "x.py"})" << "/runtime/scirpt";
        QTest::newRow("strict no") << R"({"ssh": {"strict_host_key_checking": "no"}})"
                                   << "/runtime/ssh/strict_host_key_checking";
        QTest::newRow("managed option") << R"({"ssh": {"options": ["StrictHostKeyChecking=no"]}})"
                                        << "/runtime/ssh/options/0";
        QTest::newRow("slurm gpus") << R"({"slurm": {"gpus": "yes"}})" << "/runtime/slurm/gpus";
        QTest::newRow("fail_fast") << R"({"fail_fast": "yes"})" << "/runtime/fail_fast";
        QTest::newRow("interval") << R"({"telemetry": {"interval_ms": 100}})" << "/runtime/telemetry/interval_ms";
    }
    void errorsNameTheField() {
        QFETCH(QString, text);
        QFETCH(QString, pointer);
        try {
            runtime_config_from_json(json::parse(text.toStdString()));
            QFAIL("expected an InputError");
        } catch (const InputError& e) {
            QCOMPARE(QString::fromStdString(e.pointer()), pointer);
            QVERIFY(!e.message().empty());
        }
    }
};

QTEST_GUILESS_MAIN(TestRuntimeConfig)
#include "tst_runtime_config.moc"
