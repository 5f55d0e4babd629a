// Slurm output parsing: sbatch --parsable ids and sacct -P State|ExitCode lines.
#include "slurm/slurm.h"

#include <QtTest>

using namespace paraplan::runtime;

class TestSlurm : public QObject {
    Q_OBJECT
private slots:
    void sbatchIds() {
        QCOMPARE(*parse_sbatch_job_id("4242\n"), 4242LL);
        QCOMPARE(*parse_sbatch_job_id("981;cluster-a\n"), 981LL);
        QVERIFY(!parse_sbatch_job_id("sbatch: error: Batch job submission failed"));
        QVERIFY(!parse_sbatch_job_id(""));
        QVERIFY(!parse_sbatch_job_id("12ab"));
    }
    void sacctLines() {
        auto f = parse_sacct("COMPLETED|0:0\n");
        QVERIFY(f && f->succeeded());
        f = parse_sacct("FAILED|3:0\n");
        QCOMPARE(f->state, std::string("FAILED"));
        QCOMPARE(f->exit_code, 3);
        // sacct(1) ExitCode "A:S": the task's own status, then the signal that ended it.
        f = parse_sacct("CANCELLED by 1000|0:15\n");
        QCOMPARE(f->state, std::string("CANCELLED"));
        QCOMPARE(f->exit_code, 0);
        QCOMPARE(f->signal, 15);
        QCOMPARE(f->outcome(), std::string("signal 15"));
        QCOMPARE(parse_sacct("FAILED|3:0\n")->outcome(), std::string("exit 3"));
        QVERIFY(!parse_sacct("COMPLETED|0:9\n")->succeeded());
        QVERIFY(!parse_sacct(""));
        QVERIFY(!parse_sacct("garbage"));
        // Found by fuzz_slurm_log once UBSan stopped at the first finding: a long digit run
        // overflowed int (undefined). It saturates and still reads as a failure.
        f = parse_sacct("4E y 1|:5512424242;e160\np");
        QVERIFY(f && !f->succeeded());
        QCOMPARE(f->signal, 1 << 20);
        f = parse_sacct("FAILED|99999999999999999999:0\n");
        QCOMPARE(f->exit_code, 1 << 20);
    }
    void scontrolLines() {
        // `scontrol -o show job` as Slurm 22.05 prints it (one line, Key=Value words).
        const std::string failed =
            "JobId=7 JobName=x UserId=root(0) GroupId=root(0) MCS_label=N/A Priority=1 "
            "JobState=FAILED Reason=NonZeroExitCode Dependency=(null) Requeue=1 Restarts=0 "
            "BatchFlag=1 Reboot=0 ExitCode=3:0 DerivedExitCode=0:0 RunTime=00:00:01\n";
        auto f = parse_scontrol_job(failed);
        QCOMPARE(f->state, std::string("FAILED"));
        QCOMPARE(f->exit_code, 3);
        f = parse_scontrol_job("JobId=8 JobState=CANCELLED Reason=None ExitCode=0:15\n");
        QCOMPARE(f->state, std::string("CANCELLED"));
        QCOMPARE(f->signal, 15);
        QVERIFY(parse_scontrol_job("JobId=9 JobState=COMPLETED Reason=None ExitCode=0:0")->succeeded());
        QVERIFY(!parse_scontrol_job("slurm_load_jobs error: Invalid job id specified\n"));
        // A node failure (Slurm 22.05, a node's slurmd killed, job submitted --no-requeue):
        // Reason=NodeDown; NodeList names the job's nodes (ReqNodeList/ExcNodeList are not it).
        f = parse_scontrol_job(
            "JobId=2 JobState=NODE_FAIL Reason=NodeDown Dependency=(null) Requeue=0 "
            "ExitCode=0:15 ReqNodeList=(null) ExcNodeList=(null) NodeList=n[1-2] "
            "BatchHost=n1\n");
        QCOMPARE(f->state, std::string("NODE_FAIL"));
        QCOMPARE(f->reason, std::string("NodeDown"));
        QCOMPARE(f->nodes, std::string("n[1-2]"));
        QCOMPARE(f->signal, 15);
        QCOMPARE(slurm_state_info(f->state).phase, SlurmPhase::Failed);
        QVERIFY(parse_scontrol_job(failed)->nodes.empty());
        QCOMPARE(parse_scontrol_job(failed)->reason, std::string("NonZeroExitCode"));
        QVERIFY(parse_scontrol_job("JobState=CANCELLED Reason=None NodeList=(null) ExitCode=0:15")->reason.empty());
        // Which of them is down: sinfo -R, each node once (a node of two partitions).
        QCOMPARE(parse_sinfo_down("n2|Not responding\nn2|Not responding\n"), std::string("n2 (Not responding)"));
        QCOMPARE(parse_sinfo_down("n1|\nn3|maintenance\nnonsense\n"), std::string("n1, n3 (maintenance)"));
        QCOMPARE(parse_sinfo_down(""), std::string());
        QCOMPARE(sinfo_down_command("n[1-2]"), std::string("timeout -k 5 30 sinfo -h -N -R -n 'n[1-2]' -o '%N|%E'"));
        // DerivedExitCode is not ExitCode.
        QCOMPARE(parse_scontrol_job("JobState=FAILED DerivedExitCode=9:0 ExitCode=2:0")->exit_code, 2);
        // final_state_command's output: scontrol first, sacct when the controller forgot it.
        QCOMPARE(parse_final_state("JobId=7 JobState=TIMEOUT ExitCode=0:0\nTIMEOUT|0:0\n")->state,
                 std::string("TIMEOUT"));
        QCOMPARE(parse_final_state("FAILED|4:0\n")->exit_code, 4);
        QVERIFY(!parse_final_state(""));
    }
    void squeueLines() {
        // `squeue -h -j ID -o '%T|%r'` (squeue(1): %T state extended, %r reason) as Slurm 22.05 prints it.
        auto q = parse_squeue("PENDING|PartitionTimeLimit\n");
        QCOMPARE(q->state, std::string("PENDING"));
        QCOMPARE(q->reason, std::string("PartitionTimeLimit"));
        q = parse_squeue("RUNNING|None\n");
        QCOMPARE(q->reason, std::string("None"));
        q = parse_squeue("PENDING|ReqNodeNotAvail, UnavailableNodes:n1\n");
        QCOMPARE(q->reason, std::string("ReqNodeNotAvail, UnavailableNodes:n1"));
        QVERIFY(!parse_squeue(""));
        QVERIFY(!parse_squeue("RUNNING"));
        QVERIFY(!parse_squeue("|x"));
        // A job the controller no longer knows (slurm_strerror(ESLURM_INVALID_JOB_ID)) is gone;
        // an unreachable controller (SLURM_COMMUNICATIONS_CONNECTION_ERROR) says nothing about it.
        QVERIFY(squeue_says_job_gone("slurm_load_jobs error: Invalid job id specified"));
        QVERIFY(!squeue_says_job_gone("slurm_load_jobs error: Unable to contact slurm controller (connect failure)"));
        QVERIFY(!squeue_says_job_gone(""));
    }
    void statesAndReasons() {
        QVERIFY(slurm_state_info("PENDING").phase == SlurmPhase::Queued);
        QVERIFY(slurm_state_info("REQUEUED").phase == SlurmPhase::Queued);
        QVERIFY(slurm_state_info("REQUEUE_HOLD").phase == SlurmPhase::Queued);
        QVERIFY(slurm_state_info("RUNNING").phase == SlurmPhase::Running);
        QVERIFY(slurm_state_info("COMPLETING").phase == SlurmPhase::Running);
        QVERIFY(slurm_state_info("COMPLETED").phase == SlurmPhase::Succeeded);
        QVERIFY(slurm_state_info("CANCELLED").phase == SlurmPhase::Cancelled);
        for (const char* s : {"FAILED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY", "PREEMPTED", "BOOT_FAIL", "DEADLINE"})
            QVERIFY2(slurm_state_info(s).phase == SlurmPhase::Failed, s);
        QVERIFY(slurm_state_info("UNKNOWN").phase == SlurmPhase::Unknown);
        QVERIFY(slurm_state_info("").phase == SlurmPhase::Unknown);
        // Reasons waiting cures, and those it never does (job_reason_string names).
        QVERIFY(!slurm_reason_info("Resources").blocked);
        QVERIFY(!slurm_reason_info("Priority").blocked);
        QVERIFY(!slurm_reason_info("None").blocked);
        QVERIFY(slurm_reason_info("None").advice.empty());
        QVERIFY(slurm_reason_info("PartitionTimeLimit").blocked);
        QVERIFY(slurm_reason_info("PartitionTimeLimit").advice.find("runtime.slurm.time") != std::string::npos);
        QVERIFY(slurm_reason_info("BadConstraints").blocked);
        QVERIFY(slurm_reason_info("DependencyNeverSatisfied").blocked);
        QVERIFY(!slurm_reason_info("ReqNodeNotAvail, UnavailableNodes:n1").blocked);
        QVERIFY(!slurm_reason_info("ReqNodeNotAvail, UnavailableNodes:n1").advice.empty());
        QVERIFY(slurm_reason_info("SomethingNew").advice.empty());
    }
    void sbatchErrors() {
        // src/sbatch/sbatch.c reports through error(): "sbatch: error: ..." on stderr.
        QVERIFY(is_sbatch_error("sbatch: error: invalid partition specified: nosuch"));
        QVERIFY(is_sbatch_error("sbatch: error: Batch job submission failed: Invalid partition name specified"));
        QVERIFY(!is_sbatch_error("ssh: connect to host node1 port 22: Connection refused"));
        QVERIFY(!is_sbatch_error(""));
    }
    void commands() {
        // Every call is bounded on the login node (coreutils timeout).
        QCOMPARE(squeue_command(7), std::string("timeout -k 5 30 squeue -h -j 7 -o '%T|%r'"));
        QCOMPARE(sacct_command(7), std::string("timeout -k 5 30 sacct -n -P -X -j 7 -o State,ExitCode"));
        QCOMPARE(scancel_command(7), std::string("timeout -k 5 30 scancel 7"));
        QCOMPARE(scancel_kill_command(7), std::string("timeout -k 5 30 scancel --signal=KILL 7"));
        QCOMPARE(final_state_command(7),
                 std::string("timeout -k 5 30 scontrol -o show job 7 2>/dev/null; timeout -k 5 30 sacct -n -P -X -j 7 "
                             "-o State,ExitCode 2>/dev/null; true"));
        QCOMPARE(sinfo_nodes_command(), std::string("timeout -k 5 30 sinfo -N -h -o '%N %P %G'"));
        // A launch can set another bound (Job::setSlurmCallTimeout): every part of a command takes it.
        QCOMPARE(squeue_command(7, 4), std::string("timeout -k 5 4 squeue -h -j 7 -o '%T|%r'"));
        QCOMPARE(scancel_kill_command(7, 4), std::string("timeout -k 5 4 scancel --signal=KILL 7"));
        QCOMPARE(final_state_command(7, 4),
                 std::string("timeout -k 5 4 scontrol -o show job 7 2>/dev/null; timeout -k 5 4 sacct -n -P -X -j 7 "
                             "-o State,ExitCode 2>/dev/null; true"));
        QCOMPARE(sinfo_down_command("n[1-2]", 4), std::string("timeout -k 5 4 sinfo -h -N -R -n 'n[1-2]' -o '%N|%E'"));
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "tst_slurm.moc"
