// paraplan-cli estimate and plan as processes: the JSON contracts and exit codes.
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "clitest.h"

class TestCliEstimate : public QObject {
    Q_OBJECT
private slots:
    void estimate_contract() {
        const Run r = cli({"estimate", example("llama3.1-70b-4nodes"), "--json"});
        QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
        const QJsonObject j = parseObject(r.out);
        const QJsonObject mem = j["memory"].toObject();
        const QJsonArray stages = mem["stages"].toArray();
        QCOMPARE(stages.size(), 4);   // pp = 4
        for (const auto& sv : stages) {
            const QJsonObject s = sv.toObject();
            for (const char* k :
                 {"stage", "params_gib", "grads_gib", "optimizer_gib", "activations_gib", "other_gib", "total_gib"})
                QVERIFY2(s.contains(k), k);
            const double sum = s["params_gib"].toDouble() + s["grads_gib"].toDouble() + s["optimizer_gib"].toDouble() +
                               s["activations_gib"].toDouble() + s["other_gib"].toDouble();
            QVERIFY(qAbs(sum - s["total_gib"].toDouble()) < 1e-9 * sum);
            QVERIFY(s["params_gib"].toDouble() > 0.5);   // 70B over tp 8 x pp 4: ~2.2e9 params per GPU
        }
        QCOMPARE(mem["capacity_gib"].toDouble(), 80.0);
        QVERIFY(mem.contains("peak_gib") && mem["fits"].isBool());
        QCOMPARE(r.code, mem["fits"].toBool() ? 0 : 1);
        const QJsonObject time = j["time"].toObject();
        for (const char* k : {"step_s", "compute_s", "bubble_s"}) QVERIFY2(time[k].toDouble() >= 0, k);
        QVERIFY(time["step_s"].toDouble() > time["compute_s"].toDouble());
        const QJsonObject comm = time["comm_s"].toObject();
        for (const char* k : {"tp", "cp", "ep", "pp", "dp"}) QVERIFY2(comm.contains(k), k);
        QVERIFY(comm["tp"].toDouble() > 0);   // tp = 8
        // 6 x 70B x tokens, roughly, per step.
        const double tokens = 256.0 * 4096;
        QVERIFY(j["flops_per_step"].toDouble() > 6 * 65e9 * tokens &&
                j["flops_per_step"].toDouble() < 6 * 90e9 * tokens);
        QVERIFY(j["mfu"].toDouble() > 0.1 && j["mfu"].toDouble() < 0.8);
        QVERIFY(j["hfu"].toDouble() >= j["mfu"].toDouble());
        QVERIFY(qAbs(j["tokens_per_s"].toDouble() - tokens / time["step_s"].toDouble()) <
                1e-6 * j["tokens_per_s"].toDouble());
        // ColossalAI, global 256 / (micro 1 x dp 1 x num_microbatches 32): 8 flushes of 32 per step,
        // as the rules accept it, each with its own bubble; the layout's 32 is not overridden.
        const QJsonObject layout = j["layout"].toObject();
        QCOMPARE(layout["num_microbatches"].toInt(), 32);
        QCOMPARE(layout["grad_accum_steps"].toInt(), 8);
        QCOMPARE(time["flushes"].toInt(), 8);
        QVERIFY(time["step_s"].toDouble() > 8 * time["flush_s"].toDouble());
        bool accumulation_noted = false;
        for (const auto& n : j["notes"].toArray()) {
            QVERIFY2(!n.toString().contains("using the latter"), qPrintable(n.toString()));
            accumulation_noted = accumulation_noted || n.toString().contains("8 pipeline flushes of 32 microbatches");
        }
        QVERIFY(accumulation_noted);
    }

