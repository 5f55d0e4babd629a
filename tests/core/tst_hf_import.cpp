// Hugging Face config.json import: one real config per family (tests/data/hf/),
// the imported fields and parameter counts, and malformed inputs with exact messages.
#include "catalog/catalog.h"
#include "catalog/hf_import.h"
#include "util/input_error.h"

#include <QtTest>

#include <cmath>
#include <fstream>
#include <functional>
#include <sstream>

using namespace paraplan;
using nlohmann::json;

namespace {

std::string read_text(const std::string& name) {
    const std::string path = std::string(PARAPLAN_TEST_DATA) + "/hf/" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot open " + path);
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

json read_json(const std::string& name) { return json::parse(read_text(name)); }

ModelSpec import_file(const std::string& name) { return import_hf_config(std::string_view(read_text(name))); }

QString error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const InputError& e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("<no error>");
}

QString qs(const std::string& s) { return QString::fromStdString(s); }

// A data file with one key replaced, or removed when value is discarded.
QString patched(const std::string& file, const std::string& key, const json& value) {
    json j = read_json(file);
    if (value.is_discarded()) j.erase(key);
    else j[key] = value;
    return qs(j.dump(2));
}

const char* kFamilies = "llama, mistral, mixtral, qwen2, qwen2_moe, gpt2, gpt_neox, bert, t5, deepseek_v3";

bool near(double got, double want, double tol = 0.02) { return std::abs(got - want) <= tol * want; }

}   // namespace

