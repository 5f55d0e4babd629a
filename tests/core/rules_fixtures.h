#pragma once
// Projects and models for the rule tests, built as structs (no catalog needed).
// Model numbers are the published Hugging Face config.json values.
#include "project/project.h"
#include "project_builder.h"
#include "rules/apply_fix.h"
#include "rules/validate.h"

#include <QtTest>

#include <string>
#include <vector>

namespace paraplan::test {

inline ModelSpec llama3_8b() {
    ModelSpec m;
    m.id = "llama3.1-8b";
    m.family = "llama";
    m.layers = 32;
    m.hidden = 4096;
    m.heads = 32;
    m.kv_heads = 8;
    m.ffn_hidden = 14336;
    m.vocab = 128256;
    m.max_seq = 131072;
    m.activation = "swiglu";
    m.norm = "rmsnorm";
    return m;
}

inline ModelSpec gpt2_small() {
    ModelSpec m;
    m.id = "gpt2";
    m.family = "gpt2";
    m.layers = 12;
    m.hidden = 768;
    m.heads = 12;
    m.kv_heads = 12;
    m.ffn_hidden = 3072;
    m.vocab = 50257;
    m.max_seq = 1024;
    m.tied_embeddings = true;
    m.position = "learned";
    return m;
}

inline ModelSpec mixtral_8x7b() {
    ModelSpec m;
    m.id = "mixtral-8x7b";
    m.family = "mixtral";
    m.layers = 32;
    m.hidden = 4096;
    m.heads = 32;
    m.kv_heads = 8;
    m.ffn_hidden = 14336;
    m.vocab = 32000;
    m.experts = 8;
    m.top_k = 2;
    m.expert_ffn_hidden = 14336;
    m.activation = "swiglu";
    return m;
}

// DeepSeek-V3: 61 layers, the first 3 dense (first_k_dense_replace = 3), 256 routed experts.
inline ModelSpec deepseek_v3() {
    ModelSpec m;
    m.id = "deepseek-v3";
    m.family = "deepseek_v3";
    m.layers = 61;
    m.hidden = 7168;
    m.heads = 128;
    m.kv_heads = 128;
    m.ffn_hidden = 18432;
    m.vocab = 129280;
    m.experts = 256;
    m.top_k = 8;
    m.expert_ffn_hidden = 2048;
    m.shared_experts = 1;
    m.dense_layers = {0, 1, 2};
    return m;
}

// The rule tests' starting project as a builder, for the fields a case changes:
// test_project("colossalai", 2, 8, llama3_8b()).tp(2).pp(2).build().
inline ProjectBuilder test_project(const std::string& framework, int nodes, int gpus_per_node, const ModelSpec& model,
                                   const std::string& gpu = "h100-sxm") {
    return ProjectBuilder()
        .name("test")
        .nodes(nodes, gpus_per_node, gpu)
        .model(model)
        .framework(framework)
        .global_batch_size(64)
        .micro_batch_size(1)
        .seq_len(4096)
        .precision(Precision::bf16);
}

inline Project make_project(const std::string& framework, int nodes, int gpus_per_node, const ModelSpec& model,
                            const std::string& gpu = "h100-sxm") {
    return test_project(framework, nodes, gpus_per_node, model, gpu).build();
}

inline const Diagnostic* find_rule(const std::vector<Diagnostic>& ds, const std::string& rule) {
    for (const auto& d : ds)
        if (d.rule == rule) return &d;
    return nullptr;
}

inline std::string rule_list(const std::vector<Diagnostic>& ds) {
    std::string s;
    for (const auto& d : ds) s += std::string(to_string(d.severity)) + ":" + d.rule + " ";
    return s;
}

// One rule case: `bad` must report `rule` with `severity`, its message must
// contain every `numbers` text, its framework_error `framework_text` (if given),
// every fix must clear the rule when applied, and `good` must not report it.
struct RuleCase {
    std::string name;
    Project bad;
    Project good;
    std::string rule;
    Severity severity = Severity::Error;
    std::vector<std::string> numbers;
    std::string framework_text;
    bool needs_fix = true;
};

inline void check_case(const RuleCase& c) {
    const auto ds = validate(c.bad);
    const Diagnostic* d = find_rule(ds, c.rule);
    QVERIFY2(d, (c.name + ": rule " + c.rule + " not reported; got " + rule_list(ds)).c_str());
    QVERIFY2(d->severity == c.severity, (c.name + ": wrong severity " + to_string(d->severity)).c_str());
    for (const auto& n : c.numbers)
        QVERIFY2(d->message.find(n) != std::string::npos,
                 (c.name + ": message lacks '" + n + "': " + d->message).c_str());
    if (!c.framework_text.empty())
        QVERIFY2(d->framework_error.find(c.framework_text) != std::string::npos,
                 (c.name + ": framework_error lacks '" + c.framework_text + "': " + d->framework_error).c_str());
    QVERIFY2(!d->fields.empty(), (c.name + ": no fields").c_str());
    if (c.needs_fix) QVERIFY2(!d->fixes.empty(), (c.name + ": no fix offered").c_str());
    for (const auto& f : d->fixes) {
        QVERIFY2(!f.changes.empty(), (c.name + ": empty fix " + f.label).c_str());
        const Project fixed = with_fix(c.bad, f);
        const auto after = validate(fixed);
        const Diagnostic* still = find_rule(after, c.rule);
        QVERIFY2(!still || still->severity == Severity::Info,
                 (c.name + ": fix '" + f.label + "' leaves " + c.rule + ": " + (still ? still->message : "")).c_str());
    }
    const auto good = validate(c.good);
    QVERIFY2(!find_rule(good, c.rule), (c.name + ": good project still reports " + c.rule).c_str());
}

}   // namespace paraplan::test
