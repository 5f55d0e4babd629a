// Importers: export -> import round trips for every format that has both, the TOML
// reader, the Python call reader, and configs written by hand the way people
// write them (unread items must be named, never dropped silently).
#include "export/export.h"
#include "export/export_common.h"
#include "export/import.h"
#include "export/python_call.h"
#include "export/toml.h"
#include "catalog/model.h"
#include "export_test_util.h"
#include "project/framework.h"
#include "project/project.h"
#include "util/input_error.h"

#include <QtTest>

using namespace paraplan;
using nlohmann::json;

namespace {

const std::map<std::string, std::string> kMainFile = {{"colossalai", "plugin.py"},
                                                      {"megatron", "train_megatron.sh"},
                                                      {"deepspeed", "ds_config.json"},
                                                      {"torchtitan", "job.toml"}};

// What a format carries of a layout, normalised the way the format states it.
json summary(const Project& p, const std::string& format) {
    const Layout& l = p.layout;
    // Each framework writes any interleaved 1F1B, and 1F1B with several chunks, as its own interleaved.
    const bool interleaved = is_interleaved_1f1b(l.schedule) || (l.schedule == Schedule::one_f_one_b && l.chunks > 1);
    std::string sched = interleaved ? "interleaved" : to_string(l.schedule);
    if (l.pp == 1) sched = "-";
    json s = {{"tp", l.tp},
              {"pp", l.pp},
              {"cp", l.cp},
              {"sp", l.sp},
              {"sp_mode", l.sp_mode},
              {"zero_stage", l.zero_stage},
              {"chunks", l.pp > 1 ? l.chunks : 1},
              {"schedule", sched},
              {"recompute", to_string(l.recompute)},
              {"offload", to_string(l.offload)},
              {"global_batch_size", p.training.global_batch_size},
              {"micro_batch_size", p.training.micro_batch_size},
              {"precision", p.training.precision},
              {"microbatches", l.pp > 1 ? exportutil::microbatches(p) : 0}};
    if (format != "deepspeed") s["ep"] = l.ep;
    if (format == "colossalai" && l.recompute == Recompute::selective)
        s["recompute"] = "none";                                             // ColossalAI has no selective
    if (format == "torchtitan" && l.tp > 1) s["sp_mode"] = "split_gather";   // implied by torchtitan's TP
    if (!traits_of(format).num_microbatches_knob) s.erase("microbatches");   // derived from the batch sizes
    if ((format == "megatron" || format == "torchtitan") && l.tp == 1) s["sp_mode"] = "none";   // SP lives in TP
    if (format == "deepspeed" && l.pp == 1 && l.recompute == Recompute::full)
        s["recompute"] = "none";                                            // model code, not ds_config
    if (format == "torchtitan" && l.zero_stage == 1) s["zero_stage"] = 2;   // FSDP has no optimizer-only mode
    return s;
}

Project for_format(Project p, const std::string& format) {
    if (format == "megatron" || format == "deepspeed" || format == "torchtitan") p.layout.framework = format;
    if (format == "deepspeed") {
        p.layout.ep = 1;
        p.layout.sp_mode = SpMode::none;
        if (p.layout.recompute == Recompute::selective) p.layout.recompute = Recompute::none;
    }
    return p;
}

ImportResult round_trip(const Project& p, const std::string& format, bool* export_had_errors = nullptr) {
    ExportOptions o;
    o.force = true;
    const ExportResult r = export_project(p, format, o);
    if (export_had_errors) *export_had_errors = has_errors(r.diagnostics);
    return import_config(r.files.at(kMainFile.at(format)).content, format, p);
}

bool contains(const std::vector<std::string>& v, const std::string& needle) {
    for (const auto& s : v)
        if (s.find(needle) != std::string::npos) return true;
    return false;
}

}   // namespace

