// Built-in catalogs: every required GPU and model, datasheet sanity, parameter
// counts against the published sizes, inline specs, and exact error messages.
#include "catalog/catalog.h"
#include "util/input_error.h"

#include <QtTest>

#include <atomic>
#include <cmath>
#include <functional>
#include <thread>
#include <vector>

using namespace paraplan;
using nlohmann::json;

namespace {

// The message of the InputError that `f` throws, or a marker when it throws none.
QString error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("<no error>");
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

// The project example's inline GPT-3 spec.
const char* kInlineGpt3 = R"({"family": "gpt2", "layers": 96, "hidden": 12288, "heads": 96, "kv_heads": 96,
  "ffn_hidden": 49152, "vocab": 51200, "max_seq": 2048, "activation": "gelu", "tied_embeddings": true})";

// A valid inline spec with one key replaced (or removed when value is discarded).
std::string spec_with(const std::string& key, const json& value) {
    json j = json::parse(kInlineGpt3);
    if (value.is_discarded()) j.erase(key);
    else j[key] = value;
    return j.dump();
}

const char* kGoodGpu = R"({"id": "x", "name": "X", "vendor": "nvidia", "arch": "hopper", "memory_gib": 80,
  "tflops_fp32": 67, "tflops_bf16": 989.4, "hbm_gbps": 3350, "intra_node_link": "nvlink4",
  "intra_node_gbps": 450, "tdp_w": 700, "source": "datasheet"})";

std::string gpu_catalog_with(const std::string& key, const json& value) {
    json g = json::parse(kGoodGpu);
    if (value.is_discarded()) g.erase(key);
    else g[key] = value;
    json good = json::parse(kGoodGpu);
    good["id"] = "y";
    return json{{"gpus", json::array({good, g})}}.dump();
}

}   // namespace

class TestCatalog : public QObject {
    Q_OBJECT
private slots:
    // First so that it races the one-time load.
    void concurrentFirstUse() {
        std::atomic<int> ok{0};
        std::vector<std::thread> threads;
        for (int i = 0; i < 8; ++i)
            threads.emplace_back([&ok] {
                if (catalog::find_gpu("h100-sxm") && catalog::find_model("llama3.1-8b") && !catalog::gpus().empty())
                    ++ok;
            });
        for (auto& t : threads) t.join();
        QCOMPARE(ok.load(), 8);
        QCOMPARE(&catalog::gpus(), &catalog::gpus());
    }

    void requiredGpus_data() {
        QTest::addColumn<QString>("id");
        for (const char* id :
             {"v100-32g", "a100-40g", "a100-80g", "h100-sxm", "h100-pcie", "h200", "b200", "mi250x", "mi300x", "l40s",
              "rtx4090", "gb200", "gb300", "b300", "mi350x", "mi355x", "h800", "a800"})
            QTest::newRow(id) << QString(id);
    }
    void requiredGpus() {
        QFETCH(QString, id);
        const GpuSpec* g = catalog::find_gpu(id.toStdString());
        QVERIFY2(g, qPrintable(id));
        QCOMPARE(qs(g->id), id);
        const auto ids = catalog::gpu_ids();
        QVERIFY(std::find(ids.begin(), ids.end(), id.toStdString()) != ids.end());
    }

    void gpuNumbersAreSane() {
        QVERIFY(catalog::gpus().size() >= 11);
        for (const GpuSpec& g : catalog::gpus()) {
            const QByteArray id = QByteArray::fromStdString(g.id);
            QVERIFY2(!g.name.empty() && !g.source.empty(), id);
            QVERIFY2(g.vendor == "nvidia" || g.vendor == "amd", id);
            QVERIFY2(g.memory_gib > 0 && g.tflops_fp32 > 0 && g.hbm_gbps > 0, id);
            QVERIFY2(g.intra_node_gbps > 0 && !g.intra_node_link.empty(), id);
            // A power the vendor does not publish is 0, and the source says so (HGX B300).
            QVERIFY2(g.tdp_w > 0 || g.source.find("not published") != std::string::npos, id);
            // FP4 (NVFP4 / MXFP4) at least twice the FP8 rate; Blackwell Ultra three times.
            if (g.tflops_fp4 > 0)
                QVERIFY2(g.tflops_fp4 >= 2 * g.tflops_fp8 * 0.999 && g.tflops_fp4 <= 3 * g.tflops_fp8, id);
            QVERIFY2(g.tflops_fp16 > g.tflops_fp32, id);   // every part has fp16 tensor/matrix cores
            if (g.supports_bf16()) {
                QVERIFY2(g.tflops_bf16 >= g.tflops_fp32, id);
                QVERIFY2(g.tflops_bf16 == g.tflops_fp16, id);
            }
            if (g.tflops_tf32 > 0) QVERIFY2(g.tflops_tf32 >= g.tflops_fp32 && g.tflops_tf32 <= g.tflops_bf16, id);
            // FP8 tensor cores run at twice the BF16 rate (datasheets round, e.g. L40S 733 vs 2 x 362.05).
            if (g.supports_fp8()) QVERIFY2(std::abs(g.tflops_fp8 - 2 * g.tflops_bf16) < 0.02 * g.tflops_fp8, id);
            // Memory in the tens to hundreds of GiB (GB300: 288), bandwidths in GB/s.
            QVERIFY2(g.memory_gib >= 16 && g.memory_gib <= 320, id);
            QVERIFY2(g.hbm_gbps >= 500 && g.hbm_gbps <= 10000, id);
        }
    }

