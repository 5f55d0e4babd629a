#include "topology/layer_split.h"

#include <numeric>
#include <stdexcept>

namespace paraplan {

std::vector<int> colossalai_distribute_layers(int num_layers, int pp_size, int num_model_chunks) {
    if (num_layers < 0) throw std::invalid_argument("num_layers must be >= 0, got " + std::to_string(num_layers));
    if (pp_size < 1 || num_model_chunks < 1) throw std::invalid_argument("pp_size and num_model_chunks must be >= 1");
    const int entries = pp_size * num_model_chunks;
    std::vector<int> out(static_cast<std::size_t>(entries), num_layers / entries);
    const int remainder = num_layers % entries;
    if (remainder > 0) {
        // The remainder goes to the middle entries: start = entries//2 - r//2.
        const int start = entries / 2 - remainder / 2;
        for (int i = start; i < start + remainder; ++i) out[static_cast<std::size_t>(i)] += 1;
    }
    return out;
}

StageLayers colossalai_stage_layers(int num_layers, int pp_size, Schedule pp_style, int num_model_chunks,
                                    const std::vector<int>& num_layers_per_stage) {
    if (pp_style == Schedule::interleaved_colossalai) pp_style = Schedule::interleaved;
    if (pp_style != Schedule::one_f_one_b && pp_style != Schedule::interleaved && pp_style != Schedule::zbv)
        throw std::invalid_argument("Unsupported pipeline parallelism style '" + std::string(to_string(pp_style)) +
                                    "'");
    const int chunks = pp_style == Schedule::one_f_one_b ? 1 : num_model_chunks;
    if (pp_style == Schedule::zbv && chunks != 2)
        throw std::invalid_argument("zbv needs num_model_chunks == 2, got " + std::to_string(chunks));
    std::vector<int> entries;
    if (!num_layers_per_stage.empty()) {
        if (static_cast<int>(num_layers_per_stage.size()) != pp_size)
            throw std::invalid_argument("num_layers_per_stage has " + std::to_string(num_layers_per_stage.size()) +
                                        " entries but pp_size is " + std::to_string(pp_size));
        const int sum = std::accumulate(num_layers_per_stage.begin(), num_layers_per_stage.end(), 0);
        if (sum != num_layers)
            throw std::invalid_argument("num_layers_per_stage sums to " + std::to_string(sum) + " but the model has " +
                                        std::to_string(num_layers) + " layers");
        if (chunks != 1)
            throw std::invalid_argument("num_layers_per_stage has pp_size entries but " +
                                        std::string(to_string(pp_style)) + " indexes pp_size * " +
                                        std::to_string(chunks) + " entries (IndexError in ColossalAI)");
        entries = num_layers_per_stage;
    } else {
        entries = colossalai_distribute_layers(num_layers, pp_size, chunks);
    }
    std::vector<int> acc(entries.size() + 1, 0);
    for (std::size_t i = 0; i < entries.size(); ++i) acc[i + 1] = acc[i] + entries[i];
    auto range = [&](int e) {
        return LayerRange{acc[static_cast<std::size_t>(e)], acc[static_cast<std::size_t>(e) + 1]};
    };

    StageLayers out(static_cast<std::size_t>(pp_size));
    for (int s = 0; s < pp_size; ++s) {
        auto& st = out[static_cast<std::size_t>(s)];
        if (pp_style == Schedule::zbv) {
            st.push_back(range(s));
            st.push_back(range(2 * pp_size - s - 1));
        } else {
            for (int c = 0; c < chunks; ++c) st.push_back(range(s + c * pp_size));
        }
    }
    return out;
}

StageLayers megatron_stage_layers(int num_layers, int pp_size, int vp_size) {
    if (pp_size < 1 || vp_size < 1) throw std::invalid_argument("pp and vp sizes must be >= 1");
    const int chunks_total = pp_size * vp_size;
    if (num_layers % chunks_total != 0)
        throw std::invalid_argument("num_layers " + std::to_string(num_layers) +
                                    " is not divisible by pp * vp = " + std::to_string(chunks_total));
    const int per_chunk = num_layers / chunks_total;
    StageLayers out(static_cast<std::size_t>(pp_size));
    for (int r = 0; r < pp_size; ++r)
        for (int c = 0; c < vp_size; ++c) {
            const int g = c * pp_size + r;
            out[static_cast<std::size_t>(r)].push_back(LayerRange{g * per_chunk, (g + 1) * per_chunk});
        }
    return out;
}

int layers_on_stage(const StageLayers& split, int stage) {
    int n = 0;
    for (const auto& r : split.at(static_cast<std::size_t>(stage))) n += r.size();
    return n;
}

}   // namespace paraplan
