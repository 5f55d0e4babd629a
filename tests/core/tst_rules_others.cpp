// Megatron-LM, torchtitan, DeepSpeed, DeviceMesh and the shared cluster/kernel
// rules. Cases from the checks in Megatron-LM core_v0.19.0 (megatron/training/arguments.py
// validate_args, parallel_state.py, schedules.py), torchtitan v0.2.2 (parallel_dims.py) and
// DeepSpeed v0.16.5 (deepspeed/runtime/config.py).
#include "rules_fixtures.h"

#include "rules/rule_kit.h"
#include "project/project.h"

using namespace paraplan;
using namespace paraplan::test;

namespace {

// Llama-3.1-8B, Megatron, 2 x 8 GPUs, tp 2 pp 2 (dp 4) with --sequence-parallel.
Project mg() {
    return test_project("megatron", 2, 8, llama3_8b())
        .tp(2)
        .pp(2)
        .sp_mode(SpMode::split_gather)
        .zero_stage(1)
        .distributed_optimizer(true)
        .build();
}

Project tt() { return test_project("torchtitan", 1, 8, llama3_8b()).tp(2).global_batch_size(32).build(); }

Project ds() {
    return test_project("deepspeed", 1, 8, llama3_8b()).zero_stage(2).global_batch_size(32).micro_batch_size(4).build();
}

void run_cases(const std::vector<RuleCase>& cases) {
    for (const auto& c : cases) {
        check_case(c);
        if (QTest::currentTestFailed()) return;
    }
}

}   // namespace

class TestRulesOthers : public QObject {
    Q_OBJECT
private slots:
    void basesAreClean() {
        for (const Project& p : {mg(), tt(), ds()}) {
            const auto d = validate(p);
            QVERIFY2(!has_errors(d), (p.layout.framework + ": " + rule_list(d)).c_str());
        }
    }

