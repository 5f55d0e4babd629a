#include "estimate/time.h"

#include "estimate/comm.h"

#include <algorithm>

namespace paraplan::estimate {

namespace {

int head_stage_of(const Config& c) { return c.head_stage >= 0 ? c.head_stage : std::max(0, c.pp - 1); }

// CPU Adam throughput per GPU process and host link, for offloaded optimizer steps
// (ZeRO-Offload, Ren et al. 2021: CPU-Adam updates ~1B parameters/s per process; PCIe 4 x16 ~ 25 GB/s).
constexpr double kCpuAdamParamsPerS = 1e9;
constexpr double kPcieGbs = 25;
constexpr double kNvmeGbs = 3;

}  // namespace

std::vector<StageTimes> stage_times(const ModelSpec& /*m*/, const LayerShapes& s, const Config& c, const Hardware& hw,
                                    const Efficiency& eff, const std::vector<ShardedCounts>& params) {
    const int pp = std::max(1, c.pp);
    const double tp = std::max(1, c.tp), cp = std::max(1, c.cp);
    const double peak = hw.peak_tflops * 1e12;
    const double hbm = hw.hbm_gbps * 1e9 * eff.hbm;
    const double tokens = double(c.micro_batch) * c.seq_len / cp;   // per GPU sequence share
    const double seq = c.seq_len;

    // One layer, forward, per GPU.
    auto layer_fwd = [&](bool moe, double& gemm_s, double& attn_s, double& elem_s, double& w_s) {
        const LayerFlops f = layer_flops_per_token(s, moe, seq);
        const double d_dense = std::min(tokens, s.h / tp);
        double g = 0;
        if (moe) {
            const double attn_gemm = 2 * s.attn_params + 2 * (s.shared_params + s.router_params);
            g += tokens * attn_gemm / tp / (peak * gemm_efficiency(eff, d_dense));
            const double k = std::max(1, s.top_k);
            // Each expert sees ep * tokens * k / E tokens (balanced routing).
            const double m_expert = double(c.ep) * tokens * k / std::max(1, s.experts);
            const double d_e = std::min(m_expert, s.expert_ffn / std::max(1, c.etp));
            // Balanced routing: the expert FLOPs of a microbatch spread over the tp ranks that hold it.
            const double ef = tokens * k * 2 * s.expert_params / tp;
            g += ef / (peak * gemm_efficiency(eff, d_e));
        } else {
            g = tokens * f.gemm / tp / (peak * gemm_efficiency(eff, d_dense));
        }
        gemm_s = g;
        w_s = g;
        const double attn_flops = tokens * f.attention / tp;
        // Flash kernels skip the blocks above the diagonal of a causal mask (Dao 2023); the
        // FLOP count keeps the full s^2 as Megatron's formula does.
        attn_s = c.flash_attention ? eff.causal_attention * attn_flops / (peak * eff.attention)
                                   : attn_flops / (peak * gemm_efficiency(eff, s.hq / std::max(1, s.heads)));
        ActivationInputs ai;
        ai.seq = seq;
        ai.micro_batch = c.micro_batch;
        ai.tp = c.tp;
        ai.cp = c.cp;
        ai.etp = c.etp;
        ai.ep = c.ep;
        ai.sequence_parallel = c.sequence_parallel;
        ai.flash_attention = c.flash_attention;
        ai.dropout = c.dropout;
        ai.recompute = Recompute::none;
        const LayerActivation a = layer_activation(s, moe, ai);
        elem_s = (eff.elementwise_passes * (a.replicated + a.sharded) + eff.score_passes * a.scores) / hbm;
    };
    double dg, da, de, dw, mg = 0, ma = 0, me = 0, mw = 0;
    layer_fwd(false, dg, da, de, dw);
    if (s.experts > 0) layer_fwd(true, mg, ma, me, mw);

    // Communication per layer per microbatch.
    const GroupLink& tpl = c.link[kTp];
    const double act_bytes = tokens * s.h * 2;
    const double tp_coll = c.sequence_parallel ? all_gather_s(tpl, act_bytes) + reduce_scatter_s(tpl, act_bytes)
                                               : all_reduce_s(tpl, act_bytes);
    // Two collectives per layer forward (attention and MLP outputs: all-reduce, or with SP an
    // all-gather + reduce-scatter pair of the same volume), two backward (Narayanan et al.
    // Sec. 3.2: 8bsh(t-1)/t bytes per layer); full recomputation runs the forward's two again.
    const double tp_layer_fwd = c.tp > 1 ? 2 * tp_coll : 0;
    const double tp_layer_bwd = tp_layer_fwd + (c.recompute == Recompute::full ? tp_layer_fwd : 0);

    const GroupLink& cpl = c.link[kCp];
    double cp_layer_f = 0, cp_layer_b = 0;
    if (c.cp > 1) {
        const double kv_bytes = tokens * 2 * s.hkv / tp * 2;
        if (c.seq_split == SeqSplit::ring) {
            const double step = send_recv_s(cpl, kv_bytes);
            cp_layer_f = std::max(0.0, (c.cp - 1) * step - da);           // overlapped with attention
            cp_layer_b = std::max(0.0, 2 * (c.cp - 1) * step - 2.5 * da);
        } else {
            const double qkvo = tokens * (2 * s.hq + 2 * s.hkv) / tp * 2;   // Ulysses: q, k, v, out
            cp_layer_f = all_to_all_s(cpl, hw, qkvo);
            cp_layer_b = cp_layer_f;
        }
    }
    const GroupLink& epl = c.link[kEp];
    double ep_layer = 0;
    if (c.ep > 1 && s.experts > 0) {
        const double tok = tokens / (c.sequence_parallel ? tp : 1.0);
        ep_layer = 2 * all_to_all_s(epl, hw, tok * std::max(1, s.top_k) * s.h * 2);   // dispatch + combine
    }
    const GroupLink& ppl = c.link[kPp];
    const double p2p = pp > 1 && !c.overlap_p2p
                           ? send_recv_s(ppl, act_bytes / (c.sequence_parallel ? tp : 1.0)) *
                                 (is_multi_chunk(c.schedule) ? std::max(1, c.chunks) : 1)
                           : 0;

    const int head = head_stage_of(c);
    std::vector<StageTimes> out(pp);
    for (int i = 0; i < pp; ++i) {
        StageTimes& st = out[i];
        const int layers = i < int(c.layers_per_stage.size()) ? c.layers_per_stage[i] : 0;
        const int nmoe = i < int(c.moe_layers_per_stage.size()) ? c.moe_layers_per_stage[i] : 0;
        const int nd = layers - nmoe;
        const double g = nd * dg + nmoe * mg, a = nd * da + nmoe * ma, e = nd * de + nmoe * me;
        double f = g + a + e;
        double b = 2 * g + 2.5 * a + 2 * e;
        if (c.recompute == Recompute::full) b += f;
        if (c.recompute == Recompute::selective) b += a + (c.flash_attention ? 0 : 0.5 * e);
        st.compute_w = g;
        if (i == head) {
            const double logit = tokens * 2 * s.h * s.vocab / tp / (peak * gemm_efficiency(eff, std::min(tokens, s.h)));
            f += logit;
            b += 2 * logit;
            st.compute_w += logit;
        }
        st.compute_f = f;
        st.compute_b = b;
        st.tp = layers * (tp_layer_fwd + tp_layer_bwd);
        st.cp = layers * (cp_layer_f + cp_layer_b);
        st.ep = nmoe * 2 * ep_layer;
        st.pp = pp > 1 ? 2 * p2p : 0;
        if (c.zero_stage >= 3) {
            // Parameters gathered for forward and backward and gradients reduce-scattered every
            // microbatch, prefetched behind compute.
            const GroupLink& dl = c.link[kDp];
            const double pbytes = params[i].dense * 2;
            const double z = 2 * all_gather_s(dl, pbytes) + reduce_scatter_s(dl, params[i].dense * c.grad_reduce_bytes);
            st.dp = std::max(0.0, z - (c.overlap_param_gather ? (f + b) : 0));
        }
    }
    return out;
}

TimeResult estimate_time(const ModelSpec& m, const LayerShapes& s, const Config& c, const Hardware& hw,
                         const Efficiency& eff, const PipelineFn& pipeline) {
    TimeResult r;
    const int pp = std::max(1, c.pp);
    const int mb = std::max(1, c.num_microbatches);
    const auto params = stage_params(s, c);
    r.stages = stage_times(m, s, c, hw, eff, params);
    std::vector<StageCost> costs;
    costs.reserve(pp);
    for (const auto& st : r.stages) costs.push_back(st.cost());
    r.pipeline = pipeline ? pipeline(c.schedule, pp, mb, std::max(1, c.chunks), costs)
                          : simulate_closed_form(c.schedule, pp, mb, std::max(1, c.chunks), costs);
    double tmax = -1;
    for (int i = 0; i < pp; ++i) {
        const double t = costs[i].f + costs[i].b;
        if (t > tmax) {
            tmax = t;
            r.bottleneck_stage = i;
        }
    }
    const StageTimes& w = r.stages[r.bottleneck_stage];
    r.compute_s = mb * (w.compute_f + w.compute_b);
    r.comm_tp_s = mb * w.tp;
    r.comm_cp_s = mb * w.cp;
    r.comm_ep_s = mb * w.ep;
    r.comm_pp_s = mb * w.pp;
    r.comm_dp_s = mb * w.dp;
    r.bubble_s = std::max(0.0, r.pipeline.makespan_s - r.compute_s - r.comm_tp_s - r.comm_cp_s - r.comm_ep_s -
                                   r.comm_pp_s - r.comm_dp_s);

    // Gradient reduction (and parameter all-gather after a sharded optimizer step).
    double dp_exposed = 0, opt_s = 0, off_s = 0;
    const double hbm = hw.hbm_gbps * 1e9 * eff.hbm;
    for (int i = 0; i < pp; ++i) {
        const double pd = params[i].dense, pe = params[i].expert;
        double t = 0;
        if (c.zero_stage < 3) {
            const bool sharded = c.zero_stage >= 1 || c.distributed_optimizer;
            const GroupLink& dl = c.link[kDp];
            const GroupLink& el = c.link[kEdp];
            if (sharded) {
                t += reduce_scatter_s(dl, pd * c.grad_reduce_bytes) + reduce_scatter_s(el, pe * c.grad_reduce_bytes);
                if (!c.overlap_param_gather) t += all_gather_s(dl, pd * 2) + all_gather_s(el, pe * 2);
            } else {
                t += all_reduce_s(dl, pd * c.grad_reduce_bytes) + all_reduce_s(el, pe * c.grad_reduce_bytes);
            }
        }
        // Stage i finishes its last backward about i backward-steps before stage 0 does.
        const double window = (c.overlap_grad_reduce ? costs[i].b : 0) + i * costs[i].b;
        dp_exposed = std::max(dp_exposed, t - window);
        // Optimizer step: read and write the local states once (memory bound).
        const double zg = (c.zero_stage >= 1 || c.distributed_optimizer) ? std::max(1, c.zero_group) : 1;
        const double local = (pd / zg + pe / std::max(1, (c.zero_stage >= 1 || c.distributed_optimizer) ? c.expert_zero_group : 1));
        const double on_gpu = 1.0 - std::min(1.0, c.offload_optimizer);
        opt_s = std::max(opt_s, on_gpu * local * (c.bytes.weight + c.bytes.grad + 2 * c.bytes.optimizer) / hbm);
        if (c.offload_optimizer > 0) {
            const double moved = local * std::min(1.0, c.offload_optimizer);
            double o = moved / kCpuAdamParamsPerS + moved * (c.bytes.grad + c.bytes.weight) / (kPcieGbs * 1e9);
            if (c.offload_nvme) o += moved * c.bytes.optimizer * 2 / (kNvmeGbs * 1e9);
            off_s = std::max(off_s, o);
        }
    }
    r.comm_dp_s += std::max(0.0, dp_exposed);
    r.optimizer_s = opt_s;
    r.offload_s = off_s;
    r.step_s = r.pipeline.makespan_s + std::max(0.0, dp_exposed) + opt_s + off_s;

    const double sequences = double(c.micro_batch) * mb * std::max(1, c.dp);
    r.flops = step_flops(m, s, sequences, c.seq_len, c.recompute);
    const double world = double(c.tp) * c.pp * c.cp * c.dp;
    const double peak_all = world * hw.peak_tflops * 1e12;
    if (r.step_s > 0) {
        r.mfu = r.flops.model / (r.step_s * peak_all);
        r.hfu = r.flops.hardware / (r.step_s * peak_all);
        r.tokens_per_s = sequences * c.seq_len / r.step_s;
        r.tflops_per_gpu = r.flops.hardware / r.step_s / world / 1e12;
    }
    return r;
}

}  // namespace paraplan::estimate
