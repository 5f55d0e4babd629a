#pragma once
// The rank orders Megatron-LM's command line can set. megatron/training/arguments.py (core_v0.19.0)
// passes order "tp-cp-ep-dp-pp" to initialize_model_parallel, or "tp-cp-ep-pp-dp" with
// --use-tp-pp-dp-mapping; RankGenerator (megatron/core/parallel_state.py) reads the tokens fastest
// first and appends an axis the order leaves out, which must then have size 1.
#include <optional>
#include <string>

namespace paraplan::topology {

enum class MegatronOrder {
    dp_outside_pp,   // tp-cp-ep-dp-pp, the default
    pp_outside_dp,   // tp-cp-ep-pp-dp, --use-tp-pp-dp-mapping
};

// The command-line order layout.order is: its tokens (tp cp ep dp pp, case ignored) in that order, any
// left out; empty is the default. nullopt for an order the command line cannot set (another order,
// an unknown or repeated token): the exporter refuses it, the rank map still builds it as written.
std::optional<MegatronOrder> megatron_cli_order(const std::string& order);

}   // namespace paraplan::topology