class TestHfImport : public QObject {
    Q_OBJECT
private slots:
    // Per family: file, model_type, shape, and the published size (active for MoE).
    void families_data() {
        QTest::addColumn<QString>("file");
        QTest::addColumn<QString>("family");
        QTest::addColumn<int>("layers");
        QTest::addColumn<int>("hidden");
        QTest::addColumn<int>("heads");
        QTest::addColumn<int>("kv_heads");
        QTest::addColumn<int>("ffn");
        QTest::addColumn<int>("vocab");
        QTest::addColumn<int>("max_seq");
        QTest::addColumn<QString>("activation");
        QTest::addColumn<bool>("tied");
        QTest::addColumn<double>("total");
        QTest::addColumn<double>("active");
        QTest::addColumn<QString>("catalog_id");   // same model in the built-in catalog, or empty
        QTest::newRow("llama") << "llama.json"
                               << "llama" << 32 << 4096 << 32 << 32 << 11008 << 32000 << 4096 << "swiglu" << false
                               << 6.74e9 << 0.0 << "llama2-7b";
        QTest::newRow("mistral") << "mistral.json"
                                 << "mistral" << 32 << 4096 << 32 << 8 << 14336 << 32000 << 32768 << "swiglu" << false
                                 << 7.24e9 << 0.0 << "mistral-7b";
        QTest::newRow("mixtral") << "mixtral.json"
                                 << "mixtral" << 32 << 4096 << 32 << 8 << 14336 << 32000 << 32768 << "swiglu" << false
                                 << 46.7e9 << 12.9e9 << "mixtral-8x7b";
        QTest::newRow("qwen2") << "qwen2.json"
                               << "qwen2" << 28 << 3584 << 28 << 4 << 18944 << 152064 << 131072 << "swiglu" << false
                               << 7.61e9 << 0.0 << "qwen2.5-7b";
        QTest::newRow("qwen2_moe") << "qwen2_moe.json"
                                   << "qwen2_moe" << 24 << 2048 << 16 << 16 << 5632 << 151936 << 8192 << "swiglu"
                                   << false << 14.3e9 << 2.7e9 << "qwen1.5-moe-a2.7b";
        QTest::newRow("gpt2") << "gpt2.json"
                              << "gpt2" << 12 << 768 << 12 << 12 << 3072 << 50257 << 1024 << "gelu" << true << 124e6
                              << 0.0 << "gpt2";
        QTest::newRow("gpt_neox") << "gpt_neox.json"
                                  << "gpt_neox" << 44 << 6144 << 64 << 64 << 24576 << 50432 << 2048 << "gelu" << false
                                  << 20.55e9 << 0.0 << "gpt-neox-20b";
        QTest::newRow("bert") << "bert.json"
                              << "bert" << 12 << 768 << 12 << 12 << 3072 << 30522 << 512 << "gelu" << true << 110e6
                              << 0.0 << "";
        QTest::newRow("t5 (flan-t5-large)")
            << "t5.json"
            << "t5" << 48 << 1024 << 16 << 16 << 2816 << 32128 << 512 << "geglu" << false << 783e6 << 0.0 << "";
        QTest::newRow("t5-11b") << "t5-11b.json"
                                << "t5" << 48 << 1024 << 128 << 128 << 65536 << 32128 << 512 << "relu" << true << 11.3e9
                                << 0.0 << "t5-11b";
        QTest::newRow("deepseek_v3") << "deepseek_v3.json"
                                     << "deepseek_v3" << 61 << 7168 << 128 << 128 << 18432 << 129280 << 163840
                                     << "swiglu" << false << 671e9 << 37e9 << "deepseek-v3";
    }
    void families() {
        QFETCH(QString, file);
        QFETCH(QString, family);
        QFETCH(int, layers);
        QFETCH(int, hidden);
        QFETCH(int, heads);
        QFETCH(int, kv_heads);
        QFETCH(int, ffn);
        QFETCH(int, vocab);
        QFETCH(int, max_seq);
        QFETCH(QString, activation);
        QFETCH(bool, tied);
        QFETCH(double, total);
        QFETCH(double, active);
        QFETCH(QString, catalog_id);

        const ModelSpec m = import_file(file.toStdString());
        QCOMPARE(qs(m.family), family);
        QCOMPARE(m.layers, layers);
        QCOMPARE(m.hidden, hidden);
        QCOMPARE(m.heads, heads);
        QCOMPARE(m.kv_heads, kv_heads);
        QCOMPARE(m.ffn_hidden, ffn);
        QCOMPARE(m.vocab, vocab);
        QCOMPARE(m.max_seq, max_seq);
        QCOMPARE(qs(m.activation), activation);
        QCOMPARE(m.tied_embeddings, tied);
        QVERIFY(m.id.empty());
        QVERIFY(!m.name.empty());
        QVERIFY(qs(m.source).startsWith("Hugging Face config.json"));

        const ParamBreakdown p = count_params(m);
        QVERIFY2(near(static_cast<double>(p.total), total),
                 qPrintable(QString("total %1 vs published %2").arg(p.total).arg(total, 0, 'g', 6)));
        if (active > 0) {
            QVERIFY(m.is_moe());
            QVERIFY2(near(static_cast<double>(p.active), active),
                     qPrintable(QString("active %1 vs published %2").arg(p.active).arg(active, 0, 'g', 6)));
        } else {
            QVERIFY(!m.is_moe());
            QCOMPARE(p.active, p.total);
        }

        // The imported spec counts the same as the catalog entry and survives a to_json round trip.
        if (!catalog_id.isEmpty()) {
            const ModelSpec* c = catalog::find_model(catalog_id.toStdString());
            QVERIFY(c);
            QCOMPARE(p.total, count_params(*c).total);
            QCOMPARE(p.active, count_params(*c).active);
        }
        const ModelSpec back = model_from_json(to_json(m), "/model");
        QCOMPARE(count_params(back).total, p.total);
        QCOMPARE(qs(to_json(back).dump()), qs(to_json(m).dump()));
    }

    void llamaDetails() {
        const ModelSpec m = import_file("llama.json");
        QCOMPARE(qs(m.name), QString("meta-llama/Llama-2-7b-hf"));
        QCOMPARE(qs(m.source), QString("Hugging Face config.json (meta-llama/Llama-2-7b-hf)"));
        QCOMPARE(qs(m.norm), QString("rmsnorm"));
        QCOMPARE(qs(m.position), QString("rope"));
        QCOMPARE(m.head_size(), 128);
        QCOMPARE(m.head_dim, 0);
        QVERIFY(!m.attn_bias && !m.mlp_bias);
        QVERIFY(m.extra.contains("torch_dtype"));
        QCOMPARE(count_params(m).total, std::int64_t{6738415616});
    }

    void qwen2Details() {
        const ModelSpec m = import_file("qwen2.json");
        QVERIFY(m.attn_bias && m.qkv_bias_only);
        QVERIFY(m.extra.contains("rope_theta"));
        QVERIFY(!m.extra.contains("sliding_window"));   // use_sliding_window is false
        QCOMPARE(qs(m.name), QString("Qwen2ForCausalLM"));
        QVERIFY(import_file("mistral.json").extra->at("sliding_window") == json(4096));
    }

