#include "estimate/lora.h"

#include "estimate/memory.h"

#include <algorithm>

namespace paraplan::estimate {

double lora_params(double in, double out, int rank) { return double(rank) * (in + out); }

std::vector<LoraLinear> lora_linears(const LayerShapes& s, bool moe, const LoraOptions& o) {
    std::vector<LoraLinear> v;
    auto wants = [&](LoraTarget t) { return std::find(o.targets.begin(), o.targets.end(), t) != o.targets.end(); };
    const bool gated = s.gated > 1;
    if (wants(LoraTarget::linear_qkv)) {
        if (o.fused) v.push_back({LoraTarget::linear_qkv, s.h, s.hq + 2 * s.hkv});
        else {
            v.push_back({LoraTarget::linear_qkv, s.h, s.hq});
            v.push_back({LoraTarget::linear_qkv, s.h, s.hkv});
            v.push_back({LoraTarget::linear_qkv, s.h, s.hkv});
        }
    }
    if (wants(LoraTarget::linear_proj)) v.push_back({LoraTarget::linear_proj, s.hq, s.h});
    // The MLP: the dense one, or each routed expert's and the shared expert's.
    auto mlp = [&](double ffn, double copies, bool expert, double tokens) {
        if (ffn <= 0) return;
        if (wants(LoraTarget::linear_fc1)) {
            if (o.fused || !gated)
                v.push_back({LoraTarget::linear_fc1, s.h, (gated ? 2 : 1) * ffn, copies, expert, tokens});
            else {
                v.push_back({LoraTarget::linear_fc1, s.h, ffn, copies, expert, tokens});
                v.push_back({LoraTarget::linear_fc1, s.h, ffn, copies, expert, tokens});
            }
        }
        if (wants(LoraTarget::linear_fc2)) v.push_back({LoraTarget::linear_fc2, ffn, s.h, copies, expert, tokens});
    };
    if (moe) {
        mlp(s.expert_ffn, std::max(1, s.experts), true, std::max(1, s.top_k));
        mlp(s.shared_ffn, 1, false, 1);
    } else {
        mlp(s.ffn, 1, false, 1);
    }
    return v;
}

ShardedCounts lora_layer_params_per_gpu(const LayerShapes& s, bool moe, const Config& c) {
    ShardedCounts out;
    if (!c.lora.on()) return out;
    const double tp = std::max(1, c.tp), ep = std::max(1, c.ep), etp = std::max(1, c.etp);
    for (const LoraLinear& l : lora_linears(s, moe, c.lora)) {
        const double n = l.copies * lora_params(l.in, l.out, c.lora.rank);
        if (l.expert) out.expert += n / (ep * etp);
        else out.dense += n / tp;
    }
    return out;
}

double lora_fwd_flops_per_token(const LayerShapes& s, bool moe, const LoraOptions& o) {
    double f = 0;
    if (!o.on()) return f;
    for (const LoraLinear& l : lora_linears(s, moe, o)) f += l.tokens * 2 * lora_params(l.in, l.out, o.rank);
    return f;
}

double lora_activation_bytes(const LayerShapes& s, bool moe, const Config& c, double tokens) {
    double b = 0;
    if (!c.lora.on()) return b;
    for (const LoraLinear& l : lora_linears(s, moe, c.lora)) b += 2.0 * tokens * l.tokens * c.lora.rank;
    return b;
}

double model_adapter_params(const ModelSpec& m, const LayerShapes& s, const LoraOptions& o) {
    if (!o.on()) return 0;
    auto layer = [&](bool moe) {
        double n = 0;
        for (const LoraLinear& l : lora_linears(s, moe, o)) n += l.copies * lora_params(l.in, l.out, o.rank);
        return n;
    };
    const double dense = layer(false), moe = s.experts > 0 ? layer(true) : dense;
    double n = 0;
    for (int i = 0; i < m.layers; ++i) n += s.experts > 0 && is_moe_layer(m, i) ? moe : dense;
    return n;
}

std::vector<ShardedCounts> stage_adapter_params(const LayerShapes& s, const Config& c) {
    const int pp = std::max(1, c.pp);
    std::vector<ShardedCounts> out(pp);
    if (!c.lora.on()) return out;
    const ShardedCounts dense = lora_layer_params_per_gpu(s, false, c);
    const ShardedCounts moe = s.experts > 0 ? lora_layer_params_per_gpu(s, true, c) : dense;
    for (int i = 0; i < pp; ++i) {
        const int layers = i < int(c.layers_per_stage.size()) ? c.layers_per_stage[i] : 0;
        const int nmoe = i < int(c.moe_layers_per_stage.size()) ? c.moe_layers_per_stage[i] : 0;
        out[i].dense = (layers - nmoe) * dense.dense + nmoe * moe.dense;
        out[i].expert = (layers - nmoe) * dense.expert + nmoe * moe.expert;
    }
    return out;
}

std::vector<ShardedCounts> stage_trained_params(const LayerShapes& s, const Config& c) {
    return c.lora.on() ? stage_adapter_params(s, c) : stage_params(s, c);
}

std::vector<ShardedCounts> stage_base_linear_params(const LayerShapes& s, const Config& c) {
    if (!c.lora.on()) return std::vector<ShardedCounts>(std::size_t(std::max(1, c.pp)));
    std::vector<ShardedCounts> out = stage_fp8_weight_params(s, c);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const int nl = i < c.layers_per_stage.size() ? c.layers_per_stage[i] : 0;
        const int nm = i < c.moe_layers_per_stage.size() ? c.moe_layers_per_stage[i] : 0;
        out[i].dense = std::max(0.0, out[i].dense - nl * s.norm_params - nm * s.router_params);
    }
    return out;
}

std::vector<ShardedCounts> stage_trained_fp8_weights(const LayerShapes& s, const Config& c) {
    return c.lora.on() ? std::vector<ShardedCounts>(std::size_t(std::max(1, c.pp))) : stage_fp8_weight_params(s, c);
}

}   // namespace paraplan::estimate
