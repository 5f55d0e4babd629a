// Layer split against the worked examples of ColossalAI's
// PipelineStageManager.distribute_layers / get_stage_index (colossalai/pipeline/stage_manager.py,
// v0.5.1) and the virtual-pipeline docstring of Megatron's initialize_model_parallel (core_v0.19.0).
#include "topology/layer_split.h"

#include <QtTest>

#include <stdexcept>

using namespace paraplan;

Q_DECLARE_METATYPE(std::vector<int>)

namespace {
std::string show(const StageLayers& s) {
    std::string out;
    for (std::size_t i = 0; i < s.size(); ++i) {
        out += std::to_string(i) + ":";
        for (const auto& r : s[i]) out += "[" + std::to_string(r.begin) + "," + std::to_string(r.end) + ")";
        out += " ";
    }
    return out;
}
}   // namespace

class TestLayerSplit : public QObject {
    Q_OBJECT
private slots:
    void distribute_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("stages");
        QTest::addColumn<int>("chunks");
        QTest::addColumn<std::vector<int>>("expected");
        QTest::newRow("32,4,1") << 32 << 4 << 1 << std::vector<int>{8, 8, 8, 8};
        QTest::newRow("30,4,1") << 30 << 4 << 1 << std::vector<int>{7, 8, 8, 7};
        QTest::newRow("32,3,1") << 32 << 3 << 1 << std::vector<int>{11, 11, 10};
        QTest::newRow("7,4,1") << 7 << 4 << 1 << std::vector<int>{1, 2, 2, 2};
        QTest::newRow("2,4,1 empty") << 2 << 4 << 1 << std::vector<int>{0, 1, 1, 0};
        QTest::newRow("30,4,2") << 30 << 4 << 2 << std::vector<int>{3, 4, 4, 4, 4, 4, 4, 3};
        QTest::newRow("26,4,2") << 26 << 4 << 2 << std::vector<int>{3, 3, 3, 4, 4, 3, 3, 3};
        std::vector<int> ds(16, 4);
        ds[0] = 3;
        ds[1] = 3;
        ds[15] = 3;
        QTest::newRow("61,16,1 deepseek") << 61 << 16 << 1 << ds;
    }
    void distribute() {
        QFETCH(int, layers);
        QFETCH(int, stages);
        QFETCH(int, chunks);
        QFETCH(std::vector<int>, expected);
        QCOMPARE(colossalai_distribute_layers(layers, stages, chunks), expected);
    }

    void stageRanges_data() {
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("stages");
        QTest::addColumn<QString>("style");
        QTest::addColumn<int>("chunks");
        QTest::addColumn<QString>("expected");
        QTest::newRow("30 1f1b") << 30 << 4 << "1f1b" << 1 << "0:[0,7) 1:[7,15) 2:[15,23) 3:[23,30) ";
        QTest::newRow("32 interleaved") << 32 << 4 << "interleaved" << 2
                                        << "0:[0,4)[16,20) 1:[4,8)[20,24) 2:[8,12)[24,28) 3:[12,16)[28,32) ";
        QTest::newRow("30 interleaved") << 30 << 4 << "interleaved" << 2
                                        << "0:[0,3)[15,19) 1:[3,7)[19,23) 2:[7,11)[23,27) 3:[11,15)[27,30) ";
        QTest::newRow("8 zbv") << 8 << 4 << "zbv" << 2 << "0:[0,1)[7,8) 1:[1,2)[6,7) 2:[2,3)[5,6) 3:[3,4)[4,5) ";
        QTest::newRow("28 zbv") << 28 << 2 << "zbv" << 2 << "0:[0,7)[21,28) 1:[7,14)[14,21) ";
        QTest::newRow("26 zbv") << 26 << 4 << "zbv" << 2
                                << "0:[0,3)[23,26) 1:[3,6)[20,23) 2:[6,9)[17,20) 3:[9,13)[13,17) ";
    }
    void stageRanges() {
        QFETCH(int, layers);
        QFETCH(int, stages);
        QFETCH(QString, style);
        QFETCH(int, chunks);
        QFETCH(QString, expected);
        QCOMPARE(QString::fromStdString(
                     show(colossalai_stage_layers(layers, stages, *parse_schedule(style.toStdString()), chunks))),
                 expected);
    }

    void manualSplit() {
        const auto s = colossalai_stage_layers(32, 4, Schedule::one_f_one_b, 1, {4, 10, 10, 8});
        QCOMPARE(QString::fromStdString(show(s)), QString("0:[0,4) 1:[4,14) 2:[14,24) 3:[24,32) "));
        QCOMPARE(layers_on_stage(s, 1), 10);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 colossalai_stage_layers(32, 4, Schedule::one_f_one_b, 1, {8, 8, 16}));   // len != pp
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 colossalai_stage_layers(32, 4, Schedule::one_f_one_b, 1, {8, 8, 8, 7}));   // sum != L
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument,
                                 colossalai_stage_layers(32, 4, Schedule::interleaved, 2, {8, 8, 8, 8}));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, colossalai_stage_layers(32, 4, Schedule::gpipe, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, colossalai_stage_layers(32, 4, Schedule::zbv, 3));
    }

    // Megatron docstring: L=16, PP=4, v=2 (1-based) GPU0 [1,2] [9,10]; GPU1 [3,4] [11,12]; ...
    void megatronVirtual() {
        const auto s = megatron_stage_layers(16, 4, 2);
        QCOMPARE(QString::fromStdString(show(s)),
                 QString("0:[0,2)[8,10) 1:[2,4)[10,12) 2:[4,6)[12,14) 3:[6,8)[14,16) "));
        QCOMPARE(QString::fromStdString(show(megatron_stage_layers(32, 4, 1))),
                 QString("0:[0,8) 1:[8,16) 2:[16,24) 3:[24,32) "));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, megatron_stage_layers(30, 4, 1));
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, megatron_stage_layers(32, 4, 3));
    }
};

QTEST_APPLESS_MAIN(TestLayerSplit)
#include "tst_layer_split.moc"