    void mixtralDetails() {
        const ModelSpec m = import_file("mixtral.json");
        QCOMPARE(m.experts, 8);
        QCOMPARE(m.top_k, 2);
        QCOMPARE(m.expert_ffn_hidden, 14336);
        QCOMPARE(m.shared_experts, 0);
        QCOMPARE(m.moe_layer_count(), 32);
        QCOMPARE(count_params(m).total, std::int64_t{46702792704});
    }

    void qwen2MoeDetails() {
        ModelSpec m = import_file("qwen2_moe.json");
        QCOMPARE(m.experts, 60);
        QCOMPARE(m.top_k, 4);
        QCOMPARE(m.expert_ffn_hidden, 1408);
        QCOMPARE(m.shared_experts, 1);
        QCOMPARE(m.shared_expert_ffn_hidden, 5632);
        QVERIFY(m.dense_layers.empty());
        QCOMPARE(m.moe_layer_count(), 24);
        QVERIFY(m.attn_bias && m.qkv_bias_only);
        const ParamBreakdown p = count_params(m);
        // 60 experts + shared expert + router + shared_expert_gate.
        QCOMPARE(p.moe_mlp_per_layer,
                 60 * std::int64_t{3} * 2048 * 1408 + std::int64_t{3} * 2048 * 5632 + 2048 * 60 + 2048);
        QCOMPARE(p.total, std::int64_t{14315784192});

        // decoder_sparse_step 2: layers 1, 3, 5... are MoE ((i + 1) % 2 == 0); mlp_only_layers adds dense ones.
        json j = read_json("qwen2_moe.json");
        j["decoder_sparse_step"] = 2;
        j["mlp_only_layers"] = {1, 23};
        m = import_hf_config(j);
        QCOMPARE(m.moe_layer_count(), 10);
        QVERIFY(!m.is_moe_layer(0) && !m.is_moe_layer(1) && m.is_moe_layer(3) && !m.is_moe_layer(4) &&
                !m.is_moe_layer(23));
        QCOMPARE(static_cast<int>(m.dense_layers.size()), 14);
    }

    void gpt2Details() {
        const ModelSpec m = import_file("gpt2.json");
        QCOMPARE(qs(m.position), QString("learned"));
        QCOMPARE(qs(m.norm), QString("layernorm"));
        QVERIFY(m.attn_bias && m.mlp_bias);
        QCOMPARE(count_params(m).total, std::int64_t{124439808});
        // n_inner: null means 4 * n_embd; a number is used as is.
        json j = read_json("gpt2.json");
        j["n_inner"] = nullptr;
        QCOMPARE(import_hf_config(j).ffn_hidden, 3072);
        j["n_inner"] = 2048;
        QCOMPARE(import_hf_config(j).ffn_hidden, 2048);
        j.erase("tie_word_embeddings");
        QVERIFY(import_hf_config(j).tied_embeddings);   // GPT2Config default
    }

    void gptNeoxDetails() {
        const ModelSpec m = import_file("gpt_neox.json");
        QVERIFY(m.attn_bias && m.mlp_bias);
        QCOMPARE(qs(m.norm), QString("layernorm"));
        QVERIFY(m.extra->at("rotary_pct") == json(0.25));
        QVERIFY(m.extra->at("use_parallel_residual") == json(true));
        QCOMPARE(count_params(m).total, std::int64_t{20554567680});
    }

    void bertDetails() {
        const ModelSpec m = import_file("bert.json");
        QCOMPARE(m.encoder_layers, 12);
        QCOMPARE(m.decoder_layers, 0);
        QCOMPARE(m.type_vocab, 2);
        QCOMPARE(qs(m.position), QString("learned"));
        const ParamBreakdown p = count_params(m);
        QCOMPARE(p.total, std::int64_t{109482240});         // bert-base-uncased BertModel
        QCOMPARE(p.other, std::int64_t{768} * 768 + 768);   // pooler
    }