class TestExportImport : public QObject {
    Q_OBJECT
private slots:
    void roundTrip_data() {
        QTest::addColumn<QString>("example");
        QTest::addColumn<QString>("format");
        QTest::addColumn<QString>("variant");
        for (const auto& e : example_names())
            for (const auto& [f, file] : kMainFile)
                for (const char* v : {"as-is", "vpp", "zero-offload", "sp"}) {
                    std::string row = e;
                    row.append("/").append(f).append("/").append(v);
                    QTest::newRow(row.c_str()) << QString::fromStdString(e) << QString::fromStdString(f) << v;
                }
    }
    void roundTrip() {
        QFETCH(QString, example);
        QFETCH(QString, format);
        QFETCH(QString, variant);
        const std::string fmt = format.toStdString();
        Project p = for_format(load_example(example.toStdString()), fmt);
        if (variant == "vpp") {
            if (fmt == "deepspeed" || p.layout.pp == 1)
                QSKIP(fmt == "deepspeed"
                          ? "DeepSpeed's pipeline engine has no virtual stages (its exporter refuses chunks > 1)"
                          : "a pp = 1 example has no pipeline stages to split into virtual ones");
            p.layout.chunks = 2;
            p.layout.schedule = fmt == "colossalai" && example.startsWith("llama3.1-70b") ? Schedule::zbv
                                                                                          : Schedule::interleaved;
        } else if (variant == "zero-offload") {
            p.layout.pp = 1;
            p.layout.num_microbatches = 0;
            p.layout.zero_stage = fmt == "colossalai" ? 2 : fmt == "megatron" ? 3 : 2;
            p.layout.offload = fmt == "torchtitan" ? Offload::none : Offload::cpu;
            if (fmt == "colossalai" && p.layout.framework == "colossalai-moe") p.layout.zero_stage = 1;
        } else if (variant == "sp") {
            if (fmt == "deepspeed") QSKIP("DeepSpeed has no sequence parallelism in this schema");
            if (fmt == "colossalai" && p.layout.framework != "colossalai-moe") {
                p.layout.sp_mode = SpMode::all_to_all;
                p.layout.sp = 2;
                p.layout.tp = std::max(1, p.layout.tp / 2);
            } else if (fmt == "colossalai") {
                p.layout.sp_mode = SpMode::all_to_all;
                p.layout.sp = 2;
                p.layout.ep = p.layout.ep / 2;
            } else {
                p.layout.cp = 2;
                p.layout.tp = std::max(1, p.layout.tp / 2);
            }
        }
        bool export_errors = false;
        const ImportResult r = round_trip(p, fmt, &export_errors);
        QCOMPARE(r.project.layout.framework, export_framework(p, fmt));
        // The format's framework runs the layout (its axes decide dp and the microbatch count).
        Project runs = p;
        runs.layout.framework = export_framework(p, fmt);
        const std::string want = summary(runs, fmt).dump();
        const std::string got = summary(r.project, fmt).dump();
        QVERIFY2(want == got, ("\n want " + want + "\n got  " + got).c_str());
        // The cluster and model come back unchanged.
        QCOMPARE(r.project.world_size(), p.world_size());
        QCOMPARE(r.project.model.layers, p.model.layers);
        QCOMPARE(r.project.model.hidden, p.model.hidden);
        // Whatever our own exporter writes, our importer reads: no unread items except
        // the torchtitan model name of models torchtitan does not know (and what a
        // forced export of a layout the format cannot express left out).
        if (!export_errors)
            for (const auto& w : r.warnings)
                QVERIFY2(fmt == "torchtitan" && w.find("has no catalog match") != std::string::npos, w.c_str());
    }

    // The TP overlap switches travel under each framework's own name: Megatron --tp-comm-overlap,
    // torchtitan [parallelism] enable_async_tensor_parallel.
    void tpCommOverlapRoundTrip() {
        Project mg = for_format(load_example("llama3.1-70b-4nodes"), "megatron");
        mg.layout.tp = 2;
        mg.layout.sp_mode = SpMode::split_gather;
        mg.layout.tp_comm_overlap = true;
        QVERIFY(round_trip(mg, "megatron").project.layout.tp_comm_overlap);
        mg.layout.tp_comm_overlap = false;
        QVERIFY(!round_trip(mg, "megatron").project.layout.tp_comm_overlap);
        Project tt = for_format(load_example("llama3.1-70b-4nodes"), "torchtitan");
        tt.layout.tp = 2;
        tt.layout.enable_async_tensor_parallel = true;
        QVERIFY(round_trip(tt, "torchtitan").project.layout.enable_async_tensor_parallel);
    }