    void megatron() {
        const Project b = mg();
        const Project moe = test_project("megatron", 2, 8, mixtral_8x7b()).ep(8).build();
        const Project vpp = test_project("megatron", 2, 8, llama3_8b())
                                .pp(4)
                                .chunks(2)
                                .schedule(Schedule::interleaved)
                                .global_batch_size(32)   // dp 4 -> M = 8
                                .build();
        run_cases({
            // world 12, TP2 PP4 -> 12 % 8
            {"world",
             test_project("megatron", 3, 4, llama3_8b()).tp(2).pp(4).build(),
             test_project("megatron", 3, 4, llama3_8b()).tp(2).pp(2).global_batch_size(63).build(),
             "megatron.world_divisible",
             Severity::Error,
             {"12", "8"},
             "world_size (12) is not divisible by 8"},
            {"sp mode",
             ProjectBuilder(b).sp_mode(SpMode::all_to_all).sp(2).build(),
             b,
             "megatron.sp_mode",
             Severity::Error,
             {"all_to_all"},
             ""},
            {"sp needs tp",
             ProjectBuilder(b).tp(1).build(),
             b,
             "megatron.sequence_parallel_needs_tp",
             Severity::Warning,
             {"tp = 1"},
             "Disabling sequence parallelism because tensor model parallelism is disabled"},
            {"expert grid",
             ProjectBuilder(moe).etp(4).build(),
             moe,
             "megatron.expert_grid",
             Severity::Error,
             {"16", "32"},
             "expert_tensor_model_pipeline_parallel size (32)"},
            // EP4 with 6 experts
            {"experts",
             ProjectBuilder(moe).experts(6).ep(4).build(),
             moe,
             "megatron.experts_divisible",
             Severity::Error,
             {"ep = 4", "6 experts"},
             "Number of experts should be a multiple of expert model parallel_size."},
            {"order",
             ProjectBuilder(b).order("tp-dp").build(),
             ProjectBuilder(b).order("tp-pp-dp").build(),
             "megatron.order",
             Severity::Error,
             {"pp"},
             "haven'tspecified the order"},
            // num_layers 30, PP4
            {"layers % pp",
             ProjectBuilder(b).layers(30).pp(4).tp(1).build(),
             ProjectBuilder(b).pp(4).tp(1).build(),
             "megatron.layers_divisible_pp",
             Severity::Error,
             {"30", "pp = 4"},
             "Number of layers should be divisible by the pipeline-model-parallel size"},
            // 32 layers + embedding + loss on PP4 -> 34 % 4 (validate_args, core 0.11+)
            {"layers + embedding + loss % pp",
             ProjectBuilder(b)
                 .pp(4)
                 .tp(1)
                 .account_for_embedding_in_pipeline_split(true)
                 .account_for_loss_in_pipeline_split(true)
                 .build(),
             ProjectBuilder(b).pp(4).tp(1).build(),
             "megatron.layers_divisible_pp",
             Severity::Error,
             {"32 layers + 2 (embedding and loss) = 34", "pp = 4"},
             "Number of layers should be divisible by the pipeline-model-parallel size"},
            // 30 layers + 2 on PP4 with vp 2 -> 32 / 4 = 8 per stage, 8 % 2 == 0: both flags are a fix.
            {"account-for fix",
             ProjectBuilder(vpp).layers(30).build(),
             vpp,
             "megatron.layers_divisible_pp",
             Severity::Error,
             {"30 layers", "pp = 4"},
             ""},
            {"account-for needs core 0.11",
             ProjectBuilder(b)
                 .account_for_loss_in_pipeline_split(true)
                 .layout_extra("megatron_version", "core_v0.10.0")
                 .build(),
             ProjectBuilder(b).layout_extra("megatron_version", "core_v0.10.0").build(),
             "megatron.account_for_in_split_version",
             Severity::Error,
             {"0.11", "core_v0.10.0"},
             "unrecognized arguments"},
            // 32 layers, PP4, vp 3 -> 8 % 3
            {"layers % vp",
             ProjectBuilder(vpp).chunks(3).build(),
             vpp,
             "megatron.layers_divisible_vp",
             Severity::Error,
             {"8 layers", "chunks = 3"},
             "divisible number of layers per virtual pipeline stage"},
            {"vp needs pp",
             ProjectBuilder(b).pp(1).chunks(2).build(),
             b,
             "megatron.virtual_stages_need_pp",
             Severity::Error,
             {"chunks = 2"},
             "greater than 1 with interleaved schedule"},
            // heads 30, TP4
            {"heads",
             ProjectBuilder(b).heads(30).kv_heads(30).tp(4).pp(1).build(),
             ProjectBuilder(b).tp(4).pp(1).build(),
             "megatron.heads_divisible_tp",
             Severity::Error,
             {"tp = 4", "30"},
             "num_attention_heads (30) must be a multiple of tensor_model_parallel_size (4)."},
            // query groups 8, TP16: fails on <= 0.14
            {"query groups old",
             test_project("megatron", 2, 8, llama3_8b())
                 .tp(16)
                 .sp_mode(SpMode::split_gather)
                 .layout_extra("megatron_version", "core_v0.14")
                 .global_batch_size(8)
                 .build(),
             test_project("megatron", 2, 8, llama3_8b())
                 .tp(16)
                 .sp_mode(SpMode::split_gather)
                 .layout_extra("megatron_version", "core_v0.16")
                 .global_batch_size(8)
                 .build(),
             "megatron.query_groups_divisible_tp",
             Severity::Warning,
             {"tp = 16", "8 query groups"},
             "num_query_groups (8)"},
            {"ffn",
             ProjectBuilder(b).ffn_hidden(4097).build(),
             b,
             "megatron.ffn_divisible_tp",
             Severity::Error,
             {"4097", "tp = 2"},
             "4097 is not divisible by 2"},
            // seq 4095, CP2
            {"seq cp",
             ProjectBuilder(b).cp(2).tp(1).sp_mode(SpMode::none).seq_len(4095).build(),
             ProjectBuilder(b).cp(2).tp(1).sp_mode(SpMode::none).build(),
             "megatron.seq_divisible_cp",
             Severity::Error,
             {"4095", "4"},
             "seq-length should be a multiple of 2 * context-parallel-size"},
            {"seq tp",
             ProjectBuilder(b).seq_len(4095).build(),
             b,
             "megatron.seq_divisible_tp",
             Severity::Error,
             {"4095", "tp = 2"},
             "divisible by tensor parallel size"},
            {"moe tp sp",
             ProjectBuilder(moe).tp(2).build(),
             ProjectBuilder(moe).tp(2).sp_mode(SpMode::split_gather).build(),
             "megatron.moe_tp_needs_sp",
             Severity::Error,
             {"tp = 2"},
             "tensor parallelismare enabled"},
            // world 16, TP2 PP2 CP2, MBS2 GBS6
            {"global batch",
             ProjectBuilder(b).cp(2).micro_batch_size(2).global_batch_size(6).build(),
             ProjectBuilder(b).cp(2).micro_batch_size(2).global_batch_size(8).build(),
             "megatron.global_batch",
             Severity::Error,
             {"6", "4"},
             "global batch size (6) is not divisible by micro batch size (2) times data parallel size (2)"},
            // Megatron has no microbatch-count flag: GBS 64 / (MBS 1 x DP 4) = 16 microbatches in one
            // flush per iteration (training.py train_step), whatever layout.num_microbatches says.
            // The estimate counts the same 16 (tst_estimate_time gradientAccumulation).
            {"layout microbatch count",
             ProjectBuilder(b).num_microbatches(4).build(),
             ProjectBuilder(b).num_microbatches(16).build(),
             "megatron.num_microbatches",
             Severity::Warning,
             {"64", "= 16 microbatches", "num_microbatches = 4"},
             ""},
            // VPP with M=6, PP=4 (remainder 2 < 4); M=3 < PP
            {"vpp M=6",
             ProjectBuilder(vpp).global_batch_size(24).build(),
             vpp,
             "megatron.interleaved_microbatches",
             Severity::Error,
             {"6"},
             "The remainder of M (6) divided by N (4)"},
            {"vpp M=3",
             ProjectBuilder(vpp).global_batch_size(12).build(),
             vpp,
             "megatron.interleaved_microbatches",
             Severity::Error,
             {"3"},
             "should range in [PP=4"},
            {"vpp old",
             ProjectBuilder(vpp).global_batch_size(24).layout_extra("megatron_version", "core_v0.9").build(),
             vpp,
             "megatron.interleaved_microbatches",
             Severity::Error,
             {"6"},
             "number of microbatches (6) is not divisible by pipeline-model-parallel-size (4)"},
            {"zero",
             ProjectBuilder(b).zero_stage(3).build(),
             b,
             "megatron.zero_stage",
             Severity::Warning,
             {"zero_stage 3"},
             ""},
            // arguments.py --fp8-recipe choices (core_v0.14.0) have no rowwise.
            {"fp8 rowwise recipe",
             ProjectBuilder(b).fp8(true).fp8_recipe(Fp8Recipe::rowwise).build(),
             ProjectBuilder(b).fp8(true).build(),
             "megatron.fp8_recipe",
             Severity::Error,
             {"rowwise", "fp8_recipe must be one of", "tensorwise, delayed, mxfp8, blockwise"},
             "invalid choice: 'rowwise'"},
            // --transformer-impl local has no FP8 layers.
            {"fp8 with eager kernels",
             ProjectBuilder(b).fp8(true).kernels("eager").build(),
             ProjectBuilder(b).fp8(true).kernels("te").build(),
             "megatron.fp8_kernels",
             Severity::Error,
             {"eager", "--transformer-impl local"},
             ""},
            // arguments.py (core_v0.19.0): --fp8-param-gather needs the distributed optimizer.
            {"fp8 param gather without the distributed optimizer",
             ProjectBuilder(b).fp8(true).fp8_all_gather(true).zero_stage(0).distributed_optimizer(false).build(),
             ProjectBuilder(b)
                 .fp8(true)
                 .fp8_all_gather(true)   // zero_stage 1 + distributed optimizer
                 .build(),
             "megatron.fp8_param_gather",
             Severity::Error,
             {"--fp8-param-gather", "distributed"},
             "--fp8-param-gather only supported with distributed optimizer"},
            // validate_args: --tp-comm-overlap asserts --sequence-parallel (which tp 1 turns off).
            {"tp comm overlap without sequence parallelism",
             ProjectBuilder(b).sp_mode(SpMode::none).tp_comm_overlap(true).build(),
             ProjectBuilder(b).tp_comm_overlap(true).build(),
             "kernel.tp_comm_overlap",
             Severity::Error,
             {"Megatron-LM", "TP communication overlap runs only with sequence parallelism", "exposed"},
             "can happen only when sequence parallelism is enabled"},
            // torchtitan's switch is not Megatron's: ignored, with the fix to Megatron's own.
            {"async tp under megatron",
             ProjectBuilder(b).enable_async_tensor_parallel(true).build(),
             ProjectBuilder(b).tp_comm_overlap(true).build(),
             "kernel.tp_comm_overlap",
             Severity::Warning,
             {"reads tp_comm_overlap", "enable_async_tensor_parallel is ignored"},
             ""},
            // Float8BlockScaling on an L40S (Ada, compute capability 8.9): TE v2.9
            // check_fp8_block_scaling_support needs 9.0; the H100 passes.
            {"blockwise on ada",
             ProjectBuilder(b).fp8(true).fp8_recipe(Fp8Recipe::blockwise).gpu("l40s").build(),
             ProjectBuilder(b).fp8(true).fp8_recipe(Fp8Recipe::blockwise).build(),
             "kernel.fp8_recipe_gpu",
             Severity::Error,
             {"L40S", "ada", "blockwise", "Hopper"},
             "requires compute capability 9.0 or higher"},
        });
        // Megatron's interleaved schedule under the name the schedule catalogue and the planner
        // give it is accepted like "interleaved"; PyTorch's interleaved schedule is not Megatron's.
        for (const char* name : {"interleaved-megatron", "interleaved_megatron", "Interleaved"}) {
            const auto dv = validate(ProjectBuilder(vpp).schedule(*parse_schedule(name)).build());
            QVERIFY2(!has_errors(dv), (std::string(name) + ": " + rule_list(dv)).c_str());
        }
        bool flagged = false;
        for (const auto& x : validate(ProjectBuilder(vpp).schedule(Schedule::interleaved_pytorch).build()))
            flagged = flagged || x.rule == "megatron.schedule";
        QVERIFY(flagged);
        // Query groups 8 with tp 16 pass without a version pin only as a warning (core >= 0.16 rule).
        const auto d = validate(test_project("megatron", 2, 8, llama3_8b())
                                    .tp(16)
                                    .sp_mode(SpMode::split_gather)
                                    .global_batch_size(8)
                                    .build());
        QVERIFY2(!has_errors(d), rule_list(d).c_str());
    }

