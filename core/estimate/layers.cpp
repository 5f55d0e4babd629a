#include "estimate/layers.h"

#include "estimate/shapes.h"
#include "project/framework.h"
#include "topology/layer_split.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace paraplan::estimate {

namespace {

// Megatron's split counting the embedding and/or the loss as a layer (layers.h); empty when
// (L + accounted) does not divide into pp x vp chunks or a chunk would be left negative.
paraplan::StageLayers megatron_accounted_layers(int L, int pp, int vp, bool embedding, bool loss) {
    const int total = L + (embedding ? 1 : 0) + (loss ? 1 : 0);
    const int chunks = pp * vp;
    if (chunks <= 0 || total % chunks != 0) return {};
    const int per_chunk = total / chunks;
    paraplan::StageLayers out(pp, std::vector<LayerRange>(vp));
    int next = 0;
    // Global chunk g = c * pp + r holds the next layers in order (rank r, model chunk c).
    for (int g = 0; g < chunks; ++g) {
        int n = per_chunk - ((embedding && g == 0) ? 1 : 0) - ((loss && g == chunks - 1) ? 1 : 0);
        if (n < 0) return {};
        out[g % pp][g / pp] = LayerRange{next, next + n};
        next += n;
    }
    return next == L ? out : paraplan::StageLayers{};
}

}   // namespace

StageLayers split_layers(const ModelSpec& m, int pp, int chunks, Schedule s, const std::vector<int>& explicit_split,
                         const std::string& framework, bool account_embedding, bool account_loss) {
    StageLayers out;
    pp = std::max(1, pp);
    const bool v_shape = is_v_shape(s);
    const int c = (is_multi_chunk(s) || v_shape) ? std::max(1, v_shape ? 2 : chunks) : 1;
    const int L = std::max(0, m.layers);
    const std::string style = v_shape ? "zbv" : (c > 1 ? "interleaved" : "1f1b");
    paraplan::StageLayers ranges;
    bool done = false;
    const FrameworkTraits* ft = find_traits(framework);
    // account_for_embedding/loss_in_pipeline_split are Megatron's (the framework with the even split).
    if (ft && ft->layers_divisible_by_stages && !v_shape && pp > 1 && (account_embedding || account_loss)) {
        ranges = megatron_accounted_layers(L, pp, c, account_embedding, account_loss);
        done = !ranges.empty();
    }
    if (ft && ft->layers_divisible_by_stages && !v_shape && !done) {
        try {
            ranges = megatron_stage_layers(L, pp, c);
            done = true;
        } catch (const std::invalid_argument&) {
            // Megatron refuses uneven splits; estimate with the ColossalAI rule instead.
        }
    }
    if (!done) {
        const bool use_explicit = int(explicit_split.size()) == pp && c == 1 &&
                                  std::accumulate(explicit_split.begin(), explicit_split.end(), 0) == L;
        try {
            ranges = colossalai_stage_layers(L, pp, style, c, use_explicit ? explicit_split : std::vector<int>{});
        } catch (const std::invalid_argument&) {
            ranges = colossalai_stage_layers(L, pp, style, c, {});
        }
    }
    out.layers.assign(pp, 0);
    out.moe_layers.assign(pp, 0);
    if (m.is_hybrid()) {
        // Megatron's MambaStack gives each pipeline rank num_layers // pp consecutive pattern
        // characters (mamba_block.py _select_layers_for_pipeline_parallel, core_v0.16.0): the
        // even split above, counted per layer kind.
        out.mamba_layers.assign(pp, 0);
        out.attention_layers.assign(pp, 0);
        out.mlp_layers.assign(pp, 0);
    }
    for (int st = 0; st < pp && st < int(ranges.size()); ++st)
        for (const LayerRange& r : ranges[st])
            for (int l = r.begin; l < r.end; ++l) {
                out.layers[st] += 1;
                out.moe_layers[st] += is_moe_layer(m, l) ? 1 : 0;
                const char kind = m.layer_kind(l);
                if (kind == 'M') out.mamba_layers[st] += 1;
                else if (kind == '*') out.attention_layers[st] += 1;
                else if (kind == '-') out.mlp_layers[st] += 1;
            }
    out.embedding_stage = 0;
    out.head_stage = v_shape ? 0 : pp - 1;   // zbv: the loss lives on stage 0 (V shape)
    return out;
}

}   // namespace paraplan::estimate
