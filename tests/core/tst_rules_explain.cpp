// Error lookup: real messages of every framework (from their sources and issue
// threads) name the right rule; with a project the fixes clear that rule.
#include "rules_fixtures.h"

#include "rules/explain_error.h"

using namespace paraplan;
using namespace paraplan::test;

class TestRulesExplain : public QObject {
    Q_OBJECT
private slots:
    void messages_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("rule");
        QTest::addColumn<QString>("framework");
        QTest::addColumn<QString>("mentions");
        // ColossalAI (issue #6202, hybrid_parallel_plugin.py, process_group_mesh.py, _operation.py, moe plugin)
        QTest::newRow("colossal world") << "Traceback ...\nAssertionError: World size 8 is not divisible by tp_size 1 "
                                           "* pp_size 3\nException ignored in: <function HybridParallelPlugin.__del__>"
                                        << "colossalai.world_divisible"
                                        << "colossalai"
                                        << "8 GPUs";
        QTest::newRow("colossal mesh")
            << "AssertionError: The product of the size(6) must be equal to the world size(8)."
            << "colossalai.world_divisible_sp"
            << "colossalai"
            << "6 ranks";
        QTest::newRow("colossal seq split") << "AssertionError: The dimension to split (4097) is not a multiple of "
                                               "world size (4), cannot split tensor evenly"
                                            << "colossalai.seq_divisible"
                                            << "colossalai"
                                            << "4097";
        QTest::newRow("colossal moe stage")
            << "ValueError: No parameters found in moe_dp_group, please consider using HybridParallelPlugin instead"
            << "colossalai.moe_stage_has_experts"
            << "colossalai-moe"
            << "MoE layer";
        QTest::newRow("colossal zero pp") << "AssertionError: To avoid prohibitive gradient synchronization costs, "
                                             "zero stage must be 0 or 1 when using pipeline parallelism"
                                          << "colossalai.zero_stage_with_pp"
                                          << "colossalai"
                                          << "ZeRO";
        // Megatron-LM (arguments.py, transformer_config.py, parallel_state.py)
        QTest::newRow("megatron heads")
            << "AssertionError: num_attention_heads (30) must be a multiple of tensor_model_parallel_size (4)."
            << "megatron.heads_divisible_tp"
            << "megatron"
            << "30 heads";
        QTest::newRow("megatron expert grid")
            << "RuntimeError: decoder world_size (4) is not divisible by expert_tensor_model_pipeline_parallel size (8)"
            << "megatron.expert_grid"
            << "megatron"
            << "world (4)";
        QTest::newRow("megatron gbs") << "AssertionError: global batch size (6) is not divisible by micro batch size "
                                         "(2) times data parallel size (2)"
                                      << "megatron.global_batch"
                                      << "megatron"
                                      << "(6)";
        QTest::newRow("megatron world") << "RuntimeError: world_size (12) is not divisible by 8"
                                        << "megatron.world_divisible"
                                        << "megatron"
                                        << "(12)";
        // torchtitan (parallel_dims.py and its unit test)
        QTest::newRow("titan ep") << "ValueError: expert_parallel_degree (3) must divide dp_shard * cp * tp (2)"
                                  << "torchtitan.ep_divides"
                                  << "torchtitan"
                                  << "ep = 3";
        QTest::newRow("titan dims") << "AssertionError: Invalid parallel dims: dp_replicate(2) * dp_shard(2) * cp(1) * "
                                       "tp(2) * pp(1) != WORLD_SIZE(10)"
                                    << "torchtitan.world_product"
                                    << "torchtitan"
                                    << "world size";
        // DeepSpeed (issue #6914)
        QTest::newRow("deepspeed batch")
            << "AssertionError: Check batch related parameters. train_batch_size is not equal to micro_batch_per_gpu * "
               "gradient_acc_step * world_size 8 != 2 * 1 * 1"
            << "deepspeed.batch"
            << "deepspeed"
            << "8 != 2 × 1 × 1";
        QTest::newRow("deepspeed pipe zero")
            << "AssertionError: ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"
            << "deepspeed.zero_with_pp"
            << "deepspeed"
            << "ZeRO stage 0 or 1";
        // NCCL / PyTorch / CUDA
        QTest::newRow("nccl system") << "torch.distributed.DistBackendError: NCCL error in: "
                                        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691, unhandled system "
                                        "error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3"
                                     << "nccl.unhandled_system_error"
                                     << "nccl"
                                     << "NCCL_SOCKET_IFNAME";
        QTest::newRow("nccl watchdog")
            << "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, "
               "NumelOut=1, Timeout(ms)=600000) ran for 600012 milliseconds before timing out."
            << "nccl.watchdog_timeout"
            << "nccl"
            << "timeout";
        QTest::newRow("oom") << "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
                                "total capacity of 79.15 GiB of which 1.2 GiB is free."
                             << "cuda.out_of_memory"
                             << "cuda"
                             << "micro batch";
        QTest::newRow("rendezvous") << "torch.distributed.DistNetworkError: The client socket has timed out after 900s "
                                       "while trying to connect to (10.0.0.1, 29500)."
                                    << "pytorch.rendezvous"
                                    << "pytorch"
                                    << "MASTER_ADDR";
    }
    void messages() {
        QFETCH(QString, text);
        QFETCH(QString, rule);
        QFETCH(QString, framework);
        QFETCH(QString, mentions);
        const ErrorExplanation e = explain_error(text.toStdString());
        QVERIFY(e.matched);
        QCOMPARE(QString::fromStdString(e.rule), rule);
        QCOMPARE(QString::fromStdString(e.framework), framework);
        QVERIFY2(e.explanation.find(mentions.toStdString()) != std::string::npos, e.explanation.c_str());
        const auto j = to_json(e);
        QCOMPARE(j["matched"].get<bool>(), true);
        QCOMPARE(QString::fromStdString(j["rule"].get<std::string>()), rule);
    }

    void unknownMessage() {
        const ErrorExplanation e = explain_error("SyntaxError: invalid syntax");
        QVERIFY(!e.matched);
        QVERIFY(to_json(e)["rule"].is_null());
    }

    // With a project that breaks the rule, the fixes are the validator's and clear it.
    void projectFixes() {
        const Project p = test_project("colossalai", 1, 8, llama3_8b()).pp(3).build();
        const ErrorExplanation e = explain_error(
            "AssertionError: World size 8 is not divisible by tp_size 1 * pp_size 3", &p);
        QVERIFY(e.matched);
        QVERIFY(!e.fixes.empty());
        QVERIFY(find_rule(e.diagnostics, "colossalai.world_divisible"));
        for (const auto& f : e.fixes) QVERIFY(!find_rule(validate(with_fix(p, f)), "colossalai.world_divisible"));
    }

    // OOM on a valid project: memory-saving changes that keep it valid.
    void oomFixes() {
        const Project p =
            test_project("colossalai", 2, 8, llama3_8b()).tp(2).micro_batch_size(4).global_batch_size(128).build();
        const ErrorExplanation e = explain_error("CUDA out of memory. Tried to allocate 1.00 GiB", &p);
        QVERIFY(e.matched);
        QVERIFY(e.fixes.size() >= 2);
        QCOMPARE(e.fixes.front().changes.front().field, std::string("/training/micro_batch_size"));
        QCOMPARE(e.fixes.front().changes.front().value.get<int>(), 2);
        for (const auto& f : e.fixes) QVERIFY2(!has_errors(validate(with_fix(p, f))), f.label.c_str());
    }

    // Every framework_error the validator writes is recognised by the lookup as the same rule.
    void validatorTextsRoundTrip() {
        struct C {
            Project p;
            std::string rule;
        };
        const Project b = test_project("colossalai", 2, 8, llama3_8b()).tp(2).pp(2).build();
        const std::vector<C> cs = {
            {ProjectBuilder(b).pp(3).build(), "colossalai.world_divisible"},
            {ProjectBuilder(b).zero_stage(2).build(), "colossalai.zero_stage_with_pp"},
            {ProjectBuilder(b).sp_mode(SpMode::split_gather).seq_len(4095).build(), "colossalai.seq_divisible"},
            {ProjectBuilder(b).framework("megatron").tp(4).heads(30).kv_heads(30).build(),
             "megatron.heads_divisible_tp"},
            {ProjectBuilder(b).framework("deepspeed").pp(2).zero_stage(2).build(), "deepspeed.zero_with_pp"},
        };
        for (const auto& c : cs) {
            const auto ds = validate(c.p);
            const Diagnostic* d = find_rule(ds, c.rule);
            QVERIFY2(d, (c.rule + " not reported: " + rule_list(ds)).c_str());
            const ErrorExplanation e = explain_error(d->framework_error, &c.p);
            QVERIFY2(e.matched && e.rule == c.rule,
                     (c.rule + " <- '" + d->framework_error + "' gave " + e.rule).c_str());
        }
    }
};

QTEST_APPLESS_MAIN(TestRulesExplain)
#include "tst_rules_explain.moc"