    // 30 layers on pp 4 with two virtual stages: counting the embedding and the loss
    // (30 + 2 = 32 = 4 × 2 × 4) is the first fix, and applied it validates clean.
    void megatronAccountForSplitFix() {
        Project p = test_project("megatron", 2, 8, llama3_8b())
                        .layers(30)
                        .pp(4)
                        .chunks(2)
                        .schedule(Schedule::interleaved)
                        .global_batch_size(32)
                        .build();
        const auto ds = validate(p);
        const Diagnostic* d = find_rule(ds, "megatron.layers_divisible_pp");
        QVERIFY(d && !d->fixes.empty());
        QCOMPARE(d->fixes.front().changes.size(), std::size_t(2));
        QCOMPARE(d->fixes.front().changes[0].field, std::string("/layout/account_for_embedding_in_pipeline_split"));
        const Project fixed = with_fix(p, d->fixes.front());
        QVERIFY(fixed.layout.account_for_embedding_in_pipeline_split &&
                fixed.layout.account_for_loss_in_pipeline_split);
        QVERIFY2(!has_errors(validate(fixed)), rule_list(validate(fixed)).c_str());
        // 31 + 1 (the loss alone) = 32 also divides: offered, and clean too.
        p.model.layers = 31;
        const auto ds31 = validate(p);
        const Diagnostic* d31 = find_rule(ds31, "megatron.layers_divisible_pp");
        QVERIFY(d31 && !d31->fixes.empty());
        bool loss_only = false;
        for (const auto& f : d31->fixes)
            if (f.label.find("--account-for-loss-in-pipeline-split)") != std::string::npos &&
                f.label.find("embedding") == std::string::npos) {
                loss_only = true;
                QVERIFY(!has_errors(validate(with_fix(p, f))));
            }
        QVERIFY(loss_only);
    }

