// runtime.slurm.gpus "auto": sinfo's per-node gres read (parse_sinfo_nodes) and the choice
// of the GPUs a job asks for (choose_slurm_gpus), on the text the loopback Slurm 22.05 of
// scripts/slurm-up.sh prints for `sinfo -N -h -o '%N %P %G'` and on the forms sinfo(1)
// documents for typed gres with socket lists.
#include "launch/slurm_gpus.h"
#include "slurm/slurm.h"

#include <QtTest>

using namespace paraplan::runtime;

namespace {
// Captured from scripts/slurm-up.sh's cluster (Slurm 22.05): n1 in "cpu" (default) and
// "mixed", g1 in "gpu" and "mixed", g3's typed gres only in "mixed".
const char* kLoopback =
    "g1 gpu gpu:2\n"
    "g1 mixed gpu:2\n"
    "g2 gpu gpu:2\n"
    "g3 mixed gpu:big:4\n"
    "n1 cpu* (null)\n"
    "n1 mixed (null)\n"
    "n2 cpu* (null)\n";
}   // namespace

class TestSlurmGpus : public QObject {
    Q_OBJECT
private slots:
    void parsesSinfoLines() {
        const auto nodes = parse_sinfo_nodes(kLoopback);
        QCOMPARE(nodes.size(), std::size_t(7));
        QCOMPARE(nodes[0].node, std::string("g1"));
        QCOMPARE(nodes[0].partition, std::string("gpu"));
        QVERIFY(!nodes[0].default_partition);
        QCOMPARE(nodes[0].gpus.at(""), 2LL);
        QCOMPARE(nodes[3].gpus.at("big"), 4LL);
        QCOMPARE(nodes[3].total(), 4LL);
        QCOMPARE(nodes[4].partition, std::string("cpu"));
        QVERIFY(nodes[4].default_partition);
        QVERIFY(nodes[4].gpus.empty());
        // Typed gres with socket lists (commas inside them), other gres, K suffixes; lines
        // without three fields are skipped.
        const auto more = parse_sinfo_nodes(
            "a1 p gpu:a100:4(S:0,2),gpu:v100:2(S:1),mps:100K\n"
            "garbage\n"
            "  b2   p*   gpu:8(S:0-1)  \n");
        QCOMPARE(more.size(), std::size_t(2));
        QCOMPARE(more[0].gpus.size(), std::size_t(2));
        QCOMPARE(more[0].gpus.at("a100"), 4LL);
        QCOMPARE(more[0].gpus.at("v100"), 2LL);
        QCOMPARE(more[0].total(), 6LL);
        QCOMPARE(more[1].gpus.at(""), 8LL);
        QVERIFY(more[1].default_partition);
        QVERIFY(parse_sinfo_nodes("").empty());
    }

    void uniformPartitionAsksAsBefore() {
        const auto nodes = parse_sinfo_nodes(kLoopback);
        auto c = choose_slurm_gpus(nodes, "gpu", 2, 2);
        QVERIFY(c.ok);
        QCOMPARE(c.sbatch_args, std::vector<std::string>({"--gpus-per-node=2"}));
        QVERIFY2(c.note.find("partition gpu has gpu:2 on g1, g2") != std::string::npos, c.note.c_str());
        // The default partition has no gpu gres: nothing asked.
        c = choose_slurm_gpus(nodes, "", 2, 2);
        QVERIFY(c.ok);
        QVERIFY(c.sbatch_args.empty());
        QVERIFY2(c.note.find("the default partition has no gpu gres") != std::string::npos, c.note.c_str());
        // A partition sinfo does not list: nothing asked, sbatch names the bad partition.
        c = choose_slurm_gpus(nodes, "nosuch", 1, 2);
        QVERIFY(c.ok);
        QVERIFY(c.sbatch_args.empty());
        // More GPUs per node than the nodes have: refused with what to change.
        c = choose_slurm_gpus(nodes, "gpu", 1, 4);
        QVERIFY(!c.ok);
        QVERIFY2(c.error.find("partition gpu has at most 2 GPUs of one type per node") != std::string::npos,
                 c.error.c_str());
        QVERIFY(c.error.find("runtime.slurm.partition") != std::string::npos);
        // More nodes than it has.
        c = choose_slurm_gpus(nodes, "gpu", 3, 2);
        QVERIFY(!c.ok);
        QVERIFY2(c.error.find("no GPU type with 2 or more GPUs on 3 nodes") != std::string::npos, c.error.c_str());
        QVERIFY(c.error.find("\"gres\"") == std::string::npos);   // gres would not help either
    }

    void mixedPartitionChoosesAType() {
        const auto nodes = parse_sinfo_nodes(kLoopback);
        // 4 per node: only g3's typed gpus fit; the request names the type.
        auto c = choose_slurm_gpus(nodes, "mixed", 1, 4);
        QVERIFY2(c.ok, c.error.c_str());
        QCOMPARE(c.sbatch_args, std::vector<std::string>({"--gpus-per-node=big:4"}));
        QVERIFY2(c.note.find("fit gpu type big (g3)") != std::string::npos, c.note.c_str());
        // 2 per node on one node: g1 (2) and g3 (4) both fit; the smaller node is chosen and
        // the untyped request kept off g3.
        c = choose_slurm_gpus(nodes, "mixed", 1, 2);
        QVERIFY2(c.ok, c.error.c_str());
        QCOMPARE(c.sbatch_args, std::vector<std::string>({"--gpus-per-node=2", "--exclude=g3"}));
        // 2 nodes with 4: one node has them; refused, no "gres" hint (only one node fits at all).
        c = choose_slurm_gpus(nodes, "mixed", 2, 4);
        QVERIFY(!c.ok);
        QVERIFY2(c.error.find("partition mixed has no GPU type with 4 or more GPUs on 2 nodes (gpu type big: g3") !=
                     std::string::npos,
                 c.error.c_str());
        QVERIFY(c.error.find("\"gres\"") == std::string::npos);
        // 2 nodes with 2: g1 and g3 fit together but are of two types: refused, and "gres"
        // named as the way to let Slurm mix them.
        c = choose_slurm_gpus(nodes, "mixed", 2, 2);
        QVERIFY(!c.ok);
        QVERIFY2(c.error.find("untyped gpu: g1; gpu type big: g3") != std::string::npos, c.error.c_str());
        QVERIFY(c.error.find("set runtime.slurm.gpus to \"gres\"") != std::string::npos);
        // A node with two types: neither alone gives 4.
        const auto two = parse_sinfo_nodes("a1 p gpu:a100:2,gpu:v100:2\na2 p gpu:a100:4\n");
        c = choose_slurm_gpus(two, "p", 1, 4);
        QVERIFY(c.ok);
        QCOMPARE(c.sbatch_args, std::vector<std::string>({"--gpus-per-node=a100:4"}));
        QVERIFY(!choose_slurm_gpus(two, "p", 2, 4).ok);
    }
};

QTEST_GUILESS_MAIN(TestSlurmGpus)
#include "tst_slurm_gpus.moc"