    void t5Details() {
        const ModelSpec m = import_file("t5.json");   // flan-t5-large: gated-gelu, untied, d_kv * heads == d_model
        QCOMPARE(m.encoder_layers, 24);
        QCOMPARE(m.decoder_layers, 24);
        QCOMPARE(m.head_dim, 0);
        QCOMPARE(qs(m.position), QString("relative"));
        QCOMPARE(qs(m.norm), QString("rmsnorm"));
        QCOMPARE(m.relative_buckets, 32);
        QCOMPARE(count_params(m).total, std::int64_t{783150080});
        const ModelSpec big = import_file("t5-11b.json");   // no feed_forward_proj: relu; d_kv 128 != 1024 / 128
        QCOMPARE(big.head_dim, 128);
        QCOMPARE(big.decoder_layers, 24);
        QCOMPARE(count_params(big).total, std::int64_t{11307321344});
    }

    void deepseekDetails() {
        const ModelSpec m = import_file("deepseek_v3.json");
        QCOMPARE(m.experts, 256);
        QCOMPARE(m.top_k, 8);
        QCOMPARE(m.expert_ffn_hidden, 2048);
        QCOMPARE(m.shared_experts, 1);
        QCOMPARE(m.dense_layers, (std::vector<int>{0, 1, 2}));
        QCOMPARE(m.moe_layer_freq, 1);
        QCOMPARE(m.moe_layer_count(), 58);
        QCOMPARE(m.q_lora_rank, 1536);
        QCOMPARE(m.kv_lora_rank, 512);
        QCOMPARE(m.qk_nope_head_dim, 128);
        QCOMPARE(m.qk_rope_head_dim, 64);
        QCOMPARE(m.v_head_dim, 128);
        QCOMPARE(m.mtp_layers, 1);
        QVERIFY(m.extra.contains("rope_scaling"));
        QCOMPARE(count_params(m).total, std::int64_t{671026419200});
        // DeepSeek-V2-Lite style: q_lora_rank null means a plain q_proj.
        json j = read_json("deepseek_v3.json");
        j["q_lora_rank"] = nullptr;
        const ModelSpec lite = import_hf_config(j);
        QCOMPARE(lite.q_lora_rank, 0);
        QCOMPARE(count_params(lite).attention_per_layer, std::int64_t{7168} * 128 * 192 + std::int64_t{7168} * 576 +
                                                             512 + std::int64_t{512} * 128 * 256 +
                                                             std::int64_t{128} * 128 * 7168);
    }