    void torchtitan() {
        const Project b = tt();
        // (dp_rep 2, dp_shard -1, tp 2, world 8) -> dp_shard 2, dp 4.
        Project inferred = ProjectBuilder(b).dp_replicate(2).build();
        QCOMPARE(rules::sizes(inferred).dp, 4);
        QVERIFY(!has_errors(validate(inferred)));
        const Project moe =
            test_project("torchtitan", 1, 4, mixtral_8x7b()).dp_replicate(2).dp_shard(2).global_batch_size(32).build();
        run_cases({
            // (2, 2, 1, 2, 1, world 10)
            {"world product",
             test_project("torchtitan", 1, 10, llama3_8b()).dp_replicate(2).dp_shard(2).tp(2).build(),
             inferred,
             "torchtitan.world_product",
             Severity::Error,
             {"8", "10"},
             "Invalid parallel dims: dp_replicate(2) * dp_shard(2) * cp(1) * tp(2) * pp(1) != WORLD_SIZE(10)"},
            // (2, 2, 1, 1, 1, ep 3, world 4)
            {"ep",
             ProjectBuilder(moe).ep(3).build(),
             ProjectBuilder(moe).ep(2).build(),
             "torchtitan.ep_divides",
             Severity::Error,
             {"ep = 3", "2"},
             "expert_parallel_degree (3) must divide dp_shard * cp * tp (2)"},
            {"dp_shard 0",
             ProjectBuilder(b).dp_shard(0).build(),
             b,
             "torchtitan.degrees",
             Severity::Error,
             {"0"},
             "dp_shard must -1 or >=1."},
            // tp 4, cp 2 -> divisor 16
            {"seq",
             test_project("torchtitan", 2, 8, llama3_8b()).tp(4).cp(2).dp_replicate(2).seq_len(4100).build(),
             test_project("torchtitan", 2, 8, llama3_8b()).tp(4).cp(2).dp_replicate(2).build(),
             "torchtitan.seq_divisible",
             Severity::Error,
             {"4100", "16"},
             "Sequence length 4100"},
            {"kv heads",
             test_project("torchtitan", 2, 8, llama3_8b()).tp(16).global_batch_size(8).build(),
             test_project("torchtitan", 2, 8, llama3_8b()).tp(8).global_batch_size(8).build(),
             "torchtitan.tp_divides_kv_heads",
             Severity::Error,
             {"tp = 16", "8"},
             "n_kv_heads (8)"},
            {"zbv stages",
             ProjectBuilder(b).tp(1).pp(2).schedule(Schedule::zbv).chunks(3).build(),
             ProjectBuilder(b).tp(1).pp(2).schedule(Schedule::zbv).chunks(2).build(),
             "torchtitan.pp_stages",
             Severity::Error,
             {"chunks = 3"},
             "v schedules assume 2 stages per rank"},
            {"global batch",
             ProjectBuilder(b).global_batch_size(30).build(),
             b,
             "torchtitan.global_batch",
             Severity::Error,
             {"30", "4"},
             "global batch size must be multiple of local batch size times data-parallel degree"},
            // With pp 2 (dp 2) the local batch is micro 1 x 3 microbatches: 32 % (3 x 2) != 0, while
            // 4 microbatches give 32 = 4 flushes x 4 x 2 (train.py gradient_accumulation_steps 4).
            {"local batch of a pipeline",
             ProjectBuilder(b).pp(2).num_microbatches(3).build(),
             ProjectBuilder(b).pp(2).num_microbatches(4).build(),
             "torchtitan.global_batch",
             Severity::Error,
             {"32", "local batch 3", "= 6"},
             "global batch size must be multiple of local batch size times data-parallel degree"},
            {"sp axis",
             ProjectBuilder(b).sp(2).sp_mode(SpMode::all_to_all).build(),
             b,
             "torchtitan.sp_mode",
             Severity::Error,
             {"cp"},
             ""},
            // torchtitan v0.2.2 components/quantization/float8.py: recipe_name with the FP8 all-gather.
            {"fp8 all-gather with rowwise",
             ProjectBuilder(b).fp8(true).fp8_recipe(Fp8Recipe::rowwise).fp8_all_gather(true).build(),
             ProjectBuilder(b)
                 .fp8(true)
                 .fp8_all_gather(true)   // tensorwise
                 .build(),
             "torchtitan.fp8_all_gather",
             Severity::Error,
             {"rowwise", "tensorwise"},
             "together with `float8_config.recipe_name` is not supported"},
            // Not a torchtitan recipe_name (v0.2.2 job_config.py) and not the MX converter.
            {"fp8 delayed recipe",
             ProjectBuilder(b).fp8(true).fp8_recipe(Fp8Recipe::delayed).build(),
             ProjectBuilder(b).fp8(true).fp8_recipe(Fp8Recipe::rowwise).build(),
             "torchtitan.fp8_recipe",
             Severity::Error,
             {"delayed", "fp8_recipe must be one of", "tensorwise, rowwise, mxfp8"},
             ""},
            // MXFP8 on H100 (compute capability 9.0): TE's check_mxfp8_support needs 10.0; B200 passes.
            {"mxfp8 on hopper",
             ProjectBuilder(b).fp8(true).fp8_recipe(Fp8Recipe::mxfp8).build(),
             ProjectBuilder(b).fp8(true).fp8_recipe(Fp8Recipe::mxfp8).gpu("b200").build(),
             "kernel.fp8_recipe_gpu",
             Severity::Error,
             {"H100", "mxfp8", "Blackwell"},
             "compute capability 10.0 or higher required for MXFP8"},
            // v0.2.2 components/quantization/mx.py: MXLinear has no all-gather setting, so the switch
            // is ignored (the estimate counts 16-bit gathers): a warning, not the rowwise refusal.
            {"fp8 all-gather with mxfp8",
             ProjectBuilder(b).gpu("b200").fp8(true).fp8_recipe(Fp8Recipe::mxfp8).fp8_all_gather(true).build(),
             ProjectBuilder(b).gpu("b200").fp8(true).fp8_recipe(Fp8Recipe::mxfp8).build(),
             "kernel.fp8_all_gather",
             Severity::Warning,
             {"torchtitan", "mxfp8", "16-bit"},
             ""},
            // float8.py: enable_fsdp_float8_all_gather only when parallel_dims.dp_shard_enabled.
            {"fp8 all-gather without dp_shard",
             ProjectBuilder(b).tp(1).cp(8).dp_shard(1).global_batch_size(4).fp8(true).fp8_all_gather(true).build(),
             ProjectBuilder(b)
                 .fp8(true)
                 .fp8_all_gather(true)   // tp 2: dp_shard 4
                 .build(),
             "torchtitan.fp8_all_gather",
             Severity::Warning,
             {"dp_shard 1", "16-bit"},
             ""},
            // parallelize_llama raises "Async TP requires torch.compile" when tp > 1.
            {"async tp without compile",
             ProjectBuilder(b).enable_async_tensor_parallel(true).kernels("eager").build(),
             ProjectBuilder(b).enable_async_tensor_parallel(true).kernels("compile").build(),
             "kernel.tp_comm_overlap",
             Severity::Error,
             {"torchtitan", "compile", "enable_async_tensor_parallel does not run"},
             "Async TP requires torch.compile"},
            // Megatron's switch is not torchtitan's.
            {"tp comm overlap under torchtitan",
             ProjectBuilder(b).tp_comm_overlap(true).build(),
             ProjectBuilder(b).build(),
             "kernel.tp_comm_overlap",
             Severity::Warning,
             {"reads enable_async_tensor_parallel, not tp_comm_overlap"},
             ""},
            // torchtitan builds PyTorch modules only: no Transformer Engine path at v0.2.2.
            {"kernels te",
             ProjectBuilder(b).kernels("te").build(),
             ProjectBuilder(b).kernels("compile").build(),
             "torchtitan.kernels",
             Severity::Warning,
             {"Transformer Engine", "compile"},
             ""},
        });
    }

