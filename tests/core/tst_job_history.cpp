// Job records read back from job folders (core/joblog/job_history.h): real job.json files
// written by Job (tests/data/fuzz/jobs/, from the GUI heatmap test's loopback-ssh jobs) are
// listed; folders holding anything else are skipped with a reason naming the file and field.
// What `paraplan-cli stop` reads from a record (core/joblog/job_stop.h) is checked the same way.
#include "joblog/job_history.h"
#include "joblog/job_stop.h"
#include "joblog/job_summary.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>

#include <string>

#include <sys/stat.h>
#include <unistd.h>

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
    // One reading of "over" for the summary (no exit code while live), the stop plan and the Run
    // panel's Stop Listed Job: only the three end states; a state the scheduler could not tell
    // may still have processes to stop.
    void onlyTheEndStatesAreOver() {
        for (const char* s : {"succeeded", "failed", "stopped"}) QVERIFY2(job_over(s), s);
        for (const char* s : {"pending", "connecting", "running", "stopping", "UNKNOWN", ""}) QVERIFY2(!job_over(s), s);
    }

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
        // An id is only what make_job_id writes: a newline would add a line to the PARAPLAN_JOB
        // check on the nodes (grep -x matches any line), so `stop` would kill another group.
        problem.clear();
        QVERIFY(!job_record_from_text("{\"paraplan_job\": 1, \"id\": \"x\\nSHLVL=1\"}", "/j/n", &problem));
        QVERIFY2(problem.find("/id: expected a job id") != std::string::npos, problem.c_str());
        QVERIFY(!job_record_from_text(R"({"paraplan_job": 1, "id": "a b"})", "/j/n", &problem));
        // Nothing printed from a record carries a terminal escape.
        QVERIFY(!job_record_from_text("{\"paraplan_job\": 1, \"state\": \"\\u001b[2Jrunning\"}", "/j/e", &problem));
        QVERIFY2(problem.find("/state") != std::string::npos, problem.c_str());
        const auto esc = job_record_from_text("{\"paraplan_job\": 1, \"error\": \"bad\\u001b]52;c;x\\u0007\"}", "/j/e",
                                              &problem);
        QVERIFY(esc);
        QCOMPARE(esc->error, std::string("bad ]52;c;x "));
        // Absent or null fields take their defaults (the folder's name for the id).
        const auto r = job_record_from_text(R"({"paraplan_job": 1, "id": null})", "/j/20260101-000000-x", &problem);
        QVERIFY(r);
        QCOMPARE(r->id, std::string("20260101-000000-x"));
        QCOMPARE(r->world_size, 0);
    }

    // The stop plan of a real record: every process of the loopback-ssh job, with its node.
    void stopPlanOfARealRecord() {
        std::string problem;
        const auto r = job_record_from_text(read(PARAPLAN_TEST_DATA "/fuzz/jobs/live-job-direct.json"),
                                            "/jobs/20261201-195602-live-job", &problem);
        QVERIFY2(r.has_value(), problem.c_str());
        const auto plan = stop_plan_from_record(*r, &problem);
        QVERIFY2(plan.has_value(), problem.c_str());
        // The record (from before ssh profiles) names a known_hosts file and identity files: the
        // plan carries none of them; stop takes local values from the user's profile only.
        QCOMPARE(r->json.value("known_hosts_file", ""), std::string("/tmp/pp-sshd-bfHWNt/known_hosts"));
        QCOMPARE(plan->ssh_profile, std::string());
        QVERIFY(plan->ssh_options.empty());
        QCOMPARE(plan->grace_s, 2);
        QVERIFY(plan->job_over);   // state "stopped"
        QVERIFY(!plan->slurm_job_id);
        QCOMPARE(plan->processes.size(), std::size_t(4));
        const auto& p0 = plan->processes[0];
        QCOMPARE(p0.label, std::string("rank-0"));
        QCOMPARE(p0.target.host, std::string("127.0.0.2"));
        QCOMPARE(p0.target.user, std::string("root"));
        QCOMPARE(p0.target.port, 51493);
        QVERIFY(p0.finished);   // exit 143 recorded
        QCOMPARE(p0.pgid.value_or(0), 3936LL);
    }

    // What `jobs`, `status` and the Run panel show of a real record: hosts once each, the first
    // non-zero exit, every process's log beside the record.
    void summaryOfARealRecord() {
        std::string problem;
        const auto r = job_record_from_text(read(PARAPLAN_TEST_DATA "/fuzz/jobs/live-job-direct.json"),
                                            "/jobs/20261201-195602-live-job", &problem);
        QVERIFY2(r.has_value(), problem.c_str());
        const auto s = summarize(*r);
        QCOMPARE(s.processes.size(), std::size_t(4));
        QCOMPARE(s.hosts, (std::vector<std::string>{"127.0.0.2", "127.0.0.3"}));
        QCOMPARE(s.processes[0].log, std::string("/jobs/20261201-195602-live-job/rank-0.log"));
        QVERIFY(s.exit_code.has_value());
        QCOMPARE(*s.exit_code, *s.processes[0].exit_code);   // all four were stopped alike
        const auto j = to_json(s, true);
        QCOMPARE(j["state"].get<std::string>(), std::string("stopped"));
        QCOMPARE(j["processes"].size(), std::size_t(4));
        QVERIFY(summary_line(s).rfind("20261201-195602-live-job  stopped  direct  127.0.0.2,127.0.0.3  since ", 0) ==
                0);
        // While a job runs it has no exit code yet; a log name with a slash is not followed.
        JobRecord running = *r;
        running.state = "running";
        running.json["processes"][0]["log"] = "../../etc/passwd";
        const auto rs = summarize(running);
        QVERIFY(!rs.exit_code);
        QCOMPARE(rs.processes[0].log, std::string());
        // A task Slurm ended by a signal (sacct ExitCode 0:15) shows the signal, not an exit code.
        running.json["processes"][1]["slurm_signal"] = 15;
        const auto sg = summarize(running);
        QCOMPARE(sg.processes[1].signal.value_or(0), 15);
        QCOMPARE(to_json(sg, true)["processes"][1]["signal"].get<int>(), 15);
    }

    void stopPlanDefaultsAndSlurm() {
        JobRecord r;
        r.folder = "/j/s";
        r.json = nlohmann::json::parse(R"({"paraplan_job": 1, "state": "running", "slurm_job_id": 42,
            "path_prepend": ["/opt/slurm/bin"],
            "processes": [{"label": "sbatch", "host": "login", "finished": true, "exit_code": null},
                          {"label": "rank-1", "host": "n1", "error_kind": "connection_lost", "finished": true,
                           "exit_code": 255, "pgid": 77}]})");
        std::string problem;
        const auto plan = stop_plan_from_record(r, &problem);
        QVERIFY2(plan.has_value(), problem.c_str());
        QCOMPARE(plan->grace_s, 5);
        QVERIFY(!plan->job_over);
        QCOMPARE(plan->slurm_job_id.value_or(0), 42LL);
        QCOMPARE(plan->path_prepend, std::vector<std::string>{"/opt/slurm/bin"});
        QCOMPARE(plan->processes[0].target.host, std::string("login"));
        QVERIFY(!plan->processes[0].finished);   // finished without an exit code: not over
        QVERIFY(plan->processes[1].finished);
        QVERIFY(plan->processes[1].connection_lost);
        QCOMPARE(plan->processes[1].pgid.value_or(0), 77LL);
        // A record without processes stops nothing and is not an error.
        r.json = nlohmann::json::parse(R"({"paraplan_job": 1})");
        const auto empty = stop_plan_from_record(r, &problem);
        QVERIFY(empty);
        QVERIFY(empty->processes.empty());
    }

    // stop_job read these fields with nlohmann's value(), which threw type_error out of
    // `paraplan-cli stop` on a wrong type; `p["exit_code"]` on a process without one was an
    // out-of-bounds read on a const object. Each is now refused with its pointer.
    void stopPlanRefusesMalformedRecords_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("pointer");
        QTest::addColumn<QString>("why");
        // What `stop` would hand to ssh is held to the project's rules: no local path, no
        // option off the allow-list, no host a shell would read.
        QTest::newRow("grace as text") << R"({"stop_grace_s": "5"})"
                                       << "/stop_grace_s"
                                       << "a non-negative integer";
        QTest::newRow("grace over an hour") << R"({"stop_grace_s": 100000})"
                                            << "/stop_grace_s"
                                            << "from 0 to 3600";
        QTest::newRow("grace huge") << R"({"stop_grace_s": 1e300})"
                                    << "/stop_grace_s"
                                    << "a non-negative integer";
        QTest::newRow("profile not an id") << R"({"ssh_profile": "../x"})"
                                           << "/ssh_profile"
                                           << "a profile id";
        QTest::newRow("option off the list") << R"({"ssh_options": ["Port=22", "ProxyCommand=touch /tmp/x"]})"
                                             << "/ssh_options/1"
                                             << "ProxyCommand is refused";
        QTest::newRow("host with a shell character") << R"x({"processes": [{"ssh": {"host": "$(id)"}}]})x"
                                                     << "/processes/0/ssh"
                                                     << "is not a host name";
        QTest::newRow("processes object") << R"({"processes": {"label": "x"}})"
                                          << "/processes"
                                          << "an array";
        QTest::newRow("process not object") << R"({"processes": [7]})"
                                            << "/processes/0"
                                            << "an object";
        QTest::newRow("label number") << R"({"processes": [{"label": 1}]})"
                                      << "/processes/0/label"
                                      << "a string";
        QTest::newRow("ssh string") << R"({"processes": [{"ssh": "h"}]})"
                                    << "/processes/0/ssh"
                                    << "an object";
        QTest::newRow("ssh host array") << R"({"processes": [{}, {"ssh": {"host": ["h"]}}]})"
                                        << "/processes/1/ssh/host"
                                        << "a string";
        QTest::newRow("port huge") << R"({"processes": [{"ssh": {"port": 99999999999999999999}}]})"
                                   << "/processes/0/ssh/port"
                                   << "a non-negative integer";
        QTest::newRow("port over 65535") << R"({"processes": [{"ssh": {"port": 70000}}]})"
                                         << "/processes/0/ssh/port"
                                         << "a port";
        QTest::newRow("finished string") << R"({"processes": [{"finished": "yes"}]})"
                                         << "/processes/0/finished"
                                         << "true or false";
        QTest::newRow("exit code text") << R"({"processes": [{"exit_code": "1"}]})"
                                        << "/processes/0/exit_code"
                                        << "an integer";
        QTest::newRow("pgid text") << R"({"processes": [{"pgid": "12"}]})"
                                   << "/processes/0/pgid"
                                   << "a process group id";
        // -1 or 1 would reach `kill -TERM -1`: every process the user may signal.
        QTest::newRow("pgid -1") << R"({"processes": [{"pgid": -1}]})"
                                 << "/processes/0/pgid"
                                 << "a process group id";
        QTest::newRow("pgid 1") << R"({"processes": [{"pgid": 1}]})"
                                << "/processes/0/pgid"
                                << "a process group id";
        QTest::newRow("pgid 2^64-1") << R"({"processes": [{"pgid": 18446744073709551615}]})"
                                     << "/processes/0/pgid"
                                     << "a process group id";
        QTest::newRow("pgid float") << R"({"processes": [{"pgid": 12.5}]})"
                                    << "/processes/0/pgid"
                                    << "a process group id";
        QTest::newRow("slurm id text") << R"({"slurm_job_id": "42"})"
                                       << "/slurm_job_id"
                                       << "a Slurm job id";
        QTest::newRow("slurm id huge") << R"({"slurm_job_id": 9223372036854775807})"
                                       << "/slurm_job_id"
                                       << "a Slurm job id";
        QTest::newRow("path_prepend entry") << R"({"path_prepend": ["/a", 5]})"
                                            << "/path_prepend/1"
                                            << "a folder";
    }
    void stopPlanRefusesMalformedRecords() {
        QFETCH(QString, text);
        QFETCH(QString, pointer);
        QFETCH(QString, why);
        auto j = nlohmann::json::parse(text.toStdString());
        j["paraplan_job"] = 1;
        std::string problem;
        const auto r = job_record_from_text(j.dump(), "/j/bad", &problem);
        QVERIFY2(r.has_value(), problem.c_str());   // the fields job_record_from_text reads are fine
        QVERIFY(!stop_plan_from_record(*r, &problem));
        QVERIFY2(problem.rfind("/j/bad/job.json: " + pointer.toStdString() + ": ", 0) == 0, problem.c_str());
        QVERIFY2(problem.find(why.toStdString()) != std::string::npos, problem.c_str());
    }

    // Truncated job.json never becomes a record, so it never reaches stop_job.
    void truncatedRecordIsRefused() {
        const std::string text = read(PARAPLAN_TEST_DATA "/fuzz/jobs/live-job-direct.json");
        std::string problem;
        QVERIFY(!job_record_from_text(std::string_view(text).substr(0, text.size() / 2), "/j/t", &problem));
        QVERIFY2(problem.find("/j/t/job.json: not a Paraplan job record") != std::string::npos, problem.c_str());
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

    // Job folders are private (0700) and a record is acted on only when it is this user's and
    // nobody else can write it: one planted through a link, made writable by the group, or
    // owned by another user is refused with the reason (util/local_dirs.h).
    void onlyOwnRecordsAreTrusted() {
        QTemporaryDir tmp;
        QVERIFY(tmp.isValid());
        const std::string jobs = (tmp.path() + "/state/jobs").toStdString();
        const std::string id = claim_job_folder(jobs, "20261204-120000-x");
        QCOMPARE(id, std::string("20261204-120000-x"));
        QCOMPARE(claim_job_folder(jobs, "20261204-120000-x"), std::string("20261204-120000-x-2"));
        struct stat st {};
        QCOMPARE(::stat((jobs + "/" + id).c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        QCOMPARE(::stat(jobs.c_str(), &st), 0);
        QCOMPARE(st.st_mode & 0777, 0700u);
        const QString folder = QString::fromStdString(jobs + "/" + id);
        write(folder, read(PARAPLAN_TEST_DATA "/fuzz/jobs/probe-run.json"));
        std::string problem;
        QVERIFY2(find_job(jobs, id, &problem), problem.c_str());

        // Writable by the group: refused.
        QVERIFY(QFile::setPermissions(folder + "/job.json", QFile::ReadOwner | QFile::WriteOwner | QFile::WriteGroup));
        QVERIFY(!find_job(jobs, id, &problem));
        QVERIFY2(problem.find("can be written by other users") != std::string::npos, problem.c_str());
        QVERIFY(QFile::setPermissions(folder + "/job.json", QFile::ReadOwner | QFile::WriteOwner));
        QVERIFY(find_job(jobs, id));

        // A link in place of job.json: refused, not followed.
        const QString target = tmp.path() + "/elsewhere.json";
        QVERIFY(QFile::rename(folder + "/job.json", target));
        QVERIFY(QFile::link(target, folder + "/job.json"));
        QVERIFY(!find_job(jobs, id, &problem));
        QVERIFY2(problem.find("symbolic link") != std::string::npos, problem.c_str());
        QVERIFY(QFile::remove(folder + "/job.json"));
        QVERIFY(QFile::rename(target, folder + "/job.json"));

        // A job folder that is a link to somewhere else: skipped by the listing, refused by id.
        const QString other = tmp.path() + "/other-folder";
        write(other, read(PARAPLAN_TEST_DATA "/fuzz/jobs/probe-run.json"));
        QVERIFY(QFile::link(other, QString::fromStdString(jobs) + "/20261204-130000-planted"));
        QVERIFY(!find_job(jobs, "20261204-130000-planted", &problem));
        QVERIFY2(problem.find("symbolic link") != std::string::npos, problem.c_str());
        for (const auto& r : list_jobs(jobs)) QVERIFY(r.id != "20261204-130000-planted");

        // Owned by another user (root may hand it over; anyone else cannot, and the check on
        // the group bit above stands for it).
        if (::geteuid() == 0) {
            QCOMPARE(::chown((folder + "/job.json").toLocal8Bit().constData(), 65534, 65534), 0);
            QVERIFY(!find_job(jobs, id, &problem));
            QVERIFY2(problem.find("belongs to user id 65534, not to you") != std::string::npos, problem.c_str());
        }

        // A jobs folder that others can write is refused before a job folder is made in it.
        const std::string shared = (tmp.path() + "/shared-jobs").toStdString();
        QVERIFY(QDir().mkpath(QString::fromStdString(shared)));
        QCOMPARE(::chmod(shared.c_str(), 0777), 0);
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, claim_job_folder(shared, "20261204-140000-y"));
        QVERIFY(!QDir(QString::fromStdString(shared + "/20261204-140000-y")).exists());
    }
};

QTEST_GUILESS_MAIN(TestJobHistory)
#include "tst_job_history.moc"
