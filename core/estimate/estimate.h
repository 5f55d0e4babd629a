#pragma once
// The estimate of one project: memory per pipeline stage, step time with its
// breakdown, FLOPs, MFU/HFU, tokens/s. make_config() maps a framework's layout onto
// the estimator's neutral Config (which groups exist, what ZeRO shards over, which
// bytes per parameter the framework keeps); evaluate() runs the models.
#include "catalog/gpu.h"
#include "catalog/model.h"
#include "estimate/config.h"
#include "estimate/efficiency.h"
#include "estimate/error_band.h"
#include "estimate/memory.h"
#include "estimate/shapes.h"
#include "estimate/time.h"
#include "project/project.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace paraplan::topology {
struct RankMap;
}

namespace paraplan::estimate {

// Mixture-of-experts terms of the estimate (moe.h), for reports and `estimate --json`'s "moe".
struct MoeSummary {
    bool present = false;   // the model has routed experts
    int experts = 0, top_k = 0, ep = 1, etp = 1, moe_layers = 0, mtp_layers = 0;
    MoeDispatcher dispatcher = MoeDispatcher::alltoall;
    double capacity_factor = 0;   // 0: dropless
    double imbalance = 0;         // the busiest EP rank's share used (kDefaultMoeImbalance when unset)
    double load = 1;              // min(imbalance, capacity factor): what the busiest rank processes
    bool overlap = false, fp8_dispatch = false;
    double tokens_in = 0;                   // tokens entering one MoE layer per GPU and microbatch
    double tokens_per_expert = 0;           // rows of one local expert's GEMM per microbatch, balanced routing
    double busiest_tokens_per_expert = 0;   // x load
    double grouped_gemm_efficiency = 0;     // share of the expert GEMMs' peak at those rows
    double a2a_fwd_s = 0, a2a_bwd_s = 0;    // dispatch + combine per MoE layer and microbatch (before overlap)
    double expert_kernels = 0;              // per-expert GEMM + FP8-cast kernels per MoE layer and microbatch
    double expert_kernel_s = 0;             // the time they add per MoE layer and microbatch (moe.h)
};

// LoRA terms of the estimate (lora.h), for `estimate --json`'s "peft".
struct PeftSummary {
    bool present = false;
    double trainable_params = 0;         // the adapters, whole model
    double adapter_params_per_gpu = 0;   // on the stage that holds the most
};

struct Estimate {
    Config config;
    MoeSummary moe;
    PeftSummary peft;
    Hardware hardware;
    MemoryResult memory;
    TimeResult time;
    double train_tokens = 0;
    double time_to_train_s = 0;   // train_tokens / tokens_per_s (0 when unset)
    // How far the published runs like this one that the model was not tuned on fell from their
    // predictions, applied to time.step_s (error_band.h; estimate_project sets it, evaluate does not).
    StepBand step_band;
    std::vector<std::string> notes;   // assumptions taken (fallbacks, ignored knobs)
};

// Hardware from a catalog GPU and the cluster (node 0's link override, the network).
Hardware hardware_for(const GpuSpec& gpu, const Cluster& cluster, Precision precision);

// Throws InputError (naming the /layout or /training field) when the sizes do not
// divide the world or the batch.
Config make_config(const ModelSpec& m, const Training& t, const Layout& l, const Hardware& hw, int world,
                   std::vector<std::string>* notes = nullptr);

Estimate evaluate(const ModelSpec& m, const LayerShapes& s, const Config& c, const Hardware& hw,
                  const PipelineFn& pipeline = {});

// Whole project; the GPU is node 0's (estimate_project looks it up in the catalog). Both
// apply the project's cluster profile (estimate.profile, profile.h) when it names one.
Estimate estimate_project(const Project& p, const GpuSpec& gpu);
Estimate estimate_project(const Project& p);
// With the hardware already derived (hardware_for): the placement-aware communication model
// over the project's rank map and the simulated pipeline schedule. `map`: the project's rank
// map when the caller has already built it (the GUI builds it once per edit); null builds it.
Estimate estimate_project(const Project& p, const Hardware& hw, const topology::RankMap* map = nullptr);
// The catalog GPU of node 0 with the project's profile, over a rank map already built for `p`.
Estimate estimate_project(const Project& p, const topology::RankMap& map);

nlohmann::json to_json(const Estimate& e);

}   // namespace paraplan::estimate
