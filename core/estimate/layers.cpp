#include "estimate/layers.h"

#include "estimate/shapes.h"
#include "project/framework.h"
#include "topology/layer_split.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace paraplan::estimate {

StageLayers split_layers(const ModelSpec& m, int pp, int chunks, Schedule s, const std::vector<int>& explicit_split,
                         const std::string& framework) {
    StageLayers out;
    pp = std::max(1, pp);
    const bool v_shape = is_v_shape(s);
    const int c = (is_multi_chunk(s) || v_shape) ? std::max(1, v_shape ? 2 : chunks) : 1;
    const int L = std::max(0, m.layers);
    const std::string style = v_shape ? "zbv" : (c > 1 ? "interleaved" : "1f1b");
    paraplan::StageLayers ranges;
    bool done = false;
    const FrameworkTraits* ft = find_traits(framework);
    if (ft && ft->layers_divisible_by_stages && !v_shape) {
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
    for (int st = 0; st < pp && st < int(ranges.size()); ++st)
        for (const LayerRange& r : ranges[st])
            for (int l = r.begin; l < r.end; ++l) {
                out.layers[st] += 1;
                out.moe_layers[st] += is_moe_layer(m, l) ? 1 : 0;
            }
    out.embedding_stage = 0;
    out.head_stage = v_shape ? 0 : pp - 1;   // zbv: the loss lives on stage 0 (V shape)
    return out;
}

}  // namespace paraplan::estimate