    // Mixture of experts in --json: dispatcher, capacity factor, imbalance, overlap, the rows each
    // expert GEMM sees and the dispatch/combine time (core/estimate/moe.h); dense models have none.
    void estimate_moe_fields() {
        Run r = cli({"estimate", example("mixtral-8x7b-2nodes-ep"), "--json"});
        QVERIFY2(r.code == 0 || r.code == 1, r.err.constData());
        QJsonObject j = parseObject(r.out);
        QVERIFY(j.contains("moe"));
        QJsonObject moe = j["moe"].toObject();
        QCOMPARE(moe["experts"].toInt(), 8);
        QCOMPARE(moe["top_k"].toInt(), 2);
        QCOMPARE(moe["ep"].toInt(), 8);
        QCOMPARE(moe["moe_layers"].toInt(), 32);
        QCOMPARE(moe["moe_dispatcher"].toString(), QString("alltoall"));
        QCOMPARE(moe["dropless"].toBool(), true);
        QCOMPARE(moe["overlap"].toBool(), false);
        // 4096 tokens x top 2 x ep 8 / (8 experts x tp 1) rows per local expert, balanced.
        QCOMPARE(moe["tokens_per_expert"].toDouble(), 8192.0);
        QCOMPARE(moe["imbalance"].toDouble(), 1.5);   // the default (moe.h kDefaultMoeImbalance)
        QCOMPARE(moe["load"].toDouble(), 1.5);
        QCOMPARE(moe["busiest_tokens_per_expert"].toDouble(), 1.5 * 8192);
        QVERIFY(moe["grouped_gemm_efficiency"].toDouble() > 0 && moe["grouped_gemm_efficiency"].toDouble() < 1);
        QVERIFY(moe["a2a_fwd_s_per_layer"].toDouble() > 0);
        QVERIFY(moe["a2a_bwd_s_per_layer"].toDouble() >= moe["a2a_fwd_s_per_layer"].toDouble());
        QCOMPARE(moe["a2a_exposed_s"].toDouble(), j["time"].toObject()["comm_s"].toObject()["ep"].toDouble());
        QVERIFY(moe["a2a_exposed_s"].toDouble() > 0);

        // A capacity factor below the imbalance drops tokens: the busiest rank's load is C.
        QTemporaryDir dir;
        const QString capped = write_variant(dir, "mixtral-8x7b-2nodes-ep", {{"moe_capacity_factor", 1.25}},
                                             "cap.paraplan.json");
        r = cli({"estimate", capped, "--json"});
        moe = parseObject(r.out)["moe"].toObject();
        QCOMPARE(moe["capacity_factor"].toDouble(), 1.25);
        QCOMPARE(moe["dropless"].toBool(), false);
        QCOMPARE(moe["load"].toDouble(), 1.25);
        // Forced balance and overlap as the layout says.
        const QString balanced = write_variant(dir, "mixtral-8x7b-2nodes-ep",
                                               {{"moe_imbalance", 1.0}, {"moe_overlap", true}}, "bal.paraplan.json");
        r = cli({"estimate", balanced, "--json"});
        moe = parseObject(r.out)["moe"].toObject();
        QCOMPARE(moe["load"].toDouble(), 1.0);
        QCOMPARE(moe["overlap"].toBool(), true);
        QCOMPARE(moe["busiest_tokens_per_expert"].toDouble(), 8192.0);

        r = cli({"estimate", example("llama3.1-70b-4nodes"), "--json"});
        QVERIFY(!parseObject(r.out).contains("moe"));
    }

