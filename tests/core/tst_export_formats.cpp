// Exporters over the example projects: golden files (PARAPLAN_UPDATE_GOLDEN=1
// rewrites them), every file parsed by its own language's parser, and the values
// read back from the parsed files compared with the layout.
#include "catalog/catalog.h"
#include "estimate/step_flushes.h"
#include "export/export.h"
#include "export_test_util.h"
#include "project/project.h"
#include "rules/apply_fix.h"
#include "rules/validate.h"
#include "util/input_error.h"

#include <QTemporaryDir>
#include <QtTest>

using namespace paraplan;
using namespace exporttest;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kFormats = {"colossalai", "megatron", "deepspeed",   "torchtitan", "torchrun",
                                           "slurm",      "k8s",      "layout-json", "trace",      "pipeline-csv"};

// Goldens for every format over every example; the largest is the 405B example's
// trace.json (~0.8 MB; its layout.json is ~0.4 MB), all under the ~1 MB limit.

int world(const Project& p) { return p.world_size(); }
int dp_of(const Project& p) {
    const Layout& l = p.layout;
    return world(p) / (l.tp * l.pp * l.cp * l.sp);
}

Project example(const std::string& name) { return load_example(name); }

}   // namespace

class TestExportFormats : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;
    fs::path stubs_;

    fs::path dir(const std::string& sub) {
        const fs::path d = fs::path(tmp_.path().toStdString()) / sub;
        fs::create_directories(d);
        return d;
    }

    ExportFiles exported(const Project& p, const std::string& format, const std::string& sub) {
        ExportOptions o;
        o.force = true;
        ExportResult r = export_project(p, format, o);
        write_files(r.files, dir(sub));
        return r.files;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        stubs_ = make_stubs(tmp_.path().toStdString());
        QVERIFY2(run(kPython, {"-c", "import tomllib, yaml"}).code == 0,
                 "/usr/bin/python3 needs tomllib and python3-yaml");
    }

    void goldenAndSyntax_data() {
        QTest::addColumn<QString>("example");
        QTest::addColumn<QString>("format");
        for (const auto& e : example_names())
            for (const auto& f : kFormats)
                QTest::newRow((e + "/" + f).c_str()) << QString::fromStdString(e) << QString::fromStdString(f);
    }
    void goldenAndSyntax() {
        QFETCH(QString, example);
        QFETCH(QString, format);
        const Project p = load_example(example.toStdString());
        ExportOptions o;
        o.force = true;
        const ExportResult r = export_project(p, format.toStdString(), o);
        QVERIFY(!r.refused);
        QVERIFY(!r.files.empty());
        const fs::path out = dir("golden/" + example.toStdString() + "/" + format.toStdString());
        write_files(r.files, out);
        for (const auto& [path, f] : r.files) {
            const std::string err = check_syntax(out / path, f.syntax);
            QVERIFY2(err.empty(), err.c_str());
        }
        check_parse_back(p, format.toStdString(), r.files);
        const fs::path golden = fs::path(PARAPLAN_TEST_DATA) / "golden" / example.toStdString() / format.toStdString();
        if (qEnvironmentVariableIsSet("PARAPLAN_UPDATE_GOLDEN")) {
            fs::remove_all(golden);
            write_files(r.files, golden);
            return;
        }
        QVERIFY2(fs::is_directory(golden),
                 ("missing golden folder " + golden.string() + " (run with PARAPLAN_UPDATE_GOLDEN=1)").c_str());
        std::set<std::string> on_disk;
        for (const auto& e : fs::recursive_directory_iterator(golden))
            if (e.is_regular_file()) on_disk.insert(fs::relative(e.path(), golden).string());
        std::set<std::string> produced;
        for (const auto& [path, f] : r.files) produced.insert(path);
        QCOMPARE(produced, on_disk);
        for (const auto& [path, f] : r.files) {
            const std::string want = read_file(golden / path);
            QVERIFY2(f.content == want, ("differs from golden: " + (golden / path).string()).c_str());
        }
    }

    void colossalaiPluginValues_data() {
        QTest::addColumn<QString>("example");
        for (const auto& e : example_names()) QTest::newRow(e.c_str()) << QString::fromStdString(e);
    }
    void colossalaiPluginValues() {
        QFETCH(QString, example);
        const Project p = load_example(example.toStdString());
        const auto files = exported(p, "colossalai", "cai-" + example.toStdString());
        const auto call = parse_back("python", dir("cai-" + example.toStdString()) / "plugin.py");
        QVERIFY2(!call.contains("_error"), call.dump().c_str());
        const auto& kw = call["kwargs"];
        const Layout& l = p.layout;
        QCOMPARE(call["callee"].get<std::string>(),
                 std::string(l.framework == "colossalai-moe" ? "MoeHybridParallelPlugin" : "HybridParallelPlugin"));
        QCOMPARE(kw["tp_size"].get<int>(), l.tp);
        QCOMPARE(kw["pp_size"].get<int>(), l.pp);
        QCOMPARE(kw["zero_stage"].get<int>(), l.zero_stage);
        QCOMPARE(kw["precision"].get<std::string>(), std::string(to_string(p.training.precision)));
        QCOMPARE(kw["enable_sequence_parallelism"].get<bool>(), l.sp_mode != SpMode::none);
        if (l.sp_mode != SpMode::none)
            QCOMPARE(kw["sequence_parallelism_mode"].get<std::string>(), std::string(to_string(l.sp_mode)));
        else QVERIFY(!kw.contains("sequence_parallelism_mode"));
        if (l.framework == "colossalai-moe") QCOMPARE(kw["ep_size"].get<int>(), l.ep);
        if (l.pp > 1) {
            QCOMPARE(kw["pp_style"].get<std::string>(), std::string("1f1b"));
            QCOMPARE(kw["num_model_chunks"].get<int>(), l.chunks);
            QCOMPARE(kw["num_microbatches"].get<int>(), l.num_microbatches);
            QCOMPARE(kw["microbatch_size"].get<int>(), p.training.micro_batch_size);
            // The global batch is whole steps of microbatches × microbatch size per data-parallel rank.
            QCOMPARE(p.training.global_batch_size %
                         (kw["num_microbatches"].get<int>() * kw["microbatch_size"].get<int>() * dp_of(p)),
                     0);
        }
        QCOMPARE(kw["cpu_offload"].get<bool>(), l.offload != Offload::none);
        // hostfile: one host per line, in node-rank order, no slots= and no comments.
        const std::string hosts = files.at("hostfile").content;
        std::string want;
        for (const auto& n : p.cluster.nodes) want += (n.host.empty() ? n.name : n.host) + "\n";
        QCOMPARE(hosts, want);
        // run.sh: colossalai run with `--` before the script's arguments.
        const Launch run = run_script(dir("cai-" + example.toStdString()) / "run.sh", stubs_);
        QCOMPARE(run.code, 0);
        QCOMPARE(run.argv.at(0), std::string("colossalai"));
        QCOMPARE(run.argv.at(1), std::string("run"));
        QCOMPARE(arg_value(run.argv, "--nproc_per_node"), std::to_string(p.cluster.gpus_per_node()));
        QCOMPARE(arg_value(run.argv, "--hostfile"), std::string("hostfile"));
        QCOMPARE(arg_value(run.argv, "train.py"), std::string("--"));
    }

    void colossalaiZeroBubbleV() {
        Project p = example("llama3.1-70b-4nodes");
        p.layout.schedule = Schedule::zbv;
        p.layout.chunks = 2;
        exported(p, "colossalai", "cai-zbv");
        const auto call = parse_back("python", dir("cai-zbv") / "plugin.py");
        QCOMPARE(call["kwargs"]["pp_style"].get<std::string>(), std::string("zbv"));
        QCOMPARE(call["kwargs"]["num_model_chunks"].get<int>(), 2);
        QCOMPARE(call["kwargs"]["scheduler_nodes"]["expr"].get<std::string>(), std::string("scheduler_nodes"));
        const std::string graph = call["assignments"]["scheduler_nodes"].get<std::string>();
        QVERIFY2(graph.find("PipelineGraph(n_stage=4, n_micro=32") != std::string::npos, graph.c_str());
        QVERIFY(graph.find("get_v_schedule()") != std::string::npos);
        // ring_attn writes sp_size and the mode.
        Project q = example("gpt2-1node");
        q.layout.tp = 1;
        q.layout.sp = 4;
        q.layout.sp_mode = SpMode::ring_attn;
        exported(q, "colossalai", "cai-ring");
        const auto c2 = parse_back("python", dir("cai-ring") / "plugin.py");
        QCOMPARE(c2["kwargs"]["sp_size"].get<int>(), 4);
        QCOMPARE(c2["kwargs"]["sequence_parallelism_mode"].get<std::string>(), std::string("ring_attn"));
    }

    void megatronFlagsAndValues_data() {
        QTest::addColumn<QString>("example");
        QTest::addColumn<int>("chunks");
        for (const auto& e : example_names()) {
            QTest::newRow(e.c_str()) << QString::fromStdString(e) << 1;
            QTest::newRow((e + "/vpp2").c_str()) << QString::fromStdString(e) << 2;
        }
    }
    void megatronFlagsAndValues() {
        QFETCH(QString, example);
        QFETCH(int, chunks);
        Project p = load_example(example.toStdString());
        p.layout.framework = "megatron";
        p.layout.chunks = chunks;
        if (chunks > 1) p.layout.schedule = Schedule::interleaved;
        const std::string sub = "meg-" + example.toStdString() + std::to_string(chunks);
        exported(p, "megatron", sub);
        const auto flags = megatron_flags();
        QVERIFY(flags.size() > 400);
        const int nodes = static_cast<int>(p.cluster.nodes.size());
        for (int k = 0; k < std::min(nodes, 2); ++k) {
            const Launch run = run_script(dir(sub) / "train_megatron.sh", stubs_, {"NODE_RANK=" + QString::number(k)});
            QVERIFY2(run.code == 0, run.err.c_str());
            QCOMPARE(run.argv.at(0), std::string("torchrun"));
            QCOMPARE(arg_value(run.argv, "--node_rank"), std::to_string(k));
            QCOMPARE(arg_value(run.argv, "--nnodes"), std::to_string(nodes));
            QCOMPARE(arg_value(run.argv, "--nproc_per_node"), std::to_string(p.cluster.gpus_per_node()));
            // A hybrid Mamba model runs pretrain_mamba.py (export_megatron.cpp megatron_script).
            auto script = std::find(run.argv.begin(), run.argv.end(),
                                    p.model.is_hybrid() ? "pretrain_mamba.py" : "pretrain_gpt.py");
            QVERIFY(script != run.argv.end());
            const std::vector<std::string> args(script + 1, run.argv.end());
            for (const auto& a : args)
                if (a.rfind("--", 0) == 0) QVERIFY2(flags.count(a), ("not a Megatron-LM flag: " + a).c_str());
            QVERIFY(!has_arg(args, "--virtual-pipeline-model-parallel-size"));
            const Layout& l = p.layout;
            QCOMPARE(arg_value(args, "--tensor-model-parallel-size"), std::to_string(l.tp));
            QCOMPARE(arg_value(args, "--pipeline-model-parallel-size"), std::to_string(l.pp));
            QCOMPARE(arg_value(args, "--context-parallel-size"), std::to_string(l.cp));
            QCOMPARE(arg_value(args, "--micro-batch-size"), std::to_string(p.training.micro_batch_size));
            QCOMPARE(arg_value(args, "--global-batch-size"), std::to_string(p.training.global_batch_size));
            QCOMPARE(arg_value(args, "--num-layers"), std::to_string(p.model.layers));
            QCOMPARE(arg_value(args, "--hidden-size"), std::to_string(p.model.hidden));
            QCOMPARE(arg_value(args, "--num-attention-heads"), std::to_string(p.model.heads));
            QCOMPARE(arg_value(args, "--seq-length"), std::to_string(p.training.seq_len));
            if (chunks > 1) QCOMPARE(arg_value(args, "--num-virtual-stages-per-pipeline-rank"), std::to_string(chunks));
            else QVERIFY(!has_arg(args, "--num-virtual-stages-per-pipeline-rank"));
            QCOMPARE(has_arg(args, "--sequence-parallel"),
                     (l.sp_mode != SpMode::none && l.tp > 1) || (l.ep > 1 && l.tp > 1));
            QCOMPARE(has_arg(args, "--use-distributed-optimizer"), l.zero_stage == 1);
            if (p.model.is_moe()) {
                QCOMPARE(arg_value(args, "--expert-model-parallel-size"), std::to_string(l.ep));
                QCOMPARE(arg_value(args, "--num-experts"), std::to_string(p.model.experts));
            }
            if (l.recompute != Recompute::none)
                QCOMPARE(arg_value(args, "--recompute-granularity"), std::string(to_string(l.recompute)));
            // All example GPUs are pre-Blackwell.
            QCOMPARE(run.max_connections, std::string(l.tp > 1 || l.cp > 1 ? "1" : ""));
        }
    }

    // Llama 3.1 405B (126 layers) on pp 8: Megatron refuses the even split, and the first
    // fix keeps pp 8 by counting the embedding and the loss as layers (126 + 2 = 128 =
    // 8 × 16; arguments.py validate_args, core 0.11+). Applied, the project validates
    // clean and the export carries both flags, each a real Megatron-LM flag.
    void megatronAccountForEmbeddingAndLoss() {
        Project p = example("llama3.1-405b-128nodes");
        p.layout.framework = "megatron";
        p.layout.pp = 8;
        p.layout.num_microbatches = 0;   // derived: 1024 / (1 × dp 16)
        QCOMPARE(p.model.layers, 126);
        const Diagnostic* d = nullptr;
        const auto before = validate(p);
        for (const auto& x : before)
            if (x.rule == "megatron.layers_divisible_pp") d = &x;
        QVERIFY2(d, "126 layers on pp 8 must be refused");
        QVERIFY(!d->fixes.empty());
        const Fix& fix = d->fixes.front();
        QVERIFY2(fix.label.find("--account-for-embedding-in-pipeline-split --account-for-loss-in-pipeline-split") !=
                     std::string::npos,
                 fix.label.c_str());
        const Project fixed = with_fix(p, fix);
        QCOMPARE(fixed.layout.pp, 8);
        for (const auto& x : validate(fixed))
            QVERIFY2(x.severity != Severity::Error, (x.rule + ": " + x.message).c_str());
        // The project file keeps the two switches.
        const Project reloaded = project_from_text(project_to_text(fixed));
        QVERIFY(reloaded.layout.account_for_embedding_in_pipeline_split &&
                reloaded.layout.account_for_loss_in_pipeline_split);
        const ExportResult r = export_project(fixed, "megatron");
        QVERIFY(!r.refused);
        write_files(r.files, dir("meg-405b-account"));
        const Launch run = run_script(dir("meg-405b-account") / "train_megatron.sh", stubs_, {"NODE_RANK=0"});
        QVERIFY2(run.code == 0, run.err.c_str());
        const auto flags = megatron_flags();
        auto script = std::find(run.argv.begin(), run.argv.end(), "pretrain_gpt.py");
        QVERIFY(script != run.argv.end());
        const std::vector<std::string> args(script + 1, run.argv.end());
        for (const auto& a : args)
            if (a.rfind("--", 0) == 0) QVERIFY2(flags.count(a), ("not a Megatron-LM flag: " + a).c_str());
        QVERIFY(has_arg(args, "--account-for-embedding-in-pipeline-split"));
        QVERIFY(has_arg(args, "--account-for-loss-in-pipeline-split"));
        QCOMPARE(arg_value(args, "--pipeline-model-parallel-size"), std::string("8"));
        // Megatron before core 0.11 has no such flags: no such fix is offered there.
        Project old = p;
        old.layout.extra.edit()["megatron_version"] = "core_v0.10.0";
        for (const auto& x : validate(old))
            if (x.rule == "megatron.layers_divisible_pp")
                for (const auto& f : x.fixes)
                    QVERIFY2(f.label.find("account-for") == std::string::npos, f.label.c_str());
    }

    // layout.order as Megatron's command line sets it: pp outside dp is --use-tp-pp-dp-mapping (a
    // Megatron-LM flag), the default order writes nothing, an order the command line cannot set is refused.
    void megatronRankOrder() {
        Project p = example("llama3.1-70b-4nodes");
        p.layout.framework = "megatron";
        const auto flat = [&](const std::string& order) {
            p.layout.order = order;
            ExportOptions o;
            o.force = true;
            return export_project(p, "megatron", o);
        };
        const auto has_flag = [](const ExportResult& r, const std::string& flag) {
            for (const auto& [name, f] : r.files)
                if (f.content.find(flag) != std::string::npos) return true;
            return false;
        };
        const auto refused_order = [](const ExportResult& r) {
            for (const auto& d : r.diagnostics)
                for (const auto& f : d.fields)
                    if (f == "/layout/order") return true;
            return false;
        };
        QVERIFY(megatron_flags().count("--use-tp-pp-dp-mapping"));
        for (const char* order : {"tp-cp-ep-pp-dp", "tp-pp-dp"}) {
            const ExportResult r = flat(order);
            QVERIFY2(has_flag(r, "--use-tp-pp-dp-mapping") && !refused_order(r), order);
        }
        for (const char* order : {"", "tp-cp-ep-dp-pp", "tp-dp-pp"}) {
            const ExportResult r = flat(order);
            QVERIFY2(!has_flag(r, "--use-tp-pp-dp-mapping") && !refused_order(r), order);
        }
        QVERIFY(refused_order(flat("pp-tp-dp")));
    }

    void megatronBlackwellNeedsNoMaxConnections() {
        Project p = example("llama3.1-70b-4nodes");
        for (auto& n : p.cluster.nodes) n.gpu = "b200";
        QVERIFY2(catalog_has_b200(), "b200 is a required catalog GPU");
        const auto env = megatron_env(p);
        QVERIFY(env.empty());
        p.cluster.nodes[0].gpu = "h100-sxm";
        QCOMPARE(megatron_env(p).size(), std::size_t(1));
    }

    void deepspeedValues_data() { colossalaiPluginValues_data(); }
    void deepspeedValues() {
        QFETCH(QString, example);
        Project p = load_example(example.toStdString());
        const std::string sub = "ds-" + example.toStdString();
        exported(p, "deepspeed", sub);
        const auto c = parse_back("json", dir(sub) / "ds_config.json");
        const Layout& l = p.layout;
        const int dp = world(p) / (l.tp * l.pp);
        QCOMPARE(c["train_micro_batch_size_per_gpu"].get<int>(), p.training.micro_batch_size);
        QCOMPARE(c["train_batch_size"].get<int>(),
                 c["train_micro_batch_size_per_gpu"].get<int>() * c["gradient_accumulation_steps"].get<int>() * dp);
        QCOMPARE(c["train_batch_size"].get<int>(), p.training.global_batch_size);
        QCOMPARE(c["zero_optimization"]["stage"].get<int>(), l.zero_stage);
        QCOMPARE(c.contains("bf16"), p.training.precision == Precision::bf16);
        if (l.pp > 1) QCOMPARE(c["pipeline"]["stages"].get<int>(), l.pp);
        if (l.tp > 1) QCOMPARE(c["tensor_parallel"]["autotp_size"].get<int>(), l.tp);
        // pipeline.py hands PipelineModule the pipe x model x data topology; DeepSpeed's
        // engine takes its data-parallel size from that grid and asserts
        // train_batch_size == micro × gradient_accumulation_steps × dp with it.
        QCOMPARE(fs::exists(dir(sub) / "pipeline.py"), l.pp > 1);
        if (l.pp > 1) {
            const auto topo = parse_back("python", dir(sub) / "pipeline.py");
            QVERIFY2(!topo.contains("_error"), topo.dump().c_str());
            QCOMPARE(topo["callee"].get<std::string>(), std::string("PipeModelDataParallelTopology"));
            QCOMPARE(topo["kwargs"]["num_pp"].get<int>(), l.pp);
            QCOMPARE(topo["kwargs"]["num_mp"].get<int>(), l.tp);
            QCOMPARE(topo["kwargs"]["num_dp"].get<int>() * l.pp * l.tp, world(p));
            QCOMPARE(c["train_batch_size"].get<int>(), c["train_micro_batch_size_per_gpu"].get<int>() *
                                                           c["gradient_accumulation_steps"].get<int>() *
                                                           topo["kwargs"]["num_dp"].get<int>());
            QVERIFY(read_file(dir(sub) / "pipeline.py").find("PipelineModule(layers=layers, topology=topology()") !=
                    std::string::npos);
        }
        // hostfile: `host slots=N` per node.
        std::istringstream hf(read_file(dir(sub) / "hostfile"));
        std::string line;
        std::size_t i = 0;
        while (std::getline(hf, line)) {
            if (line.empty() || line[0] == '#') continue;
            const Node& n = p.cluster.nodes.at(i++);
            QCOMPARE(line, (n.host.empty() ? n.name : n.host) + " slots=" + std::to_string(n.gpus));
        }
        QCOMPARE(i, p.cluster.nodes.size());
        const Launch run = run_script(dir(sub) / "run.sh", stubs_);
        QCOMPARE(run.argv.at(0), std::string("deepspeed"));
        QCOMPARE(arg_value(run.argv, "--deepspeed_config"), std::string("ds_config.json"));
        QCOMPARE(arg_value(run.argv, "--num_nodes"), std::to_string(p.cluster.nodes.size()));
    }

    void deepspeedOffload() {
        Project p = example("gpt2-1node");
        p.layout.tp = 1;
        p.layout.pp = 1;
        p.layout.zero_stage = 3;
        p.layout.offload = Offload::cpu;
        p.layout.offload_fraction = 0.5;
        p.layout.num_microbatches = 0;
        exported(p, "deepspeed", "ds-offload");
        const auto c = parse_back("json", dir("ds-offload") / "ds_config.json");
        QCOMPARE(c["zero_optimization"]["offload_optimizer"]["device"].get<std::string>(), std::string("cpu"));
        QCOMPARE(c["zero_optimization"]["offload_optimizer"]["ratio"].get<double>(), 0.5);
        QCOMPARE(c["zero_optimization"]["offload_param"]["device"].get<std::string>(), std::string("cpu"));
        QCOMPARE(c["train_batch_size"].get<int>(), 64);
        QCOMPARE(c["gradient_accumulation_steps"].get<int>(), 2);   // 64 / (4 × 8)
    }

    void torchtitanValues_data() { colossalaiPluginValues_data(); }
    void torchtitanValues() {
        QFETCH(QString, example);
        Project p = load_example(example.toStdString());
        const std::string sub = "tt-" + example.toStdString();
        exported(p, "torchtitan", sub);
        const auto t = parse_back("toml", dir(sub) / "job.toml");
        QVERIFY2(!t.contains("_error"), t.dump().c_str());
        const Layout& l = p.layout;
        const auto& par = t["parallelism"];
        QCOMPARE(par["tensor_parallel_degree"].get<int>(), l.tp);
        QCOMPARE(par["pipeline_parallel_degree"].get<int>(), l.pp);
        QCOMPARE(par["context_parallel_degree"].get<int>(), l.cp);
        QCOMPARE(par["data_parallel_shard_degree"].get<int>(), -1);
        QCOMPARE(par["data_parallel_replicate_degree"].get<int>(), 1);
        if (l.pp > 1) {
            QCOMPARE(par["pipeline_parallel_schedule"].get<std::string>(), std::string("1F1B"));
            QCOMPARE(par["pipeline_parallel_microbatch_size"].get<int>(), p.training.micro_batch_size);
            // n_microbatches = local_batch_size / pipeline_parallel_microbatch_size
            QCOMPARE(t["training"]["local_batch_size"].get<int>() / par["pipeline_parallel_microbatch_size"].get<int>(),
                     l.num_microbatches);
        }
        if (l.ep > 1) QCOMPARE(par["expert_parallel_degree"].get<int>(), l.ep);
        QCOMPARE(t["training"]["global_batch_size"].get<int>(), p.training.global_batch_size);
        QCOMPARE(t["training"]["seq_len"].get<int>(), p.training.seq_len);
        // global % (local × dp) == 0 (torchtitan's batch rule).
        QCOMPARE(p.training.global_batch_size % (t["training"]["local_batch_size"].get<int>() * dp_of(p)), 0);
        QCOMPARE(t["activation_checkpoint"]["mode"].get<std::string>(), std::string(to_string(l.recompute)));
        const Launch run = run_script(dir(sub) / "run.sh", stubs_, {"NODE_RANK=0"});
        QCOMPARE(run.argv.at(0), std::string("torchrun"));
        QCOMPARE(arg_value(run.argv, "--job.config_file"), std::string("job.toml"));
        QCOMPARE(arg_value(run.argv, "-m"), std::string("torchtitan.train"));
    }

    void torchtitanVirtualStages() {
        Project p = example("llama3.1-70b-4nodes");
        p.layout.schedule = Schedule::interleaved;
        p.layout.chunks = 2;
        exported(p, "torchtitan", "tt-vpp");
        const auto t = parse_back("toml", dir("tt-vpp") / "job.toml");
        QCOMPARE(t["parallelism"]["pipeline_parallel_schedule"].get<std::string>(), std::string("Interleaved1F1B"));
        QCOMPARE(t["parallelism"]["pipeline_parallel_layers_per_stage"].get<int>(), p.model.layers / 8);
    }

    // FP8 settings as torchtitan v0.2.0 reads them (config/job_config.py Float8Linear and MXLinear;
    // components/quantization/float8.py refuses recipe_name together with
    // enable_fsdp_float8_all_gather, so the FP8 all-gather goes with tensorwise only).
    void torchtitanFp8Settings() {
        Project p = example("llama3.1-70b-4nodes");
        p.layout.framework = "torchtitan";
        p.layout.fp8 = true;
        p.layout.fp8_all_gather = true;
        const auto fp8Findings = [](const ExportResult& r) {
            int n = 0;
            for (const auto& d : r.diagnostics) n += d.rule == "export.torchtitan.fp8_all_gather";
            return n;
        };
        ExportOptions o;
        o.force = true;
        for (const Fp8Recipe recipe : {Fp8Recipe::tensorwise, Fp8Recipe::rowwise, Fp8Recipe::mxfp8}) {
            p.layout.fp8_recipe = recipe;
            const std::string sub = std::string("tt-fp8-") + to_string(recipe);
            const ExportResult r = export_project(p, "torchtitan", o);
            write_files(r.files, dir(sub));
            const auto t = parse_back("toml", dir(sub) / "job.toml");
            QVERIFY2(!t.contains("_error"), t.dump().c_str());
            const std::string converter = p.layout.fp8_recipe == Fp8Recipe::mxfp8 ? "quantize.linear.mx"
                                                                                  : "quantize.linear.float8";
            QCOMPARE(t["model"]["converters"], nlohmann::json::array({converter}));
            if (p.layout.fp8_recipe == Fp8Recipe::mxfp8) {
                QCOMPARE(t["quantize"]["linear"]["mx"]["recipe_name"].get<std::string>(), std::string("mxfp8_cublas"));
                QCOMPARE(fp8Findings(r), 1);   // MXLinear has no FP8 all-gather
                continue;
            }
            const auto& f8 = t["quantize"]["linear"]["float8"];
            const bool rowwise = p.layout.fp8_recipe == Fp8Recipe::rowwise;
            QCOMPARE(f8["enable_fsdp_float8_all_gather"].get<bool>(), !rowwise);
            QCOMPARE(f8.value("precompute_float8_dynamic_scale_for_fsdp", false), !rowwise);
            QCOMPARE(f8.contains("recipe_name"), rowwise);
            if (rowwise) QCOMPARE(f8["recipe_name"].get<std::string>(), std::string("rowwise"));
            QCOMPARE(fp8Findings(r), rowwise ? 1 : 0);
        }
    }

    // ColossalAI's own switches for the FP8 all-gather and the kernel stack (booster/plugin/
    // {hybrid_parallel,gemini,low_level_zero}_plugin.py, v0.5.1): fp8_all_gather is fp8_communication
    // (whose casts the estimate counts: no warning), kernels "te" is the fused
    // ShardFormer kernels, and what has no switch (torch.compile, LowLevelZero's kernels) is a warning.
    void colossalaiFp8AndKernels() {
        const auto findings = [](const ExportResult& r, const std::string& rule) {
            int n = 0;
            for (const auto& d : r.diagnostics) n += d.rule == rule;
            return n;
        };
        ExportOptions o;
        o.force = true;
        Project p = example("llama3.1-70b-4nodes");
        p.layout.fp8 = true;
        p.layout.fp8_all_gather = true;
        p.layout.kernels = KernelStack::te;
        p.layout.fused_norm = false;
        p.layout.jit_fused = false;
        p.layout.zero_stage = 1;
        for (const char* fw : {"colossalai", "colossalai-gemini", "colossalai-zero"}) {
            Project q = p;
            q.layout.framework = fw;
            if (q.layout.framework != "colossalai") {
                q.layout.tp = 1;
                q.layout.pp = 1;
                q.layout.zero_stage = q.layout.framework == "colossalai-gemini" ? 3 : 2;
            }
            const std::string sub = std::string("cai-fp8-") + fw;
            const ExportResult r = export_project(q, "colossalai", o);
            write_files(r.files, dir(sub));
            const auto call = parse_back("python", dir(sub) / "plugin.py");
            QVERIFY2(!call.contains("_error"), call.dump().c_str());
            const auto& kw = call["kwargs"];
            QVERIFY2(kw.value("use_fp8", false), kw.dump().c_str());
            QVERIFY2(kw.value("fp8_communication", false), kw.dump().c_str());
            const bool zero = q.layout.framework == "colossalai-zero";
            // The estimate counts what fp8_communication casts in these plugins (docs/accuracy.md).
            QCOMPARE(findings(r, "export.colossalai.fp8_communication"), 0);
            if (zero) {
                QVERIFY(!kw.contains("enable_fused_normalization"));
                QCOMPARE(findings(r, "export.colossalai.kernels"), 1);   // no kernel switches
            } else {
                QCOMPARE(kw["enable_fused_normalization"].get<bool>(), true);
                QCOMPARE(kw["enable_jit_fused"].get<bool>(), true);
                QCOMPARE(findings(r, "export.colossalai.kernels"), 1);   // te written as the fused kernels
            }
        }
        // MoeHybridParallelPlugin's expert all-to-alls are counted too: no warning, the switch written.
        Project moe = example("mixtral-8x7b-2nodes-ep");
        QVERIFY(moe.layout.ep > 1);
        moe.layout.fp8 = true;
        moe.layout.fp8_all_gather = true;
        const ExportResult rm = export_project(moe, "colossalai", o);
        QCOMPARE(findings(rm, "export.colossalai.fp8_communication"), 0);
        write_files(rm.files, dir("cai-fp8-moe"));
        const auto cm = parse_back("python", dir("cai-fp8-moe") / "plugin.py");
        QVERIFY2(cm["kwargs"].value("fp8_communication", false), cm.dump().c_str());
        // Without FP8 the all-gather switch writes nothing; fused switches on and kernels auto: no finding.
        Project plain = example("llama3.1-70b-4nodes");
        plain.layout.fp8_all_gather = true;
        plain.layout.fused_norm = true;
        plain.layout.jit_fused = true;
        const ExportResult r0 = export_project(plain, "colossalai", o);
        write_files(r0.files, dir("cai-plain"));
        const auto c0 = parse_back("python", dir("cai-plain") / "plugin.py");
        QVERIFY(!c0["kwargs"].contains("fp8_communication"));
        QCOMPARE(findings(r0, "export.colossalai.kernels"), 0);
        // torch.compile has no plugin switch: a warning, nothing written.
        plain.layout.kernels = KernelStack::compile;
        const ExportResult rc = export_project(plain, "colossalai", o);
        QCOMPARE(findings(rc, "export.colossalai.kernels"), 1);
        // A recipe ColossalAI's per-tensor use_fp8 does not have is a warning.
        plain.layout.kernels = KernelStack::framework;
        plain.layout.fp8 = true;
        plain.layout.fp8_recipe = Fp8Recipe::rowwise;
        QCOMPARE(findings(export_project(plain, "colossalai", o), "export.colossalai.fp8_recipe"), 1);
    }

    // torchtitan has no Transformer Engine path: kernels "te" exports eager PyTorch with a warning.
    void torchtitanKernelsTe() {
        Project p = example("llama3.1-70b-4nodes");
        p.layout.framework = "torchtitan";
        p.layout.kernels = KernelStack::te;
        ExportOptions o;
        o.force = true;
        const ExportResult r = export_project(p, "torchtitan", o);
        write_files(r.files, dir("tt-te"));
        const auto t = parse_back("toml", dir("tt-te") / "job.toml");
        QVERIFY2(!t.contains("_error"), t.dump().c_str());
        QVERIFY(!t.contains("compile"));
        int warned = 0, rule = 0;
        for (const auto& d : r.diagnostics) {
            warned += d.rule == "export.torchtitan.kernels";
            rule += d.rule == "torchtitan.kernels";
        }
        QCOMPARE(warned, 1);
        QCOMPARE(rule, 1);
    }

    void torchrunPerNode() {
        Project p = example("llama3.1-70b-4nodes");
        // Canvas order: node 2 first, GPUs reversed on it; then nodes 0, 1, 3.
        p.cluster.rank_order.clear();
        for (int n : {2, 0, 1, 3})
            for (int g = 0; g < 8; ++g) p.cluster.rank_order.push_back({n, n == 2 ? 7 - g : g});
        exported(p, "torchrun", "trun");
        for (int k = 0; k < 4; ++k) {
            const Launch run = run_script(dir("trun") / "launch.sh", stubs_, {"NODE_RANK=" + QString::number(k)});
            QVERIFY2(run.code == 0, run.err.c_str());
            QCOMPARE(arg_value(run.argv, "--nnodes"), std::string("4"));
            QCOMPARE(arg_value(run.argv, "--node_rank"), std::to_string(k));
            QCOMPARE(arg_value(run.argv, "--nproc_per_node"), std::string("8"));
            QCOMPARE(arg_value(run.argv, "--rdzv_backend"), std::string("static"));
            QCOMPARE(arg_value(run.argv, "--master_addr"), std::string("gpu-c"));   // node 2 holds rank 0
            QCOMPARE(arg_value(run.argv, "--master_port"), std::string("29500"));
            QCOMPARE(run.visible_devices, std::string(k == 0 ? "7,6,5,4,3,2,1,0" : ""));
        }
        const Launch bad = run_script(dir("trun") / "launch.sh", stubs_, {"NODE_RANK=9"});
        QCOMPARE(bad.code, 2);
    }

    void torchrunRefusesSplitBlocks() {
        Project p = example("gpt2-1node");
        p.cluster.nodes.push_back(p.cluster.nodes[0]);
        p.cluster.nodes[1].name = "node1";
        p.cluster.nodes[1].host = "other";
        p.layout.num_microbatches = 0;
        for (int r = 0; r < 16; ++r) p.cluster.rank_order.push_back({r % 2, r / 2});   // alternate nodes
        const ExportResult r = export_project(p, "torchrun");
        QVERIFY(r.refused);
        bool found = false;
        for (const auto& d : r.diagnostics) found = found || d.rule == "export.launch.rank_order";
        QVERIFY(found);
    }

    // Every torchrun line an export writes (torchrun, Slurm, Kubernetes, Megatron and
    // torchtitan launchers) is read by torch's own parser, torch.distributed.run's
    // get_args_parser(), from Debian 12's python3-torch 1.13: it knows only the
    // underscore spellings (--nproc_per_node, --node_rank, ...), which torch 2.x keeps
    // as aliases of the dashed ones.
    void torchrunLinesParseWithTorch() {
        struct Case {
            std::string what;
            std::vector<std::string> argv;   // without "torchrun"
            int nnodes, node_rank, nproc;
            std::string master_addr;
        };
        std::vector<Case> cases;
        auto launched = [&](const std::string& what, const Launch& run, int nnodes, int node_rank, int nproc,
                            const std::string& addr) {
            QVERIFY2(run.code == 0 && !run.argv.empty() && run.argv.at(0) == "torchrun",
                     (what + ": " + run.err).c_str());
            cases.push_back(
                {what, std::vector<std::string>(run.argv.begin() + 1, run.argv.end()), nnodes, node_rank, nproc, addr});
        };
        Project p = example("llama3.1-70b-4nodes");
        exported(p, "torchrun", "tp-trun");
        launched("torchrun", run_script(dir("tp-trun") / "launch.sh", stubs_, {"NODE_RANK=2"}), 4, 2, 8, "gpu-a");
        Project meg = p;
        meg.layout.framework = "megatron";
        exported(meg, "slurm", "tp-slurm");
        launched("slurm",
                 run_script(dir("tp-slurm") / "job.sbatch", stubs_,
                            {"SLURM_JOB_NODELIST=stub[0-3]", "STUB_NNODES=4", "STUB_NODEID=3"}),
                 4, 3, 8, "stub-head-node");
        exported(meg, "megatron", "tp-meg");
        launched("megatron",
                 run_script(dir("tp-meg") / "train_megatron.sh", stubs_,
                            {"NODE_RANK=1", "MASTER_ADDR=head", "MASTER_PORT=6000"}),
                 4, 1, 8, "head");
        exported(p, "torchtitan", "tp-tt");
        launched("torchtitan",
                 run_script(dir("tp-tt") / "run.sh", stubs_, {"NODE_RANK=3", "MASTER_ADDR=head", "MASTER_PORT=6000"}),
                 4, 3, 8, "head");
        exported(p, "k8s", "tp-k8s");
        const auto y = parse_back("yaml", dir("tp-k8s") / "pytorchjob.yaml");
        auto cmd = y["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0]["command"]
                       .get<std::vector<std::string>>();
        // The training operator sets RANK, MASTER_ADDR and MASTER_PORT; Kubernetes expands $(VAR).
        for (auto& a : cmd) {
            if (a == "$(RANK)") a = "2";
            if (a == "$(MASTER_ADDR)") a = "job-master-0";
            if (a == "$(MASTER_PORT)") a = "23456";
        }
        QCOMPARE(cmd.at(0), std::string("torchrun"));
        cases.push_back({"k8s", std::vector<std::string>(cmd.begin() + 1, cmd.end()), 4, 2, 8, "job-master-0"});

        nlohmann::json list = nlohmann::json::array();
        for (const auto& c : cases) list.push_back(c.argv);
        const fs::path in = dir("tp-cases") / "cases.json";
        write_file(in, list.dump());
        const Proc r = run(kPython, {QStringLiteral(PARAPLAN_TEST_DATA "/export/torchrun_parse.py"),
                                     QString::fromStdString(in.string())});
        QVERIFY2(r.code == 0, r.err.c_str());
        const auto out = nlohmann::json::parse(r.out);
        QVERIFY2(
            out["torch"].get<std::string>().rfind("1.", 0) == 0 || out["torch"].get<std::string>().rfind("2.", 0) == 0,
            out.dump().c_str());
        for (std::size_t i = 0; i < cases.size(); ++i) {
            const auto& got = out["parsed"][i];
            const auto& c = cases[i];
            QVERIFY2(!got.contains("_error"), (c.what + ": torch refused " + got.dump()).c_str());
            QCOMPARE(got["nnodes"].get<std::string>(), std::to_string(c.nnodes));
            QCOMPARE(got["node_rank"].get<int>(), c.node_rank);
            QCOMPARE(got["nproc_per_node"].get<std::string>(), std::to_string(c.nproc));
            QCOMPARE(got["rdzv_backend"].get<std::string>(), std::string("static"));
            QCOMPARE(got["master_addr"].get<std::string>(), c.master_addr);
            QVERIFY2(!got["training_script"].get<std::string>().empty(), c.what.c_str());
        }
        // The parser is the strict one: the dashed spellings are refused by torch 1.13.
        if (out["torch"].get<std::string>().rfind("1.", 0) == 0) {
            write_file(in, nlohmann::json::array({{"--nproc-per-node", "8", "train.py"}}).dump());
            const Proc d = run(kPython, {QStringLiteral(PARAPLAN_TEST_DATA "/export/torchrun_parse.py"),
                                         QString::fromStdString(in.string())});
            QVERIFY(nlohmann::json::parse(d.out)["parsed"][0].contains("_error"));
        }
    }

    void slurmValues() {
        Project p = example("llama3.1-70b-4nodes");
        p.layout.framework = "megatron";
        exported(p, "slurm", "slurm");
        const std::string text = read_file(dir("slurm") / "job.sbatch");
        QVERIFY(text.find("#SBATCH --nodes=4\n") != std::string::npos);
        QVERIFY(text.find("#SBATCH --gpus-per-node=8\n") != std::string::npos);
        QVERIFY(text.find("#SBATCH --ntasks-per-node=1\n") != std::string::npos);
        {
            // A cluster without gpu gres (runtime.slurm.gpus "none"): no gres request at all.
            Project q = p;
            q.runtime["slurm"] = {{"gpus", "none"}};
            exported(q, "slurm", "slurm-nogres");
            const std::string t = read_file(dir("slurm-nogres") / "job.sbatch");
            QVERIFY(t.find("#SBATCH --gpus") == std::string::npos);
            QVERIFY(t.find("#SBATCH --nodes=4\n") != std::string::npos);
        }
        const Launch run = run_script(dir("slurm") / "job.sbatch", stubs_,
                                      {"SLURM_JOB_NODELIST=stub[0-3]", "STUB_NNODES=4", "STUB_NODEID=3"});
        QVERIFY2(run.code == 0, run.err.c_str());
        QCOMPARE(run.argv.at(0), std::string("torchrun"));
        QCOMPARE(arg_value(run.argv, "--nnodes"), std::string("4"));
        QCOMPARE(arg_value(run.argv, "--node_rank"), std::string("3"));
        QCOMPARE(arg_value(run.argv, "--master_addr"), std::string("stub-head-node"));
        QCOMPARE(arg_value(run.argv, "--tensor-model-parallel-size"), std::string("8"));
        QCOMPARE(run.max_connections, std::string("1"));
    }

    void k8sValues_data() { colossalaiPluginValues_data(); }
    void k8sValues() {
        QFETCH(QString, example);
        const Project p = load_example(example.toStdString());
        const std::string sub = "k8s-" + example.toStdString();
        exported(p, "k8s", sub);
        const auto y = parse_back("yaml", dir(sub) / "pytorchjob.yaml");
        QVERIFY2(!y.contains("_error"), y.dump().c_str());
        QCOMPARE(y["apiVersion"].get<std::string>(), std::string("kubeflow.org/v1"));
        QCOMPARE(y["kind"].get<std::string>(), std::string("PyTorchJob"));
        const int nodes = static_cast<int>(p.cluster.nodes.size());
        const auto& specs = y["spec"]["pytorchReplicaSpecs"];
        QCOMPARE(specs["Master"]["replicas"].get<int>(), 1);
        QCOMPARE(specs.contains("Worker"), nodes > 1);
        if (nodes > 1) QCOMPARE(specs["Worker"]["replicas"].get<int>(), nodes - 1);
        QCOMPARE(y["spec"]["nprocPerNode"].get<std::string>(), std::to_string(p.cluster.gpus_per_node()));
        const auto& c = specs["Master"]["template"]["spec"]["containers"][0];
        QCOMPARE(c["name"].get<std::string>(), std::string("pytorch"));
        QCOMPARE(c["resources"]["limits"]["nvidia.com/gpu"].get<int>(), p.cluster.gpus_per_node());
        const auto cmd = c["command"].get<std::vector<std::string>>();
        QCOMPARE(cmd.at(0), std::string("torchrun"));
        QCOMPARE(arg_value(cmd, "--nnodes"), std::to_string(nodes));
        // The name is a DNS-1123 label.
        const std::string name = y["metadata"]["name"].get<std::string>();
        QVERIFY(name.size() <= 63);
        for (char ch : name)
            QVERIFY(std::islower(static_cast<unsigned char>(ch)) || std::isdigit(static_cast<unsigned char>(ch)) ||
                    ch == '-');
    }

    void invalidIsRefusedUnlessForced() {
        Project p = example("gpt2-1node");
        p.layout.tp = 3;   // 8 GPUs are not divisible by tp × pp = 6
        const ExportResult refused = export_project(p, "colossalai");
        QVERIFY(refused.refused);
        QVERIFY(refused.files.empty());
        bool found = false;
        for (const auto& d : refused.diagnostics) found = found || d.rule == "colossalai.world_divisible";
        QVERIFY(found);

        ExportOptions o;
        o.force = true;
        const ExportResult forced = export_project(p, "colossalai", o);
        QVERIFY(!forced.refused);
        QVERIFY(forced.files.at("plugin.py").content.rfind("# PARAPLAN WARNING", 0) == 0);
        QVERIFY(forced.files.at("plugin.py").content.find("colossalai.world_divisible") != std::string::npos);
        // run.sh keeps its shebang first.
        QVERIFY(forced.files.at("run.sh").content.rfind("#!/usr/bin/env bash\n# PARAPLAN WARNING", 0) == 0);
        // The ColossalAI hostfile has no comment syntax: the warnings go to a file of their own.
        QVERIFY(forced.files.at("hostfile").content.find("PARAPLAN") == std::string::npos);
        QVERIFY(forced.files.count("PARAPLAN_WARNINGS.txt"));
        write_files(forced.files, dir("forced"));
        for (const auto& [path, f] : forced.files) {
            const std::string err = check_syntax(dir("forced") / path, f.syntax);
            QVERIFY2(err.empty(), err.c_str());
        }
        // JSON has no comments: "_paraplan_warnings".
        const ExportResult ds = export_project(p, "deepspeed", o);
        const auto j = nlohmann::json::parse(ds.files.at("ds_config.json").content);
        QVERIFY(j["_paraplan_warnings"].is_array());
        QVERIFY(!j["_paraplan_warnings"].empty());
    }

    void unsupportedSettingsAreFindings() {
        Project p = example("gpt2-1node");
        p.layout.cp = 2;
        p.layout.pp = 1;
        p.layout.tp = 2;
        const ExportResult r = export_project(p, "colossalai");
        QVERIFY(r.refused);
        bool found = false;
        for (const auto& d : r.diagnostics)
            found = found || (d.rule == "export.colossalai.unsupported" && d.fields.at(0) == "/layout/cp");
        QVERIFY(found);
        Project q = example("gpt2-1node");
        q.layout.schedule = Schedule::zbv;
        q.layout.chunks = 2;
        const ExportResult m = export_project(q, "megatron");
        QVERIFY(m.refused);
    }

    void unknownAndPendingFormats() {
        const Project p = example("gpt2-1node");
        QVERIFY_THROWS_EXCEPTION(InputError, export_project(p, "nonsense"));
        for (const char* f : {"layout-json", "trace", "pipeline-csv"})
            if (!export_format_available(f)) QVERIFY_THROWS_EXCEPTION(InputError, export_project(p, f));
    }

    // layout-json, trace and pipeline-csv come from core/topology and core/schedule;
    // these run once those modules are in the tree.
    void layoutJson() {
        QVERIFY(export_format_available("layout-json"));
        const Project p = example("llama3.1-70b-4nodes");
        const ExportResult r = export_project(p, "layout-json");
        QVERIFY(!r.refused);
        const auto j = nlohmann::json::parse(r.files.at("layout.json").content);
        QCOMPARE(j["valid"].get<bool>(), true);
        QCOMPARE(j["world_size"].get<int>(), 32);
        QVERIFY(j["groups"].is_object() || j["groups"].is_array());
        QVERIFY(!j["groups"].empty());
    }

    void traceAndCsv() {
        QVERIFY(export_format_available("trace"));
        const Project p = example("gpt2-1node");   // pp 2, 8 microbatches, 1F1B
        const ExportResult t = export_project(p, "trace");
        QVERIFY(!t.refused);
        const auto j = nlohmann::json::parse(t.files.at("trace.json").content);
        int compute = 0;
        for (const auto& e : j["traceEvents"]) compute += e["ph"] == "X";
        QCOMPARE(compute, 2 * 8 * 2);   // F and B of 8 microbatches on 2 stages
        const ExportResult c = export_project(p, "pipeline-csv");
        const std::string csv = c.files.at("schedule.csv").content;
        QCOMPARE(static_cast<int>(std::count(csv.begin(), csv.end(), '\n')), 2);   // one row per rank
        QVERIFY(csv.find("0F0") != std::string::npos);
        QVERIFY(csv.find("1B7") != std::string::npos);
    }

    // The trace is the whole step as the estimate prices it: the 70B example's 8 flushes (global
    // batch 256 / (microbatch 1 x dp 1 x 32 microbatches)) back to back, each the one-flush
    // trace's ops shifted by a flush, the gradient reductions where the estimate places them.
    void traceWholeStep() {
        const Project p = example("llama3.1-70b-4nodes");
        Project one = p;
        one.training.global_batch_size = 32;   // the same 32 microbatches, one flush
        const auto sf = estimate::step_flushes(estimate::estimate_project(p));
        QCOMPARE(sf.flushes, 8);
        QCOMPARE(estimate::step_flushes(estimate::estimate_project(one)).flushes, 1);
        const auto trace = [](const Project& q) {
            return nlohmann::json::parse(export_project(q, "trace").files.at("trace.json").content);
        };
        const auto j8 = trace(p), j1 = trace(one);
        const auto forwards = [](const nlohmann::json& j, int pid) {
            int n = 0;
            for (const auto& e : j["traceEvents"]) n += e["ph"] == "X" && e["cat"] == "forward" && e["pid"] == pid;
            return n;
        };
        const auto last_end = [](const nlohmann::json& j) {
            double end = 0;
            for (const auto& e : j["traceEvents"])
                if (e["ph"] == "X") end = std::max(end, e["ts"].get<double>() + e["dur"].get<double>());
            return end;
        };
        QCOMPARE(forwards(j1, 0), 32);
        QCOMPARE(forwards(j8, 0), 8 * forwards(j1, 0));
        QCOMPARE(forwards(j8, 3), 8 * 32);
        QCOMPARE(j8["otherData"]["flushes"].get<int>(), 8);
        // The trace's unit is one op (1 ms): its step ends where the estimate's pipeline does, the
        // step time less the optimizer and offload, in flushes of the one-flush trace.
        const double flush = last_end(j1);
        QVERIFY(flush > 0);
        QVERIFY(qAbs(last_end(j8) - flush * sf.pipeline_s() / sf.flush_s) < 1e-9 * last_end(j8));
        const double step = estimate::estimate_project(p).time.step_s;
        QVERIFY(qAbs(last_end(j8) / flush * sf.flush_s - (step - sf.optimizer_s - sf.offload_s)) < 1e-9 * step);
        // Flush 2 (0-based) repeats flush 0 shifted by two flushes, microbatches numbered on.
        bool found = false;
        for (const auto& e : j8["traceEvents"])
            found = found || (e["ph"] == "X" && e["pid"] == 1 && e["name"] == "F64" &&
                              qAbs(e["ts"].get<double>() - 2 * flush - 1000.0) < 1e-6);   // F0 of stage 1 at 1 ms
        QVERIFY(found);

        // Data parallel 2 (tp 8, pp 2) over a 10 Gbit/s network, where the reduction is exposed: 4
        // flushes and a reduction after each one (PyTorch DeviceMesh, grad_sync_each_flush) or one
        // after the last (ColossalAI).
        for (const bool each : {true, false}) {
            Project q = p;
            q.layout.tp = 8;
            q.layout.pp = 2;
            q.cluster.network.inter_node_gbps = 10;
            q.layout.framework = each ? "devicemesh" : "colossalai";
            const auto e = estimate::estimate_project(q);
            QCOMPARE(e.config.grad_sync_each_flush, each);
            const auto qf = estimate::step_flushes(e);
            QCOMPARE(qf.flushes, 4);
            QVERIFY(qf.sync_s > 0);
            const auto jq = trace(q);
            std::vector<std::pair<double, double>> syncs;   // stage 0's [ts, ts + dur)
            int sync_slices = 0;
            double flush_end = 0;   // the first flush's last op (microbatches 0..31)
            for (const auto& x : jq["traceEvents"]) {
                if (x["ph"] != "X") continue;
                if (x["cat"] == "grad_sync") {
                    ++sync_slices;
                    if (x["pid"] == 0)
                        syncs.emplace_back(x["ts"].get<double>(), x["ts"].get<double>() + x["dur"].get<double>());
                } else if (x["args"]["microbatch"].get<int>() < 32) {
                    flush_end = std::max(flush_end, x["ts"].get<double>() + x["dur"].get<double>());
                }
            }
            QCOMPARE(int(syncs.size()), each ? 4 : 1);
            QCOMPARE(sync_slices, int(syncs.size()) * q.layout.pp);
            // In the trace's unit a reduction keeps its share of a flush, and sits where the
            // estimate places it: at the end of its flush, the next flush after it.
            const double d = flush_end * qf.sync_s / qf.flush_s;
            for (std::size_t i = 0; i < syncs.size(); ++i) {
                const double start = each ? i * (flush_end + d) + flush_end : 4 * flush_end;
                QVERIFY2(qAbs(syncs[i].first - start) < 1e-6 * start, qPrintable(QString::number(i)));
                QVERIFY(qAbs(syncs[i].second - syncs[i].first - d) < 1e-6 * d);
            }
            QVERIFY(qAbs(last_end(jq) - flush_end * qf.pipeline_s() / qf.flush_s) < 1e-6 * last_end(jq));
            QCOMPARE(last_end(jq), syncs.back().second);
        }
    }

    // torchtitan has no built-in schedule for ZB-H1/ZB-H2: the export writes
    // PyTorch's schedule CSV next to job.toml and points pipeline_parallel_schedule_csv at it.
    void torchtitanCustomScheduleCsv_data() {
        QTest::addColumn<QString>("schedule");
        QTest::newRow("zbh1") << "zbh1";
        QTest::newRow("zbh2") << "zbh2";
    }
    void torchtitanCustomScheduleCsv() {
        QFETCH(QString, schedule);
        Project p = example("llama3.1-70b-4nodes");
        p.layout.schedule = *parse_schedule(schedule.toStdString());
        p.layout.chunks = 1;
        QVERIFY(torchtitan_schedule_name(p.layout.schedule, p.layout.chunks).empty());
        const std::string sub = "tt-csv-" + schedule.toStdString();
        const auto files = exported(p, "torchtitan", sub);
        const auto t = parse_back("toml", dir(sub) / "job.toml");
        QVERIFY2(!t.contains("_error"), t.dump().c_str());
        const auto& par = t["parallelism"];
        QVERIFY2(par.contains("pipeline_parallel_schedule_csv"), par.dump().c_str());
        const std::string csv_name = par["pipeline_parallel_schedule_csv"].get<std::string>();
        QCOMPARE(csv_name, std::string("schedule.csv"));
        QCOMPARE(par["pipeline_parallel_schedule"].get<std::string>(), std::string("1F1B"));   // one stage per rank
        QVERIFY(files.count(csv_name));
        QVERIFY(fs::is_regular_file(dir(sub) / csv_name));
        const std::string csv = read_file(dir(sub) / csv_name);
        QCOMPARE(static_cast<int>(std::count(csv.begin(), csv.end(), '\n')), p.layout.pp);   // one row per stage
        // Zero-bubble schedules split B into I (input grad) and W (weight grad).
        QVERIFY2(csv.find("0W0") != std::string::npos, csv.c_str());
        // The exporter no longer reports the schedule as one it cannot express.
        const FormatOutput direct = export_torchtitan(p, ExportOptions{});
        for (const auto& d : direct.findings)
            QVERIFY2(d.rule != "export.torchtitan.unsupported" ||
                         std::find(d.fields.begin(), d.fields.end(), "/layout/schedule") == d.fields.end(),
                     d.message.c_str());
        QCOMPARE(direct.files.at("schedule.csv").content, csv);
        // A built-in schedule writes no CSV.
        const auto plain = exported(example("llama3.1-70b-4nodes"), "torchtitan", "tt-csv-none");
        QVERIFY(!plain.count("schedule.csv"));
        QVERIFY(!parse_back("toml", dir("tt-csv-none") / "job.toml")["parallelism"].contains(
            "pipeline_parallel_schedule_csv"));
    }

private:
    static bool catalog_has_b200();

    // Values read back from the parsed single-file formats.
    void check_parse_back(const Project& p, const std::string& format, const ExportFiles& files) {
        if (format == "layout-json") {
            const auto j = nlohmann::json::parse(files.at("layout.json").content);
            QCOMPARE(j["world_size"].get<int>(), p.world_size());
        } else if (format == "trace") {
            const auto j = nlohmann::json::parse(files.at("trace.json").content);
            QVERIFY(j["traceEvents"].is_array());
            int x = 0;
            for (const auto& e : j["traceEvents"]) x += e.value("ph", "") == "X";
            QVERIFY2(x > 0, "no complete (ph \"X\") events");
        } else if (format == "pipeline-csv") {
            const std::string& csv = files.at("schedule.csv").content;
            QCOMPARE(static_cast<int>(std::count(csv.begin(), csv.end(), '\n')),
                     p.layout.pp);   // one row per pipeline stage
        }
    }
};

bool TestExportFormats::catalog_has_b200() {
    const GpuSpec* g = catalog::find_gpu("b200");
    return g && g->arch == "blackwell";
}

QTEST_APPLESS_MAIN(TestExportFormats)
#include "tst_export_formats.moc"
