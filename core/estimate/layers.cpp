#include "estimate/layers.h"

#include "estimate/shapes.h"

#include <algorithm>
#include <numeric>

namespace paraplan::estimate {

StageLayers split_layers(const ModelSpec& m, int pp, int chunks, Schedule s, const std::vector<int>& explicit_split) {
    StageLayers out;
    pp = std::max(1, pp);
    const bool v_shape = s == Schedule::zbv || s == Schedule::dualpipev;
    const int c = (s == Schedule::interleaved || v_shape) ? std::max(1, v_shape ? 2 : chunks) : 1;
    const int L = std::max(0, m.layers);
    const int n = pp * c;
    std::vector<int> entries;
    if (int(explicit_split.size()) == pp && c == 1 &&
        std::accumulate(explicit_split.begin(), explicit_split.end(), 0) == L) {
        entries = explicit_split;
    } else {
        entries.assign(n, L / n);
        const int r = L % n;
        const int start = n / 2 - r / 2;
        for (int i = 0; i < r; ++i) entries[start + i] += 1;
    }
    std::vector<int> acc(entries.size() + 1, 0);
    for (std::size_t i = 0; i < entries.size(); ++i) acc[i + 1] = acc[i] + entries[i];
    out.layers.assign(pp, 0);
    out.moe_layers.assign(pp, 0);
    auto add = [&](int stage, int block) {
        for (int l = acc[block]; l < acc[block + 1]; ++l) {
            out.layers[stage] += 1;
            out.moe_layers[stage] += is_moe_layer(m, l) ? 1 : 0;
        }
    };
    for (int st = 0; st < pp; ++st) {
        if (v_shape) {
            add(st, st);
            add(st, 2 * pp - st - 1);
        } else {
            for (int k = 0; k < c; ++k) add(st, st + k * pp);
        }
    }
    out.embedding_stage = 0;
    out.head_stage = v_shape ? 0 : pp - 1;   // zbv: the loss lives on stage 0 (V shape)
    return out;
}

}  // namespace paraplan::estimate
