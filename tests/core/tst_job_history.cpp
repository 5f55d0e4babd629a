// Job records read back from job folders (core/joblog/job_history.h): real job.json files
// written by Job (tests/data/fuzz/jobs/, from the GUI heatmap test's loopback-ssh jobs) are
// listed; folders holding anything else are skipped with a reason naming the file and field.
#include "joblog/job_history.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <string>

using namespace paraplan::runtime;

class TestJobHistory : public QObject {
    Q_OBJECT
private:
    static std::string read(const QString& path) {
        QFile f(path);
        if (!f.open(QIODevice::ReadOnly)) qFatal("cannot read %s", qPrintable(path));
        return f.readAll().toStdString();
    }
    static void write(const QString& folder, const std::string& text) {
        QVERIFY(QDir().mkpath(folder));
        QFile f(folder + "/job.json");
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write(text.data(), static_cast<qint64>(text.size()));
    }

private slots:
    void realRecordsAreRead() {
        const std::string text = read(PARAPLAN_TEST_DATA "/fuzz/jobs/live-job-direct.json");
        std::string problem;
        const auto r = job_record_from_text(text, "/jobs/20261201-195602-live-job", &problem);
        QVERIFY2(r.has_value(), problem.c_str());
        QCOMPARE(r->id, std::string("20261201-195602-live-job"));
        QCOMPARE(r->state, std::string("stopped"));
        QCOMPARE(r->mode, std::string("direct"));
        QCOMPARE(r->world_size, 4);
        QCOMPARE(r->started, std::string("2026-12-01T19:56:02.769Z"));
        QCOMPARE(r->folder, std::string("/jobs/20261201-195602-live-job"));
        QVERIFY(r->json["processes"].is_array());
        QVERIFY(problem.empty());
    }

    // A field of the wrong type used to escape as nlohmann's type_error out of list_jobs
    // (j.value("id", ...) on a number), which ended `paraplan-cli jobs` and the run panel's
    // list; a world_size far out of int range was undefined behaviour. Both are refusals now.
    void mistypedFieldsAreRefusedWithTheirPointer() {
        std::string problem;
        QVERIFY(!job_record_from_text(R"({"paraplan_job": 1, "id": 5})", "/j/a", &problem));
        QVERIFY2(problem.find("/j/a/job.json") != std::string::npos, problem.c_str());
        QVERIFY2(problem.find("/id") != std::string::npos, problem.c_str());
        QVERIFY2(problem.find("expected a string") != std::string::npos, problem.c_str());
        problem.clear();
        QVERIFY(!job_record_from_text(R"({"paraplan_job": 1, "world_size": 1e300})", "/j/b", &problem));
        QVERIFY2(problem.find("/world_size") != std::string::npos, problem.c_str());
        problem.clear();
        QVERIFY(!job_record_from_text(R"({"paraplan_job": 1, "state": ["running"]})", "/j/c", &problem));
        QVERIFY2(problem.find("/state") != std::string::npos, problem.c_str());
        // Absent or null fields take their defaults (the folder's name for the id).
        const auto r = job_record_from_text(R"({"paraplan_job": 1, "id": null})", "/j/20260101-000000-x", &problem);
        QVERIFY(r);
        QCOMPARE(r->id, std::string("20260101-000000-x"));
        QCOMPARE(r->world_size, 0);
    }

    void listingSkipsWhatIsNotARecord() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const QString jobs = tmp.path() + "/jobs";
        write(jobs + "/20261201-195602-live-job", read(PARAPLAN_TEST_DATA "/fuzz/jobs/live-job-direct.json"));
        write(jobs + "/20261201-195607-probe-probe-run", read(PARAPLAN_TEST_DATA "/fuzz/jobs/probe-run.json"));
        write(jobs + "/20261201-200000-bad-id", R"({"paraplan_job": 1, "id": {"a": 1}})");
        write(jobs + "/20261201-200001-garbage", "{\"paraplan_job\": 1,");
        write(jobs + "/20261201-200002-other", R"({"name": "not ours"})");
        QVERIFY(QDir().mkpath(jobs + "/20261201-200003-empty"));
        std::vector<std::string> problems;
        const auto list = list_jobs(jobs.toStdString(), &problems);
        QCOMPARE(list.size(), std::size_t(2));
        QCOMPARE(list[0].id, std::string("20261201-195607-probe-probe-run"));   // newest first
        QCOMPARE(list[0].state, std::string("succeeded"));
        QCOMPARE(list[1].id, std::string("20261201-195602-live-job"));
        QCOMPARE(problems.size(), std::size_t(4));
        std::string all;
        for (const auto& p : problems) all += p + "\n";
        QVERIFY2(all.find("20261201-200000-bad-id/job.json: /id: expected a string") != std::string::npos, all.c_str());
        QVERIFY2(all.find("20261201-200001-garbage/job.json: not a Paraplan job record") != std::string::npos,
                 all.c_str());
        QVERIFY2(all.find("20261201-200002-other/job.json: not a Paraplan job record") != std::string::npos,
                 all.c_str());
        QVERIFY2(all.find("20261201-200003-empty: no job.json") != std::string::npos, all.c_str());
        // find_job on the bad record: nothing, not an exception.
        QVERIFY(!find_job(jobs.toStdString(), "20261201-200000-bad-id"));
        QVERIFY(find_job(jobs.toStdString(), "20261201-195602-live-job"));
    }
};

QTEST_GUILESS_MAIN(TestJobHistory)
#include "tst_job_history.moc"