    void deepspeed() {
        const Project b = ds();
        run_cases({
            // (train 10, micro 3, world 1): gas 3, "10 != 3 * 3 * 1"
            {"batch",
             test_project("deepspeed", 1, 1, llama3_8b()).global_batch_size(10).micro_batch_size(3).build(),
             test_project("deepspeed", 1, 1, llama3_8b()).global_batch_size(9).micro_batch_size(3).build(),
             "deepspeed.batch",
             Severity::Error,
             {"10", "3"},
             "10 != 3 * 3 * 1"},
            {"zero with pp",
             ProjectBuilder(b).pp(2).build(),
             ProjectBuilder(b).pp(2).zero_stage(1).build(),
             "deepspeed.zero_with_pp",
             Severity::Error,
             {"pp = 2"},
             "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"},
            {"world",
             ProjectBuilder(b).pp(3).zero_stage(1).build(),
             b,
             "deepspeed.world_divisible",
             Severity::Error,
             {"8", "3"},
             "num_stages (3) must divide distributed world size (8)"},
            {"zero 4",
             ProjectBuilder(b).zero_stage(4).build(),
             b,
             "deepspeed.zero_stage",
             Severity::Error,
             {"4"},
             "Maximum supported ZeRO stage is 3"},
            // ds_config has no FP8 all-gather (ZeRO++ quantizes weights to INT8).
            {"fp8 all-gather",
             ProjectBuilder(b).zero_stage(3).fp8(true).fp8_all_gather(true).build(),
             ProjectBuilder(b).zero_stage(3).fp8(true).build(),
             "kernel.fp8_all_gather",
             Severity::Warning,
             {"DeepSpeed has no FP8 all-gather"},
             ""},
            // The pipeline engine runs gradient_accumulation_steps = 32 / (4 x 8) = 1 microbatch.
            {"layout microbatch count",
             ProjectBuilder(b).num_microbatches(4).build(),
             ProjectBuilder(b).num_microbatches(0).build(),
             "deepspeed.num_microbatches",
             Severity::Warning,
             {"32", "= 1 microbatches", "num_microbatches = 4"},
             ""},
        });
    }

