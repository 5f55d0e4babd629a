// Slurm output parsing: sbatch --parsable ids and sacct -P State|ExitCode lines.
#include "runtime/slurm.h"

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
    }
    void commands() {
        QCOMPARE(squeue_command(7), std::string("squeue -h -j 7 -o %T"));
        QCOMPARE(sacct_command(7), std::string("sacct -n -P -X -j 7 -o State,ExitCode"));
        QCOMPARE(scancel_command(7), std::string("scancel 7"));
    }
};

QTEST_GUILESS_MAIN(TestSlurm)
#include "tst_slurm.moc"
