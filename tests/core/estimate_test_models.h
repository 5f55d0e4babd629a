#pragma once
// GPT-style models as the papers define them (Korthikanti et al. Table 3, Narayanan et
// al. Table 1): ffn = 4h, GeLU, LayerNorm, no biases counted in the GEMM terms, tied
// embeddings, vocabulary 51,200, dropout.
#include "catalog/model.h"
#include "estimate/config.h"
#include "project_builder.h"

#include <string>

inline paraplan::ModelSpec paper_gpt(int layers, int hidden, int heads, int vocab = 51200, int seq = 2048) {
    paraplan::ModelSpec m;
    m.name = "paper-gpt";
    m.family = "gpt2";
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kv_heads = heads;
    m.ffn_hidden = 4 * hidden;
    m.vocab = vocab;
    m.max_seq = seq;
    m.activation = "gelu";
    m.tied_embeddings = true;
    m.norm = "layernorm";
    m.position = "learned";
    return m;
}

// A project training `m` at micro-batch 1 over 2,048-token sequences, the setting the estimate
// tests run paper_gpt at; the caller adds the layout (ProjectBuilder setters) and passes the
// world size and hardware to make_config.
inline paraplan::test::ProjectBuilder paper_project(const paraplan::ModelSpec& m, const std::string& framework,
                                                    int global_batch_size) {
    return paraplan::test::ProjectBuilder()
        .model(m)
        .global_batch_size(global_batch_size)
        .micro_batch_size(1)
        .seq_len(2048)
        .framework(framework);
}

inline paraplan::ModelSpec llama3_405b() {
    paraplan::ModelSpec m;
    m.name = "Llama 3.1 405B";
    m.family = "llama";
    m.layers = 126;
    m.hidden = 16384;
    m.heads = 128;
    m.kv_heads = 8;
    m.ffn_hidden = 53248;
    m.vocab = 128256;
    m.max_seq = 131072;
    m.activation = "swiglu";
    m.tied_embeddings = false;
    m.norm = "rmsnorm";
    m.position = "rope";
    return m;
}

// The A100-80GB nodes of the papers' clusters (Selene: 8 GPUs on NVSwitch, 8 x 200 Gb/s
// InfiniBand per node), with the datasheet's dense bf16 peak and HBM bandwidth.
inline paraplan::estimate::Hardware paper_a100(double latency_us = 5) {
    paraplan::estimate::Hardware hw;
    hw.memory_gib = 80;
    hw.peak_tflops = 312;
    hw.hbm_gbps = 2039;
    hw.intra_node_gbps = 300;
    hw.inter_node_gbits = 1600;
    hw.gpus_per_node = 8;
    hw.latency_us = latency_us;
    hw.arch = "ampere";
    return hw;
}