    void devicemesh() {
        const Project b = test_project("devicemesh", 1, 8, llama3_8b()).tp(2).build();
        QVERIFY(!has_errors(validate(b)));
        run_cases({{"world",
                    ProjectBuilder(b).tp(3).build(),
                    b,
                    "devicemesh.world_divisible",
                    Severity::Error,
                    {"3", "8"},
                    ""}});
    }

    // A key the loader keeps but nothing reads: a typo of a field is a warning naming it, a note
    // is info, keys read from extra are not reported, and a section says how many more it holds.
    void unknownKeysAreReported() {
        nlohmann::json j = project_to_json(mg());
        j["layout"]["fp8_parms"] = true;            // fp8_params, one letter short
        j["layout"]["megatron_version"] = "0.12";   // read by the Megatron rules
        j["training"]["x_reviewer"] = "ana";
        j["cluster"]["nodes"][1]["hots"] = "gpu7";
        j["layout"]["a/b~c"] = 1;
        const auto ds = validate(project_from_json(j));
        std::vector<const Diagnostic*> found;
        for (const auto& d : ds)
            if (d.rule == "project.unknown_key") found.push_back(&d);
        QCOMPARE(found.size(), std::size_t(4));
        auto at = [&](const std::string& pointer) -> const Diagnostic* {
            for (const auto* d : found)
                if (d->fields == std::vector<std::string>{pointer}) return d;
            return nullptr;
        };
        const Diagnostic* typo = at("/layout/fp8_parms");
        QVERIFY(typo);
        QCOMPARE(typo->severity, Severity::Warning);
        QVERIFY2(typo->message.find("did you mean \"fp8_params\"?") != std::string::npos, typo->message.c_str());
        const Diagnostic* note = at("/training/x_reviewer");
        QVERIFY(note);
        QCOMPARE(note->severity, Severity::Info);
        QVERIFY(note->message.find("did you mean") == std::string::npos);
        const Diagnostic* host = at("/cluster/nodes/1/hots");
        QVERIFY(host && host->severity == Severity::Warning);
        QVERIFY2(host->message.find("\"host\"") != std::string::npos, host->message.c_str());
        QVERIFY(at("/layout/a~1b~0c"));   // RFC 6901 escapes
        QVERIFY(!at("/layout/megatron_version"));

        // Seven notes in one section: five findings, the fifth counting the other two.
        nlohmann::json many = project_to_json(mg());
        for (int i = 0; i < 7; ++i) many["layout"]["x_note_" + std::to_string(i)] = i;
        int n = 0;
        std::string last;
        for (const auto& d : validate(project_from_json(many)))
            if (d.rule == "project.unknown_key") {
                ++n;
                last = d.message;
            }
        QCOMPARE(n, 5);
        QVERIFY2(last.find("(2 more keys there are not read either)") != std::string::npos, last.c_str());
    }