    void tomlSubset() {
        const json t = toml::parse(
            "  # comment\n"
            "top = \"x\"   # trailing\n"
            "[job]\n"
            "description = \"a \\\"quoted\\\" \\u00e9 value\"\n"
            "path = 'C:\\raw\\path'\n"
            "[parallelism]\n"
            "data_parallel_shard_degree = -1\n"
            "big = 1_000_000\n"
            "hex = 0xff\n"
            "ratio = 0.25\n"
            "exp = 1e-3\n"
            "enabled = true\n"
            "list = [1, 2,\n"
            "  3,  # inside\n"
            "]\n"
            "nested = [[1, 2], [\"a\"]]\n"
            "inline = { a = 1, b.c = \"d\" }\n"
            "[a.b]\n"
            "\"quoted key\" = false\n"
            "[[stage]]\n"
            "n = 1\n"
            "[[stage]]\n"
            "n = 2\n");
        QCOMPARE(t["top"].get<std::string>(), std::string("x"));
        QCOMPARE(t["job"]["description"].get<std::string>(), std::string("a \"quoted\" \xc3\xa9 value"));
        QCOMPARE(t["job"]["path"].get<std::string>(), std::string("C:\\raw\\path"));
        QCOMPARE(t["parallelism"]["data_parallel_shard_degree"].get<int>(), -1);
        QCOMPARE(t["parallelism"]["big"].get<int>(), 1000000);
        QCOMPARE(t["parallelism"]["hex"].get<int>(), 255);
        QCOMPARE(t["parallelism"]["ratio"].get<double>(), 0.25);
        QCOMPARE(t["parallelism"]["exp"].get<double>(), 1e-3);
        QCOMPARE(t["parallelism"]["enabled"].get<bool>(), true);
        QCOMPARE(t["parallelism"]["list"], json({1, 2, 3}));
        QCOMPARE(t["parallelism"]["nested"][1][0].get<std::string>(), std::string("a"));
        QCOMPARE(t["parallelism"]["inline"]["b"]["c"].get<std::string>(), std::string("d"));
        QCOMPARE(t["a"]["b"]["quoted key"].get<bool>(), false);
        QCOMPARE(t["stage"].size(), std::size_t(2));
        QCOMPARE(t["stage"][1]["n"].get<int>(), 2);

        // Errors name the line.
        try {
            toml::parse("[x]\na = 1\na = 2\n");
            QFAIL("duplicate key accepted");
        } catch (const InputError& e) {
            QCOMPARE(e.line(), 3);
            QVERIFY(std::string(e.what()).find("duplicate key 'a'") != std::string::npos);
        }
        QVERIFY_THROWS_EXCEPTION(InputError, toml::parse("a = \"open\n"));
        QVERIFY_THROWS_EXCEPTION(InputError, toml::parse("a = [1, 2\n"));
        QVERIFY_THROWS_EXCEPTION(InputError, toml::parse("a = 1 2\n"));
        QVERIFY_THROWS_EXCEPTION(InputError, toml::parse("a = 1__0\n"));
        QVERIFY_THROWS_EXCEPTION(InputError, toml::parse("= 1\n"));
    }

