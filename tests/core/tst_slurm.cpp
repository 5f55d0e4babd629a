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
        f = parse_sacct("CANCELLED by 1000|0:15\n");
        QCOMPARE(f->state, std::string("CANCELLED"));
        QCOMPARE(f->exit_code, 128 + 15);
        QVERIFY(!parse_sacct(""));
        QVERIFY(!parse_sacct("garbage"));
        // Found by fuzz_slurm_log once UBSan stopped at the first finding: a long digit run
        // overflowed int (undefined). It saturates and still reads as a failure.
        f = parse_sacct("4E y 1|:5512424242;e160\np");
        QVERIFY(f && !f->succeeded());
        QCOMPARE(f->exit_code, 128 + (1 << 20));
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
        QCOMPARE(f->exit_code, 128 + 15);
        QVERIFY(parse_scontrol_job("JobId=9 JobState=COMPLETED Reason=None ExitCode=0:0")->succeeded());
        QVERIFY(!parse_scontrol_job("slurm_load_jobs error: Invalid job id specified\n"));
        // DerivedExitCode is not ExitCode.
        QCOMPARE(parse_scontrol_job("JobState=FAILED DerivedExitCode=9:0 ExitCode=2:0")->exit_code, 2);
        // final_state_command's output: scontrol first, sacct when the controller forgot it.
        QCOMPARE(parse_final_state("JobId=7 JobState=TIMEOUT ExitCode=0:0\nTIMEOUT|0:0\n")->state,
                 std::string("TIMEOUT"));
        QCOMPARE(parse_final_state("FAILED|4:0\n")->exit_code, 4);
        QVERIFY(!parse_final_state(""));
    }
    void commands() {
        QCOMPARE(squeue_command(7), std::string("squeue -h -j 7 -o %T"));
        QCOMPARE(sacct_command(7), std::string("sacct -n -P -X -j 7 -o State,ExitCode"));
        QCOMPARE(scancel_command(7), std::string("scancel 7"));
        QCOMPARE(
            final_state_command(7),
            std::string("scontrol -o show job 7 2>/dev/null; sacct -n -P -X -j 7 -o State,ExitCode 2>/dev/null; true"));
        // Without a partition only the default one (marked '*') counts.
        QCOMPARE(sinfo_gres_command(""), std::string("sinfo -h -o '%P %G' | awk '$1 ~ /[*]$/ { print $2 }'"));
        QCOMPARE(sinfo_gres_command("a b"), std::string("sinfo -h -p 'a b' -o '%P %G' | awk '{ print $2 }'"));
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "tst_slurm.moc"