    void malformed_data() {
        const json gone(json::value_t::discarded);
        QTest::addColumn<QString>("text");
        QTest::addColumn<QString>("message");
        QTest::newRow("missing hidden_size") << patched("llama.json", "hidden_size", gone)
                                             << "/hidden_size: required field is missing (expected a positive integer)";
        QTest::newRow("heads as text") << patched("llama.json", "num_attention_heads", "two")
                                       << R"(/num_attention_heads: expected a positive integer, got "two")";
        QTest::newRow("unknown model_type")
            << patched("llama.json", "model_type", "falcon")
            << QString(R"(/model_type: unsupported model_type "falcon" (supported: %1))").arg(kFamilies);
        QTest::newRow("missing model_type")
            << patched("llama.json", "model_type", gone)
            << QString("/model_type: required field is missing (expected one of: %1)").arg(kFamilies);
        QTest::newRow("model_type number")
            << patched("llama.json", "model_type", 42)
            << QString("/model_type: expected a string (one of: %1), got 42").arg(kFamilies);
        QTest::newRow("syntax error") << "{\n  \"model_type\": \"llama\",\n  \"hidden_size\": 4096,,\n}"
                                      << "line 3, column 23: JSON syntax error while parsing object key - unexpected "
                                         "','; expected string literal";
        QTest::newRow("empty text") << ""
                                    << "line 1, column 1: JSON syntax error while parsing value - unexpected end of "
                                       "input; expected '[', '{', or a literal";
        QTest::newRow("not an object") << "[1, 2]"
                                       << "/: expected an object, got an array";
        QTest::newRow("tie_word_embeddings text") << patched("llama.json", "tie_word_embeddings", "no")
                                                  << R"(/tie_word_embeddings: expected true or false, got "no")";
        QTest::newRow("hidden_act number")
            << patched("llama.json", "hidden_act", 1) << "/hidden_act: expected a string, got 1";
        QTest::newRow("intermediate_size float") << patched("llama.json", "intermediate_size", 11008.5)
                                                 << "/intermediate_size: expected a positive integer, got 11008.5";
        QTest::newRow("kv heads not a divisor")
            << patched("mistral.json", "num_key_value_heads", 5)
            << "/num_key_value_heads: expected a divisor of num_attention_heads (32), got 5";
        QTest::newRow("heads not a divisor")
            << patched("llama.json", "num_attention_heads", 33)
            << "/num_attention_heads: expected a divisor of hidden_size (4096), got 33";
        QTest::newRow("too many layers") << patched("llama.json", "num_hidden_layers", 1000000)
                                         << "/num_hidden_layers: expected a positive integer up to 100000, got 1000000";
        QTest::newRow("mixtral without experts")
            << patched("mixtral.json", "num_local_experts", gone)
            << "/num_local_experts: required field is missing (expected a positive integer)";
        QTest::newRow("top_k above experts")
            << patched("mixtral.json", "num_experts_per_tok", 9)
            << "/num_experts_per_tok: expected at most the number of experts (8), got 9";
        QTest::newRow("qwen2_moe layer range") << patched("qwen2_moe.json", "mlp_only_layers", json::array({30}))
                                               << "/mlp_only_layers/0: expected a layer index in [0, 24), got 30";
        QTest::newRow("qwen2_moe shared size")
            << patched("qwen2_moe.json", "moe_intermediate_size", gone)
            << "/moe_intermediate_size: required field is missing (expected a positive integer)";
        QTest::newRow("deepseek dense layers")
            << patched("deepseek_v3.json", "first_k_dense_replace", 62)
            << "/first_k_dense_replace: expected at most num_hidden_layers (61), got 62";
        QTest::newRow("deepseek kv_lora_rank")
            << patched("deepseek_v3.json", "kv_lora_rank", gone)
            << "/kv_lora_rank: required field is missing (expected a positive integer)";
        QTest::newRow("gpt2 negative n_embd")
            << patched("gpt2.json", "n_embd", -768) << "/n_embd: expected a positive integer, got -768";
        QTest::newRow("gpt2 n_inner text")
            << patched("gpt2.json", "n_inner", "4x") << R"(/n_inner: expected a positive integer, got "4x")";
        QTest::newRow("t5 d_kv zero") << patched("t5.json", "d_kv", 0) << "/d_kv: expected a positive integer, got 0";
        QTest::newRow("t5 feed_forward_proj") << patched("t5.json", "feed_forward_proj", json::array())
                                              << "/feed_forward_proj: expected a string, got an array";
        QTest::newRow("bert vocab") << patched("bert.json", "vocab_size", json::object())
                                    << "/vocab_size: expected a positive integer, got an object";
        QTest::newRow("neox rotary_pct") << patched("gpt_neox.json", "rotary_pct", "quarter")
                                         << R"(/rotary_pct: expected a positive number, got "quarter")";
    }
    void malformed() {
        QFETCH(QString, text);
        QFETCH(QString, message);
        const std::string t = text.toStdString();
        QCOMPARE(error_of([&] { (void)import_hf_config(std::string_view(t)); }), message);
    }

    void syntaxErrorPosition() {
        try {
            (void)import_hf_config(std::string_view("{\n  \"model_type\": 'llama'\n}"));
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(e.line(), 2);
            QCOMPARE(e.column(), 17);
            QVERIFY(e.pointer().empty());
        }
        try {
            (void)import_hf_config(std::string_view(patched("llama.json", "hidden_size", "big").toStdString()));
            QFAIL("no error");
        } catch (const InputError& e) {
            QCOMPARE(qs(e.pointer()), QString("/hidden_size"));
            QCOMPARE(e.line(), 0);
        }
    }

    void hugeValuesDoNotOverflow() {
        json j = read_json("llama.json");
        j["hidden_size"] = 2147483647;
        j["num_attention_heads"] = 1;
        j["num_key_value_heads"] = 1;
        j["intermediate_size"] = 2147483647;
        j["vocab_size"] = 2147483647;
        const ModelSpec m = import_hf_config(j);
        QCOMPARE(error_of([&] { (void)count_params(m); }),
                 QString("the model is too large: its parameter count overflows 64 bits"));
        json g = read_json("gpt2.json");
        g["n_embd"] = 2000000000;
        g["n_head"] = 1;
        QCOMPARE(error_of([&] { (void)import_hf_config(g); }),
                 QString("/n_inner: required field is missing (4 * n_embd, the default, is too large)"));
    }
};

QTEST_APPLESS_MAIN(TestHfImport)
#include "tst_hf_import.moc"