    void tomlAgreesWithTomllib() {
        // Our parser and Python's tomllib read the same exported file the same way.
        const Project p = load_example("llama3.1-405b-128nodes");
        const ExportResult r = export_project(p, "torchtitan", ExportOptions{true, "", {}, 29500, ""});
        QTemporaryDir tmp;
        const auto file = std::filesystem::path(tmp.path().toStdString()) / "job.toml";
        exporttest::write_file(file, r.files.at("job.toml").content);
        QCOMPARE(toml::parse(r.files.at("job.toml").content), exporttest::parse_back("toml", file));
        // A project name with control characters: escaped in [job] description (DEL too) and
        // blanked in the header comment, where TOML allows none but tab (toml.io, "Comment");
        // tomllib refused the file ("Found invalid character '\r'") before.
        Project odd = p;
        odd.name = "cr\r ctl\x01\x1f del\x7f tab\t nl\n \"q\" \\";
        const auto odd_file = std::filesystem::path(tmp.path().toStdString()) / "odd.toml";
        exporttest::write_file(
            odd_file,
            export_project(odd, "torchtitan", ExportOptions{true, "", {}, 29500, ""}).files.at("job.toml").content);
        QCOMPARE(exporttest::check_syntax(odd_file, FileSyntax::Toml), std::string());
        QCOMPARE(exporttest::parse_back("toml", odd_file)["job"]["description"].get<std::string>(), odd.name);
    }

