#include "estimate/layers.h"

#include "estimate/shapes.h"
#include "project/framework.h"
#include "topology/layer_split.h"
#include "util/memo.h"

#include <algorithm>
#include <array>
#include <string>
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

namespace {

StageLayers split_layers_uncached(const ModelSpec& m, int pp, int chunks, Schedule s,
                                  const std::vector<int>& explicit_split, const std::string& framework,
                                  bool account_embedding, bool account_loss);

// What split_layers() reads: the arguments, and of the model its layer count, which layers are MoE
// and, for a hybrid model, each layer's kind (its pattern).
struct SplitKey {
    int layers = 0, experts = 0, moe_layer_freq = 0, pp = 0, chunks = 0;
    std::string hybrid_override_pattern;
    Schedule schedule = Schedule::one_f_one_b;
    bool account_embedding = false, account_loss = false;
    std::vector<int> dense_layers, explicit_split;
    std::string framework;
    bool operator==(const SplitKey&) const = default;
};

}   // namespace

// The planner splits the same model the same way for thousands of layouts: each thread keeps the
// last splits it computed (direct-mapped on the pipeline size, chunks and schedule), and a hit
// compares every input, so it returns what the split returns.
StageLayers split_layers(const ModelSpec& m, int pp, int chunks, Schedule s, const std::vector<int>& explicit_split,
                         const std::string& framework, bool account_embedding, bool account_loss) {
    struct Slot {
        bool used = false;
        SplitKey key;
        StageLayers value;
    };
    constexpr std::size_t kSlots = 64;
    thread_local std::array<Slot, kSlots> table;
    if (!memo::enabled())
        return split_layers_uncached(m, pp, chunks, s, explicit_split, framework, account_embedding, account_loss);
    const bool moe = m.experts > 0;
    Slot& slot =
        table[(std::size_t(std::max(0, pp)) * 31 + std::size_t(std::max(0, chunks)) * 7 + std::size_t(s)) % kSlots];
    const auto& k = slot.key;
    if (slot.used && k.layers == m.layers && k.pp == pp && k.chunks == chunks && k.schedule == s &&
        k.account_embedding == account_embedding && k.account_loss == account_loss && k.experts == m.experts &&
        (!moe || (k.moe_layer_freq == m.moe_layer_freq && k.dense_layers == m.dense_layers)) &&
        k.explicit_split == explicit_split && k.framework == framework &&
        k.hybrid_override_pattern == m.hybrid_override_pattern)
        return slot.value;
    StageLayers out = split_layers_uncached(m, pp, chunks, s, explicit_split, framework, account_embedding,
                                            account_loss);
    slot.used = true;
    slot.key = SplitKey{m.layers,
                        m.experts,
                        moe ? m.moe_layer_freq : 0,
                        pp,
                        chunks,
                        m.hybrid_override_pattern,
                        s,
                        account_embedding,
                        account_loss,
                        moe ? m.dense_layers : std::vector<int>{},
                        explicit_split,
                        framework};
    slot.value = out;
    return out;
}

namespace {

StageLayers split_layers_uncached(const ModelSpec& m, int pp, int chunks, Schedule s,
                                  const std::vector<int>& explicit_split, const std::string& framework,
                                  bool account_embedding, bool account_loss) {
    StageLayers out;
    pp = std::max(1, pp);
    const bool v_shape = is_v_shape(s);
    const int c = (is_multi_chunk(s) || v_shape) ? std::max(1, v_shape ? 2 : chunks) : 1;
    const int L = std::max(0, m.layers);
    const Schedule style = v_shape ? Schedule::zbv : (c > 1 ? Schedule::interleaved : Schedule::one_f_one_b);
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
        for (const LayerRange& r : ranges[st]) {
            if (m.experts == 0 && !m.is_hybrid()) {
                out.layers[st] += std::max(0, r.end - r.begin);
                continue;
            }
            for (int l = r.begin; l < r.end; ++l) {
                out.layers[st] += 1;
                out.moe_layers[st] += is_moe_layer(m, l) ? 1 : 0;
                const char kind = m.layer_kind(l);
                if (kind == 'M') out.mamba_layers[st] += 1;
                else if (kind == '*') out.attention_layers[st] += 1;
                else if (kind == '-') out.mlp_layers[st] += 1;
            }
        }
    out.embedding_stage = 0;
    out.head_stage = v_shape ? 0 : pp - 1;   // zbv: the loss lives on stage 0 (V shape)
    return out;
}

}   // namespace

}   // namespace paraplan::estimate
