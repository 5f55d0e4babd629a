// The layout File > New starts from (search/starting_layout.h): data parallelism over every
// GPU with the lowest ZeRO stage at which the estimate fits. Llama 3.1 8B on one node of eight
// H100s does not fit in plain data parallelism (16 bytes of weights, gradients and Adam states
// per parameter: about 128 GB per GPU), so a new project must not open red.
#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "project/project.h"
#include "rules/validate.h"
#include "search/starting_layout.h"

#include <QtTest>

using namespace paraplan;

namespace {

Project fresh(const std::string& model, const std::string& gpu, int nodes, int gpus, const std::string& framework) {
    Project p;
    p.name = "new";
    for (int i = 0; i < nodes; ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.gpu = gpu;
        n.gpus = gpus;
        p.cluster.nodes.push_back(n);
    }
    const ModelSpec* spec = catalog::find_model(model);
    if (spec) p.model = *spec;
    p.layout.framework = framework;
    p.layout.tp = 4;   // whatever was there: the start is plain data parallelism
    return p;
}

bool fits(const Project& p) { return estimate::estimate_project(p).memory.fits; }

}   // namespace

class TestStartingLayout : public QObject {
    Q_OBJECT
private slots:
    void lowestZeroStageThatFits_data() {
        QTest::addColumn<QString>("framework");
        QTest::newRow("colossalai") << "colossalai";
        QTest::newRow("deepspeed") << "deepspeed";
    }
    void lowestZeroStageThatFits() {
        QFETCH(QString, framework);
        Project p = fresh("llama3.1-8b", "h100-sxm", 1, 8, framework.toStdString());
        QVERIFY(catalog::find_model("llama3.1-8b"));
        const auto start = search::start_data_parallel(p);
        QVERIFY(start.fits);
        QVERIFY2(start.zero_stage > 0, "plain data parallelism was expected not to fit here");
        QCOMPARE(p.layout.zero_stage, start.zero_stage);
        QCOMPARE(p.layout.tp, 1);
        QCOMPARE(p.layout.pp, 1);
        QCOMPARE(p.training.micro_batch_size, 1);
        QCOMPARE(p.training.global_batch_size % p.world_size(), 0);
        QVERIFY(fits(p));
        QVERIFY(!has_errors(validate(p)));
        // The lowest: one stage less does not fit.
        Project lower = p;
        lower.layout.zero_stage = start.zero_stage - 1;
        QVERIFY(!fits(lower));
    }

    void smallModelStaysAtStageZero() {
        Project p = fresh("gpt2", "h100-sxm", 1, 8, "colossalai");
        QVERIFY(catalog::find_model("gpt2"));
        const auto start = search::start_data_parallel(p);
        QVERIFY(start.fits);
        QCOMPARE(start.zero_stage, 0);
        QCOMPARE(p.layout.zero_stage, 0);
    }

    void tooBigForAnyStageSaysSo() {
        // 405B parameters on one GPU: even ZeRO-3's one shard is the whole model.
        Project p = fresh("llama3.1-405b", "h100-sxm", 1, 1, "deepspeed");
        QVERIFY(catalog::find_model("llama3.1-405b"));
        const auto start = search::start_data_parallel(p);
        QVERIFY(!start.fits);
        QCOMPARE(p.layout.zero_stage, 0);
    }
};

QTEST_APPLESS_MAIN(TestStartingLayout)
#include "tst_starting_layout.moc"