    void pythonCall() {
        const std::string src = R"(import colossalai
  # plugin = HybridParallelPlugin(tp_size=99)   (a comment, not the call)
def make():
    return HybridParallelPlugin(
        2, 4,                     # tp_size, pp_size
        precision="bf16",         # comment with , and )
        zero_stage=1,
        num_layers_per_stage=[10, 11, 11, 10],
        initial_scale=2**16,
        custom_policy=MyPolicy(a=(1, 2)),
        name='it\'s',
    )
)";
        const auto call = pycall::find_call(src, {"HybridParallelPlugin"});
        QVERIFY(call);
        QCOMPARE(call->line, 4);
        QCOMPARE(call->args.size(), std::size_t(8));
        QCOMPARE(call->args[0].key, std::string());
        QCOMPARE(*call->args[1].literal, json(4));
        QCOMPARE(call->args[2].key, std::string("precision"));
        QCOMPARE(*call->args[2].literal, json("bf16"));
        QCOMPARE(*call->args[4].literal, json({10, 11, 11, 10}));
        QVERIFY(!call->args[5].literal);
        QCOMPARE(call->args[5].source, std::string("2**16"));
        QCOMPARE(call->args[6].source, std::string("MyPolicy(a=(1, 2))"));
        QCOMPARE(*call->args[7].literal, json("it's"));
        QVERIFY(!pycall::find_call("x = 1\n", {"HybridParallelPlugin"}));
        QVERIFY_THROWS_EXCEPTION(InputError,
                                 pycall::find_call("p = HybridParallelPlugin(tp_size=2,\n", {"HybridParallelPlugin"}));
        QCOMPARE(*pycall::literal("-3"), json(-3));
        QCOMPARE(*pycall::literal("1_024"), json(1024));
        QCOMPARE(*pycall::literal("0.5"), json(0.5));
        QCOMPARE(*pycall::literal("None"), json(nullptr));
        QVERIFY(!pycall::literal("args.tp"));
        QVERIFY(!pycall::literal("f\"{x}\""));
    }

    void colossalaiHandWritten() {
        const std::string src = R"(
plugin = HybridParallelPlugin(
    tp_size=args.tp,
    pp_size=2,
    zero_stage=1,
    precision="bf16",
    enable_sequence_parallelism=True,
    num_microbatches=8,
    initial_scale=1,
)
booster = Booster(plugin=plugin)
)";
        const Project base = load_example("gpt2-1node");
        const ImportResult r = import_config(src, "colossalai", base);
        QCOMPARE(r.project.layout.framework, std::string("colossalai"));
        QCOMPARE(r.project.layout.pp, 2);
        QCOMPARE(r.project.layout.tp, 1);   // not read: named below
        QCOMPARE(r.project.layout.num_microbatches, 8);
        QCOMPARE(r.project.layout.sp_mode, SpMode::all_to_all);
        QVERIFY(contains(r.warnings, "tp_size=args.tp not read"));
        QVERIFY(contains(r.warnings, "initial_scale=1 not read"));
        QVERIFY(contains(r.warnings, "without sequence_parallelism_mode"));
        QVERIFY_THROWS_EXCEPTION(InputError, import_config("print('no plugin')\n", "colossalai", base));
        // A mode outside ShardConfig's list is named and not read (it used to be copied into the layout,
        // which the project reader then refused on the next load).
        std::string zigzag = src;
        const std::string on = "enable_sequence_parallelism=True,";
        zigzag.replace(zigzag.find(on), on.size(), on + " sequence_parallelism_mode=\"zigzag\",");
        const ImportResult z = import_config(zigzag, "colossalai", base);
        QCOMPARE(z.project.layout.sp_mode, base.layout.sp_mode);
        QVERIFY(contains(z.warnings, "sequence_parallelism_mode=\"zigzag\" not read (expected one of \"none\""));
        QVERIFY(!contains(z.warnings, "without sequence_parallelism_mode"));
    }

    void megatronPlainFlagList() {
        const std::string flags =
            "--tensor-model-parallel-size 4 --pipeline-model-parallel-size 2 --sequence-parallel "
            "--num-layers 32 --num-layers-per-virtual-pipeline-stage 2 --frobnicate 3 "
            "--global-batch-size $GBS --micro-batch-size=2 --use-distributed-optimizer --bf16 "
            "--recompute-granularity full --recompute-method uniform";
        const Project base = load_example("llama3.1-70b-4nodes");
        const ImportResult r = import_config(flags, "megatron", base);
        const Layout& l = r.project.layout;
        QCOMPARE(l.tp, 4);
        QCOMPARE(l.pp, 2);
        QCOMPARE(l.chunks, 8);   // 32 layers / 2 per virtual stage / pp 2
        QCOMPARE(l.schedule, Schedule::interleaved);
        QCOMPARE(l.sp_mode, SpMode::split_gather);
        QCOMPARE(l.zero_stage, 1);
        QCOMPARE(l.recompute, Recompute::full);
        QCOMPARE(r.project.training.micro_batch_size, 2);
        QCOMPARE(r.project.training.global_batch_size, base.training.global_batch_size);
        QCOMPARE(r.project.model.layers, 32);
        QVERIFY(r.project.model_preset.empty());   // the shape differs from the preset
        QVERIFY(contains(r.warnings, "--frobnicate 3 not read"));
        QVERIFY(contains(r.warnings, "--global-batch-size $GBS not read"));
        QVERIFY(!contains(r.warnings, "--recompute-method"));
        QVERIFY_THROWS_EXCEPTION(InputError, import_config("no flags at all", "megatron", base));
    }

    // layout.kernels "eager" is Megatron-LM's own PyTorch modules: --transformer-impl local (a flag
    // of megatron/training/arguments.py at core_v0.14.0, choices local and transformer_engine), read
    // back as eager. Transformer Engine is the default, so "auto" and "te" write nothing; FP8 (which
    // only Transformer Engine runs) and torch.compile (no Megatron switch) are findings.
    void megatronKernelStack() {
        Project p = for_format(load_example("llama3.1-70b-4nodes"), "megatron");
        const auto kernelFinding = [](const std::vector<Diagnostic>& ds) {
            for (const auto& d : ds)
                if (d.rule == "export.megatron.kernels") return &d;
            return static_cast<const Diagnostic*>(nullptr);
        };
        QVERIFY(exporttest::megatron_flags().count("--transformer-impl"));
        p.layout.kernels = KernelStack::eager;
        std::vector<Diagnostic> f;
        std::vector<std::string> args = megatron_args(p, f).all();
        QCOMPARE(exporttest::arg_value(args, "--transformer-impl"), std::string("local"));
        QVERIFY(!kernelFinding(f));
        ImportResult r = round_trip(p, "megatron");
        QCOMPARE(r.project.layout.kernels, KernelStack::eager);
        QCOMPARE(kernel_stack(r.project.layout), KernelStack::eager);
        QVERIFY(!contains(r.warnings, "--transformer-impl"));

        for (const KernelStack k : {KernelStack::framework, KernelStack::te}) {
            p.layout.kernels = k;
            f.clear();
            args = megatron_args(p, f).all();
            QVERIFY2(!exporttest::has_arg(args, "--transformer-impl"), to_string(k));
            QVERIFY(!kernelFinding(f));
            QCOMPARE(kernel_stack(round_trip(p, "megatron").project.layout), KernelStack::te);
        }

        p.layout.kernels = KernelStack::eager;
        p.layout.fp8 = true;
        f.clear();
        args = megatron_args(p, f).all();
        QVERIFY(!exporttest::has_arg(args, "--transformer-impl"));
        QCOMPARE(exporttest::arg_value(args, "--fp8-format"), std::string("hybrid"));
        QVERIFY(kernelFinding(f));
        QCOMPARE(kernelFinding(f)->fields, (std::vector<std::string>{"/layout/kernels", "/layout/fp8"}));

        p.layout.fp8 = false;
        p.layout.kernels = KernelStack::compile;
        f.clear();
        args = megatron_args(p, f).all();
        QVERIFY(!exporttest::has_arg(args, "--transformer-impl"));
        QVERIFY(kernelFinding(f));
        QCOMPARE(kernelFinding(f)->severity, Severity::Warning);

        // Read from a script written by hand: the other value is the default, anything else is named.
        const Project base = load_example("llama3.1-70b-4nodes");
        r = import_config("--tensor-model-parallel-size 8 --transformer-impl transformer_engine", "megatron", base);
        QCOMPARE(r.project.layout.kernels, KernelStack::framework);
        r = import_config("--tensor-model-parallel-size 8 --transformer-impl inductor", "megatron", base);
        QVERIFY(contains(r.warnings, "--transformer-impl inductor not read"));
    }

    // A hybrid Mamba model goes to pretrain_mamba.py with Megatron's own hybrid flags (arguments.py /
    // TransformerConfig, core_v0.16.0) and comes back the same model; a pattern that does not fit
    // --num-layers is named, not read.
    void megatronHybridRoundTrip() {
        const Project p = load_example("nemotron-h-8b-1node");
        QVERIFY(p.model.is_hybrid());
        ExportOptions o;
        o.force = true;
        const ExportResult x = export_project(p, "megatron", o);
        QVERIFY2(!has_errors(x.diagnostics), "the example exports cleanly");
        const std::string sh = x.files.at("train_megatron.sh").content;
        for (const std::string& want :
             std::vector<std::string>{"pretrain_mamba.py", "--hybrid-override-pattern", p.model.hybrid_override_pattern,
                                      "--mamba-state-dim", "--mamba-head-dim", "--mamba-num-groups",
                                      "--mamba-num-heads", "--squared-relu", "--is-hybrid-model", "mamba_stack_spec"})
            QVERIFY2(sh.find(want) != std::string::npos, want.c_str());
        QVERIFY(sh.find("pretrain_gpt.py") == std::string::npos);
        QVERIFY(sh.find("--swiglu") == std::string::npos);
        std::vector<Diagnostic> findings;
        const auto flags = exporttest::megatron_flags();
        for (const auto& f : megatron_args(p, findings).all())
            if (f.rfind("--", 0) == 0) QVERIFY2(flags.count(f), ("not a Megatron-LM flag: " + f).c_str());
        // Read back onto a base that is no hybrid model: every hybrid field comes from the flags.
        const ImportResult r = import_config(sh, "megatron", load_example("llama3.1-8b-pp4-1node"));
        for (const auto& w : r.warnings) QVERIFY2(false, w.c_str());
        const ModelSpec& m = r.project.model;
        QCOMPARE(m.hybrid_override_pattern, p.model.hybrid_override_pattern);
        QCOMPARE(m.mamba_state_dim, 128);
        QCOMPARE(m.mamba_head_dim, 64);
        QCOMPARE(m.mamba_num_groups, 8);
        QCOMPARE(m.mamba_num_heads, 128);
        QCOMPARE(m.activation, std::string("relu2"));
        QCOMPARE(m.position, std::string("none"));
        QCOMPARE(count_params(m).total, count_params(p.model).total);
        QCOMPARE(r.project.layout.tp, 2);
        QCOMPARE(r.project.layout.pp, 2);

        // Megatron's defaults fill the sizes no flag gives (TransformerConfig: 128, 64, 8, 2h / 64).
        const ImportResult d = import_config(
            "--num-layers 4 --hidden-size 1024 --num-attention-heads 8 "
            "--hybrid-override-pattern M*-M",
            "megatron", load_example("llama3.1-8b-pp4-1node"));
        QCOMPARE(d.project.model.hybrid_override_pattern, std::string("M*-M"));
        QCOMPARE(d.project.model.mamba_num_heads, 2 * 1024 / 64);
        QCOMPARE(d.project.model.mamba_state_dim, 128);
        const ImportResult bad = import_config("--num-layers 4 --hybrid-override-pattern M*-", "megatron",
                                               load_example("llama3.1-8b-pp4-1node"));
        QVERIFY(!bad.project.model.is_hybrid());
        QVERIFY(contains(bad.warnings,
                         "--hybrid-override-pattern not read: /hybrid_override_pattern: expected one "
                         "character per layer (layers is 4), got 3 characters"));
    }

    void megatronExampleScript() {
        // Shaped like Megatron-LM's examples/gpt3/train_gpt3_175b_distributed.sh.
        const std::string script = R"(#!/bin/bash
export CUDA_DEVICE_MAX_CONNECTIONS=1
GPUS_PER_NODE=8
NUM_NODES=2
DISTRIBUTED_ARGS=(
    --nproc_per_node $GPUS_PER_NODE
    --nnodes $NUM_NODES
    --master_addr $MASTER_ADDR
)
GPT_MODEL_ARGS=(
    --num-layers 96
    --hidden-size 12288
    --num-attention-heads 96
    --seq-length 2048
    --max-position-embeddings 2048
    --attention-backend auto # Can use (flash/fused/unfused/local)
)
TRAINING_ARGS=(
    --micro-batch-size 1
    --global-batch-size 1536
    --train-iters 500000
    --weight-decay 0.1
    --clip-grad 1.0
    --fp16
    --lr 6.0e-5
)
MODEL_PARALLEL_ARGS=(
	--tensor-model-parallel-size 8
	--pipeline-model-parallel-size 16
)
torchrun ${DISTRIBUTED_ARGS[@]} pretrain_gpt.py \
    ${GPT_MODEL_ARGS[@]} \
    ${TRAINING_ARGS[@]} \
    ${MODEL_PARALLEL_ARGS[@]}
)";
        const ImportResult r = import_config(script, "megatron", default_import_base(8), true);
        QCOMPARE(r.project.layout.tp, 8);
        QCOMPARE(r.project.layout.pp, 16);
        QCOMPARE(r.project.training.global_batch_size, 1536);
        QCOMPARE(r.project.training.precision, Precision::fp16);
        QCOMPARE(r.project.training.seq_len, 2048);
        QCOMPARE(r.project.model.layers, 96);
        QCOMPARE(r.project.model.hidden, 12288);
        QCOMPARE(r.project.model.kv_heads, 96);
        QVERIFY(contains(r.warnings, "--nproc_per_node $GPUS_PER_NODE not read"));
        QVERIFY(contains(r.warnings, "--clip-grad 1.0 not read"));
        QVERIFY(contains(r.notes, "--lr 6.0e-5: read, not part of a layout"));
        QVERIFY(contains(r.notes, "no base project given"));
    }

    void deepspeedHandWritten() {
        const std::string cfg = R"({
  "train_batch_size": 64,
  "train_micro_batch_size_per_gpu": 2,
  "gradient_accumulation_steps": 4,
  "gradient_clipping": 1.0,
  "fp16": {"enabled": true, "loss_scale": 0},
  "zero_optimization": {"stage": 2, "overlap_comm": true, "offload_optimizer": {"device": "cpu", "pin_memory": true}}
})";
        const ImportResult r = import_config(cfg, "deepspeed", default_import_base(8), true);
        QCOMPARE(r.implied_world, 8);   // 64 / (2 × 4)
        QCOMPARE(r.project.world_size(), 8);
        QCOMPARE(r.project.layout.zero_stage, 2);
        QCOMPARE(r.project.layout.offload, Offload::cpu);
        QCOMPARE(r.project.training.precision, Precision::fp16);
        QCOMPARE(r.project.training.global_batch_size, 64);
        QCOMPARE(r.project.training.micro_batch_size, 2);
        QVERIFY(contains(r.warnings, "/gradient_clipping not read"));
        QVERIFY(contains(r.warnings, "/fp16/loss_scale not read"));
        QVERIFY(contains(r.warnings, "/zero_optimization/overlap_comm not read"));
        // A base cluster of another size is kept, and the mismatch named.
        const ImportResult on_base = import_config(cfg, "deepspeed", load_example("mixtral-8x7b-2nodes-ep"));
        QCOMPARE(on_base.project.world_size(), 16);
        QVERIFY(contains(on_base.warnings, "implies 8 GPUs"));
        // HF-integration "auto" values are named, not guessed.
        const ImportResult a = import_config(R"({"train_batch_size": "auto", "train_micro_batch_size_per_gpu": 4})",
                                             "deepspeed", load_example("gpt2-1node"));
        QVERIFY(contains(a.warnings, "/train_batch_size = \"auto\" not read"));
        QCOMPARE(a.project.training.global_batch_size, 4 * 8);
        QVERIFY_THROWS_EXCEPTION(InputError, import_config("{ not json", "deepspeed", load_example("gpt2-1node")));
    }

    void torchtitanHandWritten() {
        // Shaped like torchtitan v0.2 torchtitan/models/llama3/train_configs/llama3_8b.toml.
        const std::string cfg = R"([job]
dump_folder = "./outputs"
description = "Llama 3 8B training"

[model]
name = "llama3"
flavor = "8B"
hf_assets_path = "./assets/hf/Llama-3.1-8B"

[optimizer]
name = "AdamW"
lr = 3e-4

[training]
local_batch_size = 1
seq_len = 8192
max_norm = 1.0
steps = 1000

[parallelism]
data_parallel_replicate_degree = 1
data_parallel_shard_degree = -1
tensor_parallel_degree = 1
pipeline_parallel_degree = 1
context_parallel_degree = 1

[activation_checkpoint]
mode = "selective"
selective_ac_option = "op"

[compile]
enable = true
components = ["model", "loss"]
)";
        const ImportResult r = import_config(cfg, "torchtitan", default_import_base(8), true);
        // The compiled loss is read (the memory estimate counts no fp32 copy of the logits).
        QCOMPARE(r.project.layout.kernels, KernelStack::compile);
        QVERIFY(r.project.layout.compile_loss);
        QCOMPARE(r.project.name, std::string("Llama 3 8B training"));
        QCOMPARE(r.project.layout.framework, std::string("torchtitan"));
        QCOMPARE(r.project.layout.dp_shard, -1);
        QCOMPARE(r.project.layout.recompute, Recompute::selective);
        QCOMPARE(r.project.training.seq_len, 8192);
        QCOMPARE(r.project.training.micro_batch_size, 1);
        QCOMPARE(r.project.training.global_batch_size, 8);   // -1: local × dp (8 GPUs)
        QVERIFY(contains(r.warnings, "optimizer.lr not read"));
        QVERIFY(contains(r.warnings, "training.max_norm not read"));
        QVERIFY(contains(r.warnings, "activation_checkpoint.selective_ac_option not read"));
        QVERIFY(contains(r.warnings, "model.hf_assets_path not read") || contains(r.warnings, "hf_assets_path"));
    }

    void detectFormat() {
        QCOMPARE(detect_import_format("x/ds_config.json", "{}"), std::string("deepspeed"));
        QCOMPARE(detect_import_format("job.toml", ""), std::string("torchtitan"));
        QCOMPARE(detect_import_format("train.py", "p = HybridParallelPlugin(tp_size=2)"), std::string("colossalai"));
        QCOMPARE(detect_import_format("run.sh", "torchrun pretrain_gpt.py --num-layers 2"), std::string("megatron"));
        QCOMPARE(detect_import_format("notes.txt", "hello"), std::string());
    }
};

QTEST_APPLESS_MAIN(TestExportImport)
#include "tst_export_import.moc"
