// ColossalAI plugin call -> project: the keyword (and leading positional) arguments
// of HybridParallelPlugin / MoeHybridParallelPlugin / GeminiPlugin /
// LowLevelZeroPlugin (colossalai/booster/plugin/*.py signatures).
#include "export/import.h"

#include "export/python_call.h"
#include "project/framework.h"
#include "util/input_error.h"

#include <algorithm>

namespace paraplan {

using nlohmann::json;

ImportResult import_colossalai(std::string_view text, const Project& base) {
    const auto call = pycall::find_call(
        text, {"HybridParallelPlugin", "MoeHybridParallelPlugin", "GeminiPlugin", "LowLevelZeroPlugin"});
    if (!call)
        throw InputError("",
                         "no HybridParallelPlugin(...), MoeHybridParallelPlugin(...), GeminiPlugin(...) or "
                         "LowLevelZeroPlugin(...) call found");
    ImportResult r;
    r.project = base;
    Project& p = r.project;
    p.layout = Layout{};
    Layout& l = p.layout;
    auto& w = r.warnings;
    const std::string& cls = call->callee;
    l.framework = traits(framework_for_plugin(cls).value_or(Framework::colossalai)).name;
    std::vector<std::string> positional;
    if (cls == "HybridParallelPlugin") positional = {"tp_size", "pp_size", "sp_size", "precision", "zero_stage"};
    else if (cls == "MoeHybridParallelPlugin")
        positional = {"tp_size", "pp_size", "ep_size", "sp_size", "precision", "zero_stage"};
    else if (cls == "LowLevelZeroPlugin") positional = {"stage", "precision"};

    std::string sp_mode;
    bool sp_on = false;
    double offload_optim_frac = 0;
    std::size_t pos_index = 0;
    const std::string at = " (line " + std::to_string(call->line) + ")";
    for (const auto& arg : call->args) {
        std::string key = arg.key;
        if (key.empty()) {
            if (pos_index >= positional.size()) {
                w.push_back(cls + " positional argument " + std::to_string(pos_index + 1) + " '" + arg.source +
                            "' not read" + at);
                ++pos_index;
                continue;
            }
            key = positional[pos_index++];
        }
        const std::string shown = key + "=" + arg.source;
        const json* v = arg.literal ? &*arg.literal : nullptr;
        auto as_int = [&](int min, int& out) {
            if (v && v->is_number_integer() && v->get<long long>() >= min && v->get<long long>() < (1LL << 31))
                out = v->get<int>();
            else if (v && v->is_null()) {
            } else w.push_back(shown + " not read (expected an integer literal)" + at);
        };
        auto as_bool = [&](bool& out) {
            if (v && v->is_boolean()) out = v->get<bool>();
            else w.push_back(shown + " not read (expected True or False)" + at);
        };
        if (key == "tp_size") as_int(1, l.tp);
        else if (key == "pp_size") as_int(1, l.pp);
        else if (key == "sp_size") as_int(1, l.sp);
        else if (key == "ep_size") as_int(1, l.ep);
        else if (key == "zero_stage" || key == "stage") as_int(0, l.zero_stage);
        else if (key == "precision") {
            // The plugins' precisions (PRECISION_TORCH_TYPE): fp16, bf16, fp32.
            const auto pr = v && v->is_string() ? parse_enum<Precision>(v->get<std::string>()) : std::nullopt;
            if (pr == Precision::bf16 || pr == Precision::fp16 || pr == Precision::fp32) p.training.precision = *pr;
            else w.push_back(shown + " not read" + at);
        } else if (key == "enable_sequence_parallelism") as_bool(sp_on);
        else if (key == "sequence_parallelism_mode") {
            if (v && v->is_string()) sp_mode = v->get<std::string>();
            else if (!(v && v->is_null())) w.push_back(shown + " not read" + at);
        } else if (key == "enable_flash_attention") as_bool(l.flash_attention);
        else if (key == "enable_fused_normalization") as_bool(l.fused_norm);
        else if (key == "enable_jit_fused") as_bool(l.jit_fused);
        else if (key == "use_fp8") as_bool(l.fp8);
        else if (key == "pp_style") {
            // pp_style is one of "1f1b", "interleaved", "zbv" (HybridParallelPlugin.__init__).
            const auto s = v && v->is_string() ? parse_enum<Schedule>(v->get<std::string>()) : std::nullopt;
            if (s == Schedule::one_f_one_b || s == Schedule::interleaved || s == Schedule::zbv) l.schedule = *s;
            else w.push_back(shown + " not read" + at);
        } else if (key == "num_model_chunks") as_int(1, l.chunks);
        else if (key == "num_microbatches") as_int(1, l.num_microbatches);
        else if (key == "microbatch_size") as_int(1, p.training.micro_batch_size);
        else if (key == "scheduler_nodes") {
            r.notes.push_back("scheduler_nodes (" + arg.source.substr(0, 40) +
                              ") is the zero-bubble V schedule; Paraplan rebuilds it");
        } else if (key == "num_layers_per_stage") {
            if (v && v->is_array() && std::all_of(v->begin(), v->end(), [](const json& e) {
                    return e.is_number_integer() && e.get<long long>() >= 0;
                }))
                l.num_layers_per_stage = v->get<std::vector<int>>();
            else if (!(v && v->is_null())) w.push_back(shown + " not read (expected a list of integers)" + at);
        } else if (key == "gradient_checkpoint_config") {
            const auto inner = pycall::find_call(arg.source,
                                                 {"GradientCheckpointConfig", "PipelineGradientCheckpointConfig"});
            bool read = false;
            if (inner)
                for (const auto& a : inner->args)
                    if ((a.key == "gradient_checkpointing_ratio" || a.key.empty()) && a.literal &&
                        a.literal->is_number()) {
                        const double ratio = a.literal->get<double>();
                        if (ratio >= 1.0) {
                            l.recompute = Recompute::full;
                            read = true;
                        } else if (ratio <= 0.0) {
                            l.recompute = Recompute::none;
                            read = true;
                        }
                    }
            if (!read) w.push_back(shown + " not read (Paraplan models a checkpointing ratio of 0 or 1)" + at);
        } else if (key == "cpu_offload") {
            bool b = false;
            as_bool(b);
            if (b) l.offload = Offload::cpu;
        } else if (key == "dp_outside" || key == "moe_dp_outside") as_bool(l.dp_outside);
        else if (key == "inner_ring_size") as_int(1, l.inner_ring_size);
        else if (key == "offload_optim_frac") {
            if (v && v->is_number()) offload_optim_frac = v->get<double>();
            else w.push_back(shown + " not read" + at);
        } else if (key == "placement_policy") {
            if (!(v && *v == "static")) w.push_back(shown + " not read (Paraplan models the static placement)" + at);
        } else if (key == "shard_param_frac") {
            if (!(v && v->is_number() && v->get<double>() == 1.0))
                w.push_back(shown + " not read (Paraplan models full sharding)" + at);
        } else {
            w.push_back(shown + " not read" + at);
        }
    }
    if (sp_on) {
        // Left unset, the plugin builds all_to_all groups (hybrid_parallel_plugin.py).
        const auto mode = sp_mode.empty() ? SpMode::all_to_all : parse_enum<SpMode>(sp_mode);
        if (mode) l.sp_mode = *mode;
        else
            w.push_back("sequence_parallelism_mode=\"" + sp_mode + "\" not read (expected one of " +
                        quoted_enum_names<SpMode>() + ")");
        if (sp_mode.empty())
            w.push_back(
                "enable_sequence_parallelism=True without sequence_parallelism_mode: read as all_to_all, "
                "which the plugin uses while ShardConfig shards as split_gather");
    } else if (!sp_mode.empty()) {
        w.push_back("sequence_parallelism_mode=\"" + sp_mode + "\" with sequence parallelism off not read");
    }
    if (traits_of(l).zero == ZeroSemantics::always_3) {
        l.zero_stage = 3;
        if (offload_optim_frac > 0) {
            l.offload = Offload::cpu;
            l.offload_fraction = offload_optim_frac < 1 ? offload_optim_frac : 0;
        }
    }
    if (l.pp == 1) l.num_microbatches = 0;
    r.notes.push_back(
        "the global batch size, sequence length, cluster and model come from the base project "
        "(a plugin call does not carry them)");
    return r;
}

}   // namespace paraplan