    void estimate_text_and_errors() {
        Run r = cli({"estimate", example("gpt2-1node")});
        QCOMPARE(r.code, 0);
        QVERIFY(r.out.contains("MFU") && r.out.contains("fits"));
        r = cli({"estimate", "/nonexistent/file.paraplan.json", "--json"});
        QCOMPARE(r.code, 2);
        QVERIFY(r.out.isEmpty());
        QTemporaryDir dir;
        // A layout whose sizes do not divide the world: a finding (exit 1), named field.
        const QString bad = write_variant(dir, "gpt2-1node", {{"tp", 3}}, "bad.paraplan.json");
        r = cli({"estimate", bad, "--json"});
        QCOMPARE(r.code, 1);
        QVERIFY(parseObject(r.out).contains("error"));
        r = cli({"estimate", bad});   // the text says which file, which field, and where to look next
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains((bad + QStringLiteral(": /layout: the world size (8) is not divisible")).toUtf8()) &&
                     r.err.contains("paraplan-cli validate"),
                 r.err);
        // 70B with no model parallelism and no ZeRO does not fit 80 GB.
        const QString big = write_variant(
            dir, "llama3.1-70b-4nodes",
            {{"tp", 1}, {"pp", 1}, {"sp_mode", "none"}, {"zero_stage", 0}, {"num_microbatches", 8}},
            "big.paraplan.json");
        r = cli({"estimate", big, "--json"});
        QCOMPARE(r.code, 1);
        const QJsonObject j = parseObject(r.out);
        QCOMPARE(j["memory"].toObject()["fits"].toBool(), false);
        QVERIFY(j["memory"].toObject()["peak_gib"].toDouble() > 1000);
    }

    void plan_contract() {
        const Run r = cli({"plan", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--nodes", "4", "--gpus-per-node",
                           "8", "--global-batch", "64", "--seq", "4096", "--top", "3", "--fix", "tp=2..8", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = parseObject(r.out);
        for (const char* k : {"evaluated", "valid", "fitting", "seconds"}) QVERIFY2(j.contains(k), k);
        QVERIFY(j["evaluated"].toInt() >= j["valid"].toInt());
        QVERIFY(j["valid"].toInt() >= j["fitting"].toInt());
        const QJsonArray res = j["results"].toArray();
        QCOMPARE(res.size(), 3);
        double last = 0;
        for (const auto& v : res) {
            const QJsonObject e = v.toObject();
            QVERIFY(e["layout"].isObject());
            const int tp = e["layout"].toObject()["tp"].toInt();
            QVERIFY(tp >= 2 && tp <= 8);
            QVERIFY(e["step_s"].toDouble() >= last);
            last = e["step_s"].toDouble();
            QVERIFY(e["peak_gib"].toDouble() <= 80);
            QVERIFY(e["mfu"].toDouble() > 0);
        }
        // From a project file; usage errors exit 2.
        Run p = cli({"plan", "--project", example("gpt2-1node"), "--top", "2", "--json"});
        QCOMPARE(p.code, 0);
        QCOMPARE(parseObject(p.out)["results"].toArray().size(), 2);
        p = cli({"plan", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--nodes", "1", "--global-batch", "8", "--seq",
                 "2048", "--fix", "tp=eight"});
        QCOMPARE(p.code, 2);
        p = cli({"plan", "--gpu", "h100-sxm"});
        QCOMPARE(p.code, 2);
        // An empty table says why: nothing to try, or nothing fits.
        p = cli({"plan", "--project", example("gpt2-1node"), "--fix", "tp=3"});
        QCOMPARE(p.code, 1);
        QVERIFY2(p.err.contains("no layout to try") && p.err.contains("divide 8"), p.err);
        p = cli({"plan", "--model", "llama3.1-70b", "--gpu", "h100-sxm", "--nodes", "1", "--global-batch", "8", "--seq",
                 "4096"});
        QCOMPARE(p.code, 1);
        QVERIFY2(p.err.contains("valid layouts fits in the 80 GiB of one h100-sxm"), p.err);
    }

    // layout.peft (LoRA): Llama 3.1 70B on one 8 x H100 node estimates with its adapters and plans
    // layouts that fit, where the same model trained in full fits none (plan_contract above).
    void lora_estimate_and_plan() {
        Run r = cli({"estimate", example("llama3.1-70b-lora-1node"), "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject j = parseObject(r.out);
        const QJsonObject peft = j["peft"].toObject();
        QCOMPARE(peft["method"].toString(), QStringLiteral("lora"));
        QCOMPARE(peft["rank"].toInt(), 16);
        QCOMPARE(peft["targets"].toArray().size(), 4);
        // 80 layers x r (in + out) over linear_qkv, linear_proj, linear_fc1, linear_fc2 (Llama 3.1 70B).
        QCOMPARE(peft["trainable_params"].toDouble(),
                 80.0 * 16 * ((8192 + 10240) + (8192 + 8192) + (8192 + 57344) + (28672 + 8192)));
        QVERIFY(j["memory"].toObject()["fits"].toBool());
        r = cli({"plan", "--project", example("llama3.1-70b-lora-1node"), "--top", "2", "--threads", "1", "--json"});
        QCOMPARE(r.code, 0);
        const QJsonArray res = parseObject(r.out)["results"].toArray();
        QVERIFY(!res.isEmpty());
        for (const auto& v : res) {
            QCOMPARE(v.toObject()["layout"].toObject()["peft"].toObject()["rank"].toInt(), 16);
            QVERIFY(v.toObject()["peak_gib"].toDouble() <= 80);
        }
    }

    // The text table shows every parallel size, dp included: the derived dp the --json results carry.
    void plan_table_shows_dp() {
        const QStringList args = {"plan", "--project", example("llama3.1-70b-4nodes"), "--top", "5", "--threads", "1"};
        const Run j = cli(args + QStringList{"--json"});
        QCOMPARE(j.code, 0);
        const QJsonArray res = parseObject(j.out)["results"].toArray();
        QVERIFY(res.size() > 1);
        const Run t = cli(args);
        QCOMPARE(t.code, 0);
        const QStringList lines = QString::fromUtf8(t.out).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
        QVERIFY(lines.size() >= 2 + res.size());
        const QStringList head = lines[1].split(QLatin1Char(' '), Qt::SkipEmptyParts);
        const int dpCol = int(head.indexOf(QStringLiteral("dp")));
        QVERIFY2(dpCol > 0, qPrintable(lines[1]));
        for (const char* k : {"tp", "pp", "cp", "sp", "ep"}) QVERIFY2(head.contains(QLatin1String(k)), k);
        bool some_dp_above_one = false;
        for (int i = 0; i < res.size(); ++i) {
            const QJsonObject e = res[i].toObject();
            const QStringList row = lines[2 + i].split(QLatin1Char(' '), Qt::SkipEmptyParts);
            QCOMPARE(row[0], e["layout"].toObject()["framework"].toString());
            QCOMPARE(row[int(head.indexOf(QStringLiteral("tp")))].toInt(), e["layout"].toObject()["tp"].toInt());
            const int dp = e["layout"].toObject()["dp"].toInt();
            QCOMPARE(row[dpCol].toInt(), dp);
            QVERIFY(dp >= 1);
            some_dp_above_one |= dp > 1;
        }
        QVERIFY(some_dp_above_one);   // 32 GPUs: the best layouts replicate over dp
    }

    // --apply writes the best layout as a project that validates and estimates to the same step time.
    void plan_apply() {
        QTemporaryDir dir;
        const QString out = dir.filePath(QStringLiteral("best.paraplan.json"));
        const Run r = cli(
            {"plan", "--project", example("llama3.1-70b-4nodes"), "--top", "1", "--apply", out, "--json"});
        QCOMPARE(r.code, 0);
        const QJsonObject best = parseObject(r.out)["results"].toArray().first().toObject();
        QVERIFY2(r.err.contains("wrote"), r.err.constData());
        const Run v = cli({"validate", out, "--json"});
        QVERIFY2(v.code == 0, v.out.constData());
        const Run e = cli({"estimate", out, "--json"});
        QCOMPARE(e.code, 0);
        const QJsonObject est = parseObject(e.out);
        const double step = est["time"].toObject()["step_s"].toDouble();
        QVERIFY2(qAbs(step - best["step_s"].toDouble()) < 1e-6 * step,
                 qPrintable(QStringLiteral("%1 vs %2").arg(step).arg(best["step_s"].toDouble())));
        QFile f(out);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QJsonObject proj = QJsonDocument::fromJson(f.readAll()).object();
        QCOMPARE(proj["layout"].toObject()["tp"].toInt(), best["layout"].toObject()["tp"].toInt());
        QCOMPARE(proj["layout"].toObject()["pp"].toInt(), best["layout"].toObject()["pp"].toInt());
    }
};

QTEST_GUILESS_MAIN(TestCliEstimate)
#include "tst_cli_estimate.moc"