    void gpuDatasheetValues() {
        const GpuSpec& h100 = *catalog::find_gpu("h100-sxm");
        QCOMPARE(h100.tflops_bf16, 989.4);
        QCOMPARE(h100.tflops_fp8, 1978.9);
        QCOMPARE(h100.intra_node_gbps, 450.0);
        QCOMPARE(h100.memory_gib, 80.0);
        QCOMPARE(h100.peak_tflops("bf16"), 989.4);
        QCOMPARE(h100.peak_tflops("fp32"), 67.0);
        QCOMPARE(h100.peak_tflops("tf32"), 494.7);
        QCOMPARE(h100.peak_tflops("fp16"), 989.4);
        QCOMPARE(h100.peak_tflops("fp8"), 1978.9);
        QCOMPARE(qs(h100.source).contains("H100"), true);

        const GpuSpec& a100 = *catalog::find_gpu("a100-80g");
        QCOMPARE(a100.tflops_bf16, 312.0);
        QCOMPARE(a100.tflops_tf32, 156.0);
        QVERIFY(!a100.supports_fp8());

        const GpuSpec& v100 = *catalog::find_gpu("v100-32g");
        QCOMPARE(v100.tflops_bf16, 0.0);
        QCOMPARE(v100.tflops_fp16, 125.0);
        QVERIFY(!v100.supports_bf16());
        QCOMPARE(v100.peak_tflops("bf16"), 0.0);

        QCOMPARE(catalog::find_gpu("h200")->memory_gib, 141.0);
        QCOMPARE(catalog::find_gpu("mi300x")->tflops_bf16, 1307.4);
        QCOMPARE(catalog::find_gpu("h100-pcie")->intra_node_link, std::string("pcie5"));
        QVERIFY(catalog::find_gpu("no-such-gpu") == nullptr);

        QCOMPARE(error_of([&] { (void)h100.peak_tflops("int4"); }),
                 QString("unknown precision \"int4\" (expected fp32, tf32, bf16, fp16, fp8 or fp4)"));
    }