    void clusterAndKernels() {
        const Project b = test_project("colossalai", 2, 8, llama3_8b()).tp(2).build();
        run_cases({
            {"uneven nodes",
             ProjectBuilder(b).edit([](Project& p) { p.cluster.nodes[1].gpus = 4; }).build(),
             b,
             "cluster.uniform_gpus",
             Severity::Error,
             {"4", "8"},
             ""},
            {"mixed gpus",
             ProjectBuilder(b).edit([](Project& p) { p.cluster.nodes[1].gpu = "a100-80g"; }).build(),
             b,
             "cluster.uniform_gpus",
             Severity::Warning,
             {"a100-80g"},
             ""},
            // A dgx-a100 system with h100 nodes: the system's tiers are an A100's (NVLink3, HDR).
            // A rule with a fix, not a load error, so a file saved after a GPU change still opens.
            {"system of another gpu",
             ProjectBuilder(b).edit([](Project& p) { p.cluster.system = "dgx-a100"; }).build(),
             ProjectBuilder(b)
                 .edit([](Project& p) {
                     p.cluster.system = "dgx-a100";
                     for (auto& n : p.cluster.nodes.edit()) n.gpu = "a100-80g";
                 })
                 .build(),
             "cluster.system_gpus",
             Severity::Error,
             {"dgx-a100", "a100-80g", "h100-sxm"},
             ""},
            {"fp8 on a100",
             test_project("colossalai", 1, 8, llama3_8b(), "a100-80g").fp8(true).build(),
             test_project("colossalai", 1, 8, llama3_8b(), "h100-sxm").fp8(true).build(),
             "kernel.fp8_gpu",
             Severity::Error,
             {"ampere"},
             ""},
            {"flash on v100",
             test_project("colossalai", 1, 8, llama3_8b(), "v100-32g").precision(Precision::fp16).build(),
             make_project("colossalai", 1, 8, llama3_8b(), "a100-80g"),
             "kernel.flash_attention_gpu",
             Severity::Warning,
             {"volta"},
             "FlashAttention only supports Ampere GPUs or newer."},
            {"bf16 on v100",
             test_project("colossalai", 1, 8, llama3_8b(), "v100-32g").flash_attention(false).build(),
             make_project("colossalai", 1, 8, llama3_8b(), "a100-80g"),
             "kernel.bf16_gpu",
             Severity::Error,
             {"volta"},
             "bfloat16"},
            {"flash fp32",
             ProjectBuilder(b).precision(Precision::fp32).build(),
             b,
             "kernel.flash_attention_dtype",
             Severity::Warning,
             {"fp32"},
             "FlashAttention only support fp16 and bf16 data type"},
        });
        const auto d = validate(ProjectBuilder(b).fused_norm(true).build());
        const Diagnostic* f = find_rule(d, "kernel.fused_norm_apex");
        QVERIFY(f);
        QCOMPARE(f->severity, Severity::Info);
        // Unknown framework ids are reported, not ignored.
        const auto du = validate(ProjectBuilder(b).framework("jax").build());
        QVERIFY(find_rule(du, "layout.framework"));
    }
};

QTEST_APPLESS_MAIN(TestRulesOthers)
#include "tst_rules_others.moc"