    void flashAttention_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<bool>("supported");
        QTest::newRow("volta") << "v100-32g" << false;
        QTest::newRow("ampere") << "a100-80g" << true;
        QTest::newRow("ada") << "l40s" << true;
        QTest::newRow("hopper") << "h100-sxm" << true;
        QTest::newRow("blackwell") << "b200" << true;
        QTest::newRow("cdna2") << "mi250x" << true;
        QTest::newRow("cdna3") << "mi300x" << true;
    }
    void flashAttention() {
        QFETCH(QString, id);
        QFETCH(bool, supported);
        QCOMPARE(catalog::find_gpu(id.toStdString())->supports_flash_attention(), supported);
    }

    void gpuRoundTrip() {
        for (const GpuSpec& g : catalog::gpus()) {
            json j = to_json(g);
            const GpuSpec back = j.get<GpuSpec>();
            QCOMPARE(qs(to_json(back).dump()), qs(j.dump()));
        }
    }

    void gpuErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("wrong type") << qs(gpu_catalog_with("tflops_bf16", "fast"))
                                    << R"(/gpus/1/tflops_bf16: expected a non-negative number, got "fast")";
        QTest::newRow("missing") << qs(gpu_catalog_with("memory_gib", json(json::value_t::discarded)))
                                 << "/gpus/1/memory_gib: required field is missing (expected a positive number)";
        QTest::newRow("zero") << qs(gpu_catalog_with("hbm_gbps", 0))
                              << "/gpus/1/hbm_gbps: expected a positive number, got 0";
        QTest::newRow("vendor") << qs(gpu_catalog_with("vendor", "intel"))
                                << R"(/gpus/1/vendor: expected one of "nvidia", "amd", got "intel")";
        QTest::newRow("arch")
            << qs(gpu_catalog_with("arch", "cdna3"))
            << R"(/gpus/1/arch: expected an NVIDIA architecture (one of "volta", "turing", "ampere", "ada", "hopper", "blackwell"), got "cdna3")";
        QTest::newRow("duplicate") << qs(gpu_catalog_with("id", "y")) << R"(/gpus/1/id: duplicate id "y")";
        QTest::newRow("empty id") << qs(gpu_catalog_with("id", ""))
                                  << R"(/gpus/1/id: expected a non-empty string, got "")";
        QTest::newRow("no source") << qs(gpu_catalog_with("source", json(json::value_t::discarded)))
                                   << "/gpus/1/source: required field is missing (expected a string)";
        QTest::newRow("no array") << R"({"gpu": []})"
                                  << "/gpus: required field is missing (expected an array)";
        QTest::newRow("entry type") << R"({"gpus": [3]})"
                                    << "/gpus/0: expected an object, got 3";
        QTest::newRow("syntax") << "{\"gpus\": [\n  {\"id\": }\n]}"
                                << "line 2, column 10: JSON syntax error while parsing value - unexpected '}'; "
                                   "expected '[', '{', or a literal";
    }
    void gpuErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(error_of([&] { (void)catalog::parse_gpu_catalog(text.toStdString()); }), message);
    }

    void requiredModels_data() {
        QTest::addColumn<QString>("id");
        for (const char* id : {"gpt2", "gpt2-xl", "bert-large", "gpt3-175b", "llama2-7b", "llama2-70b", "llama3.1-8b",
                               "llama3.1-70b", "llama3.1-405b", "mistral-7b", "mixtral-8x7b", "mixtral-8x22b",
                               "qwen2.5-7b", "qwen2.5-72b", "deepseek-v3", "t5-11b"})
            QTest::newRow(id) << QString(id);
    }
    void requiredModels() {
        QFETCH(QString, id);
        const ModelSpec* m = catalog::find_model(id.toStdString());
        QVERIFY2(m, qPrintable(id));
        QVERIFY(!m->name.empty() && !m->source.empty() && !m->family.empty());
        QVERIFY(m->layers > 0 && m->hidden > 0 && m->heads > 0 && m->kv_heads > 0 && m->vocab > 0 && m->max_seq > 0);
        QVERIFY(m->heads % m->kv_heads == 0);
        const auto ids = catalog::model_ids();
        QVERIFY(std::find(ids.begin(), ids.end(), id.toStdString()) != ids.end());
    }

    // Published sizes (model cards / papers); active = 0 means dense (active == total).
    void paramCounts_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<double>("total");
        QTest::addColumn<double>("active");
        QTest::newRow("gpt2") << "gpt2" << 124e6 << 0.0;
        QTest::newRow("gpt2-xl") << "gpt2-xl" << 1.56e9 << 0.0;
        QTest::newRow("bert-large") << "bert-large" << 335e6 << 0.0;
        QTest::newRow("gpt3-175b") << "gpt3-175b" << 175e9 << 0.0;
        QTest::newRow("llama2-7b") << "llama2-7b" << 6.74e9 << 0.0;
        QTest::newRow("llama2-70b") << "llama2-70b" << 68.98e9 << 0.0;
        QTest::newRow("llama3.1-8b") << "llama3.1-8b" << 8.03e9 << 0.0;
        QTest::newRow("llama3.1-70b") << "llama3.1-70b" << 70.6e9 << 0.0;
        QTest::newRow("llama3.1-405b") << "llama3.1-405b" << 405.9e9 << 0.0;
        QTest::newRow("mistral-7b") << "mistral-7b" << 7.24e9 << 0.0;
        QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << 46.7e9 << 12.9e9;
        QTest::newRow("mixtral-8x22b") << "mixtral-8x22b" << 140.6e9 << 39.1e9;
        QTest::newRow("qwen2.5-7b") << "qwen2.5-7b" << 7.61e9 << 0.0;
        QTest::newRow("qwen2.5-72b") << "qwen2.5-72b" << 72.7e9 << 0.0;
        QTest::newRow("qwen1.5-moe-a2.7b") << "qwen1.5-moe-a2.7b" << 14.3e9 << 2.7e9;
        QTest::newRow("deepseek-v3") << "deepseek-v3" << 671e9 << 37e9;
        QTest::newRow("gpt-neox-20b") << "gpt-neox-20b" << 20.55e9 << 0.0;
        QTest::newRow("t5-11b") << "t5-11b" << 11.3e9 << 0.0;
        // Nemotron-H model cards and the Nemotron-H paper (arXiv 2504.03624) name 8B, 47B and 56B.
        QTest::newRow("nemotron-h-8b") << "nemotron-h-8b" << 8e9 << 0.0;
        QTest::newRow("nemotron-h-47b") << "nemotron-h-47b" << 47e9 << 0.0;
        QTest::newRow("nemotron-h-56b") << "nemotron-h-56b" << 56e9 << 0.0;
    }
    void paramCounts() {
        QFETCH(QString, id);
        QFETCH(double, total);
        QFETCH(double, active);
        const ModelSpec* m = catalog::find_model(id.toStdString());
        QVERIFY(m);
        const ParamBreakdown p = count_params(*m);
        const double t = static_cast<double>(p.total);
        QVERIFY2(std::abs(t - total) <= 0.02 * total,
                 qPrintable(QString("%1: %2 vs published %3").arg(id).arg(t, 0, 'g', 6).arg(total, 0, 'g', 6)));
        const double a = static_cast<double>(p.active);
        if (active == 0) {
            QCOMPARE(p.active, p.total);
            QVERIFY(!m->is_moe());
        } else {
            QVERIFY(m->is_moe());
            QVERIFY2(
                std::abs(a - active) <= 0.02 * active,
                qPrintable(QString("%1 active: %2 vs published %3").arg(id).arg(a, 0, 'g', 6).arg(active, 0, 'g', 6)));
        }
    }

    // Exact counts that Hugging Face reports (model.num_parameters()).
    void exactCounts_data() {
        QTest::addColumn<QString>("id");
        QTest::addColumn<qint64>("total");
        QTest::newRow("gpt2") << "gpt2" << Q_INT64_C(124439808);
        QTest::newRow("bert-large") << "bert-large" << Q_INT64_C(335141888);
        QTest::newRow("llama2-7b") << "llama2-7b" << Q_INT64_C(6738415616);
        QTest::newRow("llama3.1-8b") << "llama3.1-8b" << Q_INT64_C(8030261248);
        QTest::newRow("mistral-7b") << "mistral-7b" << Q_INT64_C(7241732096);
        QTest::newRow("mixtral-8x7b") << "mixtral-8x7b" << Q_INT64_C(46702792704);
        QTest::newRow("gpt-neox-20b") << "gpt-neox-20b" << Q_INT64_C(20554567680);
        QTest::newRow("t5-11b") << "t5-11b" << Q_INT64_C(11307321344);
    }
    void exactCounts() {
        QFETCH(QString, id);
        QFETCH(qint64, total);
        QCOMPARE(static_cast<qint64>(count_params(*catalog::find_model(id.toStdString())).total), total);
    }

    void breakdownParts() {
        // Llama 2 7B: untied head, 4 h^2 attention, 3-matrix SwiGLU MLP, RMSNorm weights only.
        const ParamBreakdown l = count_params(*catalog::find_model("llama2-7b"));
        QCOMPARE(l.embedding, std::int64_t{32000} * 4096);
        QCOMPARE(l.lm_head, std::int64_t{32000} * 4096);
        QCOMPARE(l.attention_per_layer, std::int64_t{4} * 4096 * 4096);
        QCOMPARE(l.dense_mlp_per_layer, std::int64_t{3} * 4096 * 11008);
        QCOMPARE(l.norms_per_layer, std::int64_t{2} * 4096);
        QCOMPARE(l.final_norm, std::int64_t{4096});
        QCOMPARE(l.moe_mlp_per_layer, std::int64_t{0});
        QCOMPARE(l.other, std::int64_t{0});
        QCOMPARE(l.total, l.embedding + 32 * (l.attention_per_layer + l.dense_mlp_per_layer + l.norms_per_layer) +
                              l.final_norm + l.lm_head);

        // Llama 3.1 70B GQA: k and v are 8 heads of 128.
        const ParamBreakdown g = count_params(*catalog::find_model("llama3.1-70b"));
        QCOMPARE(g.attention_per_layer, std::int64_t{2} * 8192 * 8192 + std::int64_t{2} * 8192 * 1024);

        // GPT-2: tied head, learned positions, biases, LayerNorm weight + bias.
        const ParamBreakdown gpt2 = count_params(*catalog::find_model("gpt2"));
        QCOMPARE(gpt2.lm_head, std::int64_t{0});
        QCOMPARE(gpt2.embedding, std::int64_t{50257} * 768 + std::int64_t{1024} * 768);
        QCOMPARE(gpt2.attention_per_layer, std::int64_t{4} * 768 * 768 + 4 * 768);
        QCOMPARE(gpt2.dense_mlp_per_layer, std::int64_t{2} * 768 * 3072 + 3072 + 768);
        QCOMPARE(gpt2.norms_per_layer, std::int64_t{4} * 768);

        // Qwen2.5: biases on q, k, v only.
        const ParamBreakdown q = count_params(*catalog::find_model("qwen2.5-7b"));
        QCOMPARE(q.attention_per_layer, std::int64_t{2} * 3584 * 3584 + std::int64_t{2} * 3584 * 512 + 3584 + 2 * 512);

        // BERT: token types + embedding LayerNorm, pooler in `other`, no final norm.
        const ParamBreakdown b = count_params(*catalog::find_model("bert-large"));
        QCOMPARE(b.embedding, std::int64_t{30522 + 512 + 2} * 1024 + 2 * 1024);
        QCOMPARE(b.other, std::int64_t{1024} * 1024 + 1024);
        QCOMPARE(b.final_norm, std::int64_t{0});
        QCOMPARE(b.lm_head, std::int64_t{0});

        // T5: inner dim heads * d_kv = 16384, cross-attention in decoder layers, relative bias tables.
        const ParamBreakdown t = count_params(*catalog::find_model("t5-11b"));
        QCOMPARE(t.attention_per_layer, std::int64_t{4} * 1024 * 16384);
        QCOMPARE(t.cross_attention_per_layer, std::int64_t{4} * 1024 * 16384 + 1024);
        QCOMPARE(t.dense_mlp_per_layer, std::int64_t{2} * 1024 * 65536);
        QCOMPARE(t.other, std::int64_t{2} * 32 * 128);
        QCOMPARE(t.final_norm, std::int64_t{2} * 1024);
        QCOMPARE(t.lm_head, std::int64_t{0});

        // Mixtral: 8 experts + router; 2 active.
        const ParamBreakdown x = count_params(*catalog::find_model("mixtral-8x7b"));
        QCOMPARE(x.expert_params, std::int64_t{3} * 4096 * 14336);
        QCOMPARE(x.moe_mlp_per_layer, 8 * x.expert_params + 4096 * 8);
        QCOMPARE(x.moe_mlp_active_per_layer, 2 * x.expert_params + 4096 * 8);

        // DeepSeek-V3: MLA with its two norms; 3 dense layers; 256 routed + 1 shared; router bias.
        const ModelSpec& ds = *catalog::find_model("deepseek-v3");
        const ParamBreakdown d = count_params(ds);
        QCOMPARE(d.attention_per_layer, std::int64_t{7168} * 1536 + 1536 + std::int64_t{1536} * 128 * 192 +
                                            std::int64_t{7168} * 576 + 512 + std::int64_t{512} * 128 * 256 +
                                            std::int64_t{128} * 128 * 7168);
        QCOMPARE(d.expert_params, std::int64_t{3} * 7168 * 2048);
        QCOMPARE(d.moe_mlp_per_layer, 257 * d.expert_params + std::int64_t{7168} * 256 + 256);
        QCOMPARE(d.moe_mlp_active_per_layer, 9 * d.expert_params + std::int64_t{7168} * 256 + 256);
        QCOMPARE(d.dense_mlp_per_layer, std::int64_t{3} * 7168 * 18432);
        QCOMPARE(ds.moe_layer_count(), 58);
        QVERIFY(!ds.is_moe_layer(0) && !ds.is_moe_layer(2) && ds.is_moe_layer(3) && ds.is_moe_layer(60));
        QVERIFY(!ds.is_moe_layer(61) && !ds.is_moe_layer(-1));
        QCOMPARE(ds.mtp_layers, 1);
    }

    void moeLayerPattern() {
        json j = json::parse(R"({"family": "mixtral", "layers": 8, "hidden": 512, "heads": 8, "vocab": 1000,
                                 "experts": 4, "top_k": 1, "dense_layers": [0], "moe_layer_freq": 2})");
        const ModelSpec m = model_from_json(j);
        QCOMPARE(m.moe_layer_count(), 3);   // 2, 4, 6
        QVERIFY(!m.is_moe_layer(0) && !m.is_moe_layer(1) && m.is_moe_layer(2) && !m.is_moe_layer(3) &&
                m.is_moe_layer(6));
        const ParamBreakdown p = count_params(m);
        QCOMPARE(p.total, p.embedding + 8 * (p.attention_per_layer + p.norms_per_layer) + 5 * p.dense_mlp_per_layer +
                              3 * p.moe_mlp_per_layer + p.final_norm + p.lm_head);
        QCOMPARE(m.expert_ffn_hidden, m.ffn_hidden);   // defaults to the dense size
    }

    // Nemotron-H 8B by hand from Megatron's MambaMixer (mamba_mixer.py, core_v0.16.0): h 4096,
    // nheads 128, headdim 64 (d_inner 8192), ngroups 8, d_state 128.
    //   in_proj  4096 * (2*8192 + 2*8*128 + 128) = 4096 * 18560 = 76,021,760
    //   conv1d   (8192 + 2*8*128) * (4 + 1)      = 10240 * 5    =     51,200
    //   A_log, D, dt_bias 3 * 128 = 384; gated RMSNorm 8192; out_proj 8192 * 4096 = 33,554,432
    //   mixer = 109,635,968; with the layer's RMSNorm pre-norm (4096): 109,640,064.
    // Totals: 24 Mamba, 4 attention (4096*4096*2 + 2*4096*1024 = 41,943,040), 24 squared-ReLU MLPs
    // (2 * 4096 * 21504 = 176,160,768), 52 pre-norms, embedding + untied head 2 * 131072 * 4096,
    // final norm 4096: 8,100,852,736.
    void hybridBreakdown() {
        const ModelSpec* m = catalog::find_model("nemotron-h-8b");
        QVERIFY(m && m->is_hybrid());
        QCOMPARE(m->hybrid_layer_count('M'), 24);
        QCOMPARE(m->hybrid_layer_count('*'), 4);
        QCOMPARE(m->hybrid_layer_count('-'), 24);
        QCOMPARE(m->layer_kind(0), 'M');
        QCOMPARE(m->layer_kind(7), '*');
        QVERIFY(!m->gated_mlp());
        const ParamBreakdown p = count_params(*m);
        QCOMPARE(p.mamba_per_layer, std::int64_t{109635968});
        QCOMPARE(p.mamba_per_layer + p.norms_per_layer, std::int64_t{109640064});
        QCOMPARE(p.attention_per_layer, std::int64_t{41943040});
        QCOMPARE(p.dense_mlp_per_layer, std::int64_t{176160768});
        QCOMPARE(p.total, std::int64_t{8100852736});
        QCOMPARE(p.active, p.total);
    }

    void hybridRoundTripAndDefaults() {
        // Megatron's defaults (TransformerConfig, core_v0.16.0) fill the Mamba sizes; nheads = 2h / headdim.
        json j = json::parse(kInlineGpt3);
        j["layers"] = 4;
        j["hybrid_override_pattern"] = "M*-E";
        j["experts"] = 8;
        j["top_k"] = 2;
        j["activation"] = "relu2";
        const ModelSpec m = model_from_json(j, "/model");
        QCOMPARE(m.mamba_state_dim, 128);
        QCOMPARE(m.mamba_head_dim, 64);
        QCOMPARE(m.mamba_num_groups, 8);
        QCOMPARE(m.mamba_num_heads, 2 * 12288 / 64);
        QVERIFY(m.is_moe_layer(3) && !m.is_moe_layer(0) && !m.is_moe_layer(2));
        QCOMPARE(m.moe_layer_count(), 1);
        const json saved = to_json(m);
        QCOMPARE(qs(saved["hybrid_override_pattern"].get<std::string>()), QString("M*-E"));
        QCOMPARE(qs(saved["activation"].get<std::string>()), QString("relu2"));
        QVERIFY(model_from_json(saved, "/model") == m);
        // MoE layers count once (one E layer), every layer its own pre-norm.
        const ParamBreakdown p = count_params(m);
        QCOMPARE(p.total, p.embedding + p.lm_head + p.final_norm + 4 * p.norms_per_layer + p.mamba_per_layer +
                              p.attention_per_layer + p.dense_mlp_per_layer + p.moe_mlp_per_layer);
    }

    void hybridErrors_data() {
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        json j = json::parse(kInlineGpt3);
        j["layers"] = 4;
        j["hybrid_override_pattern"] = "M*-";
        QTest::newRow("length") << qs(j.dump())
                                << "/model/hybrid_override_pattern: expected one character per layer (layers is 4), "
                                   "got 3 characters";
        j["hybrid_override_pattern"] = "M*-G";
        QTest::newRow("char") << qs(j.dump())
                              << "/model/hybrid_override_pattern: character 3 is 'G'; expected one of M (Mamba), * "
                                 "(attention), - (MLP), E (MoE)";
        j["hybrid_override_pattern"] = "M*-E";
        QTest::newRow("E without experts")
            << qs(j.dump())
            << "/model/experts: required field is missing (expected a positive integer: the hybrid_override_pattern "
               "has MoE layers 'E')";
        j["hybrid_override_pattern"] = "M*--";
        j["mamba_num_groups"] = 5;
        QTest::newRow("groups") << qs(j.dump())
                                << "/model/mamba_num_groups: expected a divisor of mamba_num_heads (384), got 5";
        j.erase("mamba_num_groups");
        j["mamba_state_dim"] = 0;
        QTest::newRow("state dim") << qs(j.dump()) << "/model/mamba_state_dim: expected a positive integer, got 0";
    }
    void hybridErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(error_of([&] { (void)model_from_json(json::parse(text.toStdString()), "/model"); }), message);
    }

    void inlineSpec() {
        const ModelSpec m = model_from_json(json::parse(kInlineGpt3), "/model");
        QVERIFY(m.id.empty());
        QCOMPARE(m.family, std::string("gpt2"));
        QCOMPARE(m.layers, 96);
        QCOMPARE(m.ffn_hidden, 49152);
        QCOMPARE(m.head_size(), 128);
        // gpt2 family defaults: LayerNorm, learned positions, biases.
        QCOMPARE(m.position, std::string("learned"));
        QCOMPARE(m.norm, std::string("layernorm"));
        QVERIFY(m.attn_bias && m.mlp_bias && m.tied_embeddings);
        const ParamBreakdown p = count_params(m);
        QVERIFY2(std::abs(static_cast<double>(p.total) - 175e9) <= 0.02 * 175e9, qPrintable(QString::number(p.total)));
        QCOMPARE(p.total, std::int64_t{51200} * 12288 + std::int64_t{2048} * 12288 +
                              96 * (std::int64_t{12} * 12288 * 12288 + 13 * 12288) + 2 * 12288);
    }

    void inlineDefaults() {
        // kv_heads defaults to heads; ffn_hidden to 4 * hidden for GELU and to LLaMA's rule for SwiGLU.
        const ModelSpec g = model_from_json(json::parse(R"({"family": "gpt_neox", "layers": 2, "hidden": 1024,
                                                            "heads": 16, "vocab": 5000})"));
        QCOMPARE(g.kv_heads, 16);
        QCOMPARE(g.ffn_hidden, 4096);
        QCOMPARE(g.activation, std::string("gelu"));
        const ModelSpec l = model_from_json(json::parse(R"({"family": "llama", "layers": 2, "hidden": 4096,
                                                            "heads": 32, "vocab": 32000})"));
        QCOMPARE(l.ffn_hidden, 11008);
        QCOMPARE(l.activation, std::string("swiglu"));
        QCOMPARE(l.norm, std::string("rmsnorm"));
        QVERIFY(!l.tied_embeddings);
        const ModelSpec t = model_from_json(json::parse(R"({"family": "t5", "layers": 12, "hidden": 512,
                                                            "heads": 8, "vocab": 32128})"));
        QCOMPARE(t.encoder_layers, 6);
        QCOMPARE(t.decoder_layers, 6);
        const ModelSpec b = model_from_json(json::parse(R"({"family": "bert", "layers": 12, "hidden": 768,
                                                            "heads": 12, "vocab": 30522, "max_seq": 512})"));
        QCOMPARE(b.encoder_layers, 12);
        QCOMPARE(b.type_vocab, 2);
        QCOMPARE(count_params(b).total, std::int64_t{109482240});   // bert-base-uncased BertModel
    }

    void roundTripEdgeCases() {
        // MLA heads need not divide hidden: their sizes come from qk_*_head_dim / v_head_dim.
        json mla = to_json(*catalog::find_model("deepseek-v3"));
        mla["heads"] = 96;
        mla["kv_heads"] = 96;
        QCOMPARE(model_from_json(mla).heads, 96);
        // A BERT without token types keeps 0 (not the family default 2) through to_json.
        json b = json::parse(R"({"family": "bert", "layers": 2, "hidden": 64, "heads": 4, "vocab": 100,
                                 "max_seq": 32, "type_vocab": 0})");
        const ModelSpec bert = model_from_json(b);
        QCOMPARE(bert.type_vocab, 0);
        QCOMPARE(model_from_json(to_json(bert)).type_vocab, 0);
    }

    void presetOverride() {
        // What the project loader does for {"preset": "deepseek-v3", "layers": 8}.
        json merged = to_json(*catalog::find_model("deepseek-v3"));
        merged["layers"] = 8;
        const ModelSpec m = model_from_json(merged, "/model");
        QCOMPARE(m.layers, 8);
        QCOMPARE(m.moe_layer_count(), 5);
        QCOMPARE(m.id, std::string("deepseek-v3"));
        merged["layers"] = 2;
        QCOMPARE(error_of([&] { (void)model_from_json(merged, "/model"); }),
                 QString("/model/dense_layers/2: expected a layer index in [0, 2), got 2"));
    }

    void unknownKeysKept() {
        json j = json::parse(kInlineGpt3);
        j["my_note"] = "kept";
        j["rope_theta"] = 10000.0;
        const ModelSpec m = model_from_json(j);
        QVERIFY(m.extra->at("my_note") == json("kept"));
        QCOMPARE(m.extra->size(), std::size_t{2});
        const json out = to_json(m);
        QVERIFY(out.at("my_note") == json("kept"));
        QVERIFY(out.at("rope_theta") == json(10000.0));
        QVERIFY(catalog::find_model("llama3.1-8b")->extra->at("rope_theta") == json(500000.0));
    }

    void catalogRoundTrip() {
        for (const ModelSpec& m : catalog::models()) {
            const json j = to_json(m);
            const ModelSpec back = model_from_json(j, "/model");
            QCOMPARE(qs(to_json(back).dump()), qs(j.dump()));
            QCOMPARE(count_params(back).total, count_params(m).total);
            QCOMPARE(count_params(back).active, count_params(m).active);
        }
    }

    void modelErrors_data() {
        const json gone(json::value_t::discarded);
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("heads string") << qs(spec_with("heads", "two"))
                                      << R"(/model/heads: expected a positive integer, got "two")";
        QTest::newRow("hidden missing") << qs(spec_with("hidden", gone))
                                        << "/model/hidden: required field is missing (expected a positive integer)";
        QTest::newRow("family missing") << qs(spec_with("family", gone))
                                        << "/model/family: required field is missing (expected a string)";
        QTest::newRow("family number") << qs(spec_with("family", 2)) << "/model/family: expected a string, got 2";
        QTest::newRow("vocab zero") << qs(spec_with("vocab", 0)) << "/model/vocab: expected a positive integer, got 0";
        QTest::newRow("layers float") << qs(spec_with("layers", 9.5))
                                      << "/model/layers: expected a positive integer, got 9.5";
        QTest::newRow("activation")
            << qs(spec_with("activation", "swish"))
            << R"(/model/activation: expected one of "gelu", "swiglu", "relu", "geglu", "relu2", got "swish")";
        QTest::newRow("norm") << qs(spec_with("norm", "batchnorm"))
                              << R"(/model/norm: expected one of "layernorm", "rmsnorm", got "batchnorm")";
        QTest::newRow("kv divisor") << qs(spec_with("kv_heads", 5))
                                    << "/model/kv_heads: expected a divisor of heads (96), got 5";
        QTest::newRow("heads divisor")
            << qs(spec_with("hidden", 1000))
            << "/model/heads: expected a divisor of hidden (1000) or an explicit head_dim, got 96";
        QTest::newRow("tied") << qs(spec_with("tied_embeddings", "yes"))
                              << R"(/model/tied_embeddings: expected true or false, got "yes")";
        QTest::newRow("learned no max_seq") << qs(spec_with("max_seq", gone))
                                            << "/model/max_seq: required field is missing (expected a positive "
                                               "integer: learned position embeddings need it)";
        QTest::newRow("top_k missing") << qs(spec_with("experts", 8))
                                       << "/model/top_k: required field is missing (expected a positive integer)";
        {
            json j = json::parse(kInlineGpt3);
            j["experts"] = 2;
            j["top_k"] = 3;
            QTest::newRow("top_k too big") << qs(j.dump()) << "/model/top_k: expected at most experts (2), got 3";
            j["top_k"] = 1;
            j["dense_layers"] = {0, 99};
            QTest::newRow("dense layer range")
                << qs(j.dump()) << "/model/dense_layers/1: expected a layer index in [0, 96), got 99";
        }
        {
            json j = json::parse(kInlineGpt3);
            j["encoder_layers"] = 40;
            j["decoder_layers"] = 40;
            QTest::newRow("enc+dec") << qs(j.dump())
                                     << "/model/layers: expected encoder_layers + decoder_layers (80), got 96";
            j = json::parse(kInlineGpt3);
            j["kv_lora_rank"] = 512;
            QTest::newRow("mla") << qs(j.dump())
                                 << "/model/qk_nope_head_dim: required field is missing (expected a positive integer)";
        }
        QTest::newRow("not an object") << "[1, 2]"
                                       << "/model: expected an object, got an array";
    }
    void modelErrors() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        QCOMPARE(error_of([&] { (void)model_from_json(json::parse(text.toStdString()), "/model"); }), message);
    }

    void modelErrorPointer() {
        try {
            (void)model_from_json(json::parse(spec_with("heads", "two")), "/model");
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(qs(e.pointer()), QString("/model/heads"));
            QCOMPARE(qs(e.message()), QString(R"(expected a positive integer, got "two")"));
        }
        // Without a pointer prefix, errors name the key at the root.
        QCOMPARE(error_of([] { (void)model_from_json(json::parse(spec_with("heads", -1))); }),
                 QString("/heads: expected a positive integer, got -1"));
    }

    void modelCatalogErrors() {
        const json good = json::parse(kInlineGpt3);
        json a = good;
        a["id"] = "a";
        json b = a;
        QCOMPARE(error_of([&] {
                     (void)catalog::parse_model_catalog(json{{"models", json::array({a, b})}}.dump());
                 }),
                 QString(R"(/models/1/id: duplicate id "a")"));
        b["id"] = "b";
        b["heads"] = "x";
        QCOMPARE(error_of([&] {
                     (void)catalog::parse_model_catalog(json{{"models", json::array({a, b})}}.dump());
                 }),
                 QString(R"(/models/1/heads: expected a positive integer, got "x")"));
        QCOMPARE(error_of([&] {
                     (void)catalog::parse_model_catalog(json{{"models", json::array({good})}}.dump());
                 }),
                 QString("/models/0/id: required field is missing (expected a string)"));
        QCOMPARE(catalog::parse_model_catalog(json{{"models", json::array({a})}}.dump()).size(), std::size_t{1});
    }

    void overflowIsAnError() {
        json j = json::parse(R"({"family": "llama", "layers": 2000000, "hidden": 2000000000, "heads": 1,
                                 "ffn_hidden": 2000000000, "vocab": 2000000000})");
        const ModelSpec m = model_from_json(j);
        QCOMPARE(error_of([&] { (void)count_params(m); }),
                 QString("the model is too large: its parameter count overflows 64 bits"));
    }
};

QTEST_APPLESS_MAIN(TestCatalog)
#include "tst_catalog.moc"
