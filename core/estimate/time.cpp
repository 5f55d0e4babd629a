#include "estimate/time.h"

#include "estimate/comm.h"
#include "estimate/hybrid.h"
#include "estimate/lora.h"
#include "estimate/moe.h"
#include "estimate/comm_terms.h"
#include "project/framework.h"

#include <algorithm>

namespace paraplan::estimate {

namespace {

int head_stage_of(const Config& c) { return c.head_stage >= 0 ? c.head_stage : std::max(0, c.pp - 1); }

// CPU Adam throughput per GPU process and host link, for offloaded optimizer steps
// (ZeRO-Offload, Ren et al. 2021: CPU-Adam updates ~1B parameters/s per process; PCIe 4 x16 ~ 25 GB/s).
constexpr double kCpuAdamParamsPerS = 1e9;
constexpr double kPcieGbs = 25;
constexpr double kNvmeGbs = 3;

}   // namespace

std::vector<StageTimes> stage_times(const ModelSpec& m, const LayerShapes& s, const Config& c, const Hardware& hw,
                                    const Efficiency& eff, const std::vector<ShardedCounts>& params) {
    const int pp = std::max(1, c.pp);
    const double tp = std::max(1, c.tp), cp = std::max(1, c.cp);
    const double peak = hw.peak_tflops * 1e12;
    // FP8 applies to the linear layers' GEMMs only (torchao Float8Linear swaps nn.Linear; TE's
    // fp8_autocast covers its Linear/LayerNormLinear/LayerNormMLP); the output layer, attention,
    // norms, the optimizer and the collectives stay 16/32-bit.
    // FP4 likewise (TE NVFP4BlockScaling sets fp8_dpa / fp8_mha off: attention stays 16-bit), its
    // fprop, dgrad and wgrad all in FP4, except the layers the framework keeps in BF16.
    const LinearFormat narrow = linear_format(c, hw);
    const double hbm = hw.hbm_gbps * 1e9 * eff.hbm;
    const double tokens = double(c.micro_batch) * c.seq_len / cp;   // per GPU sequence share
    const double seq = c.seq_len;

    // One layer, forward, per GPU.
    // lf: the format this layer's linear GEMMs run in (narrow, or wide in a layer kept in BF16).
    auto layer_fwd = [&](bool moe, LinearFormat lf, double& gemm_s, double& attn_s, double& elem_s, double& w_s) {
        const double peak_lin = linear_peak_flops(lf, hw);
        auto lin_eff = [&](double d) { return linear_gemm_efficiency(lf, eff, d); };
        const double cast_bytes = linear_cast_bytes(lf, eff);
        const LayerFlops f = layer_flops_per_token(s, moe, seq);
        const double d_dense = std::min(tokens, s.h / tp);
        double g = 0;
        if (moe) {
            const double attn_gemm = 2 * s.attn_params + 2 * (s.shared_params + s.router_params);
            g += tokens * attn_gemm / tp / (peak_lin * lin_eff(d_dense));
            // Routed experts: grouped GEMMs at the rows each local expert really gets, on the
            // busiest EP rank (moe.h); FP8 when the linear layers are FP8.
            g += expert_gemm_fwd_s(s, c, hw, eff, lf);
        } else {
            g = tokens * f.gemm / tp / (peak_lin * lin_eff(d_dense));
        }
        gemm_s = g;
        w_s = g;
        const double attn_flops = tokens * f.attention / tp;
        // Flash kernels skip the blocks above the diagonal of a causal mask (Dao 2023); the
        // FLOP count keeps the full s^2 as Megatron's formula does.
        attn_s = c.flash_attention ? eff.causal_attention * attn_flops / (peak * eff.attention)
                                   : attn_flops / (peak * gemm_efficiency(eff, s.hq / std::max(1, s.heads)));
        // PyTorch's ring attention (torch.distributed.tensor.experimental.context_parallel, which
        // torchtitan uses; _templated_ring_attention in _attention.py, the same from late-2024
        // builds to main) with its round-robin load balance: step 0 is the ordinary causal SDPA
        // call on the rank's own q/k/v (the call a cp 1 run makes; 1/cp of the rank's attention
        // work); each of the cp - 1 later steps is one non-causal call on half the local queries
        // or half the received keys/values, whose output and log-sum-exp are merged in eager
        // fp32 ops (forward) and whose k/v gradients are accumulated in fp32 and passed on
        // (backward). Only those steps run at the ring rate; TE's CP keeps one fused kernel.
        if (c.cp > 1 && c.seq_split == SeqSplit::ring && c.kernels != KernelStack::te)
            attn_s *= 1 / cp + (cp - 1) / cp / eff.ring_sdpa;
        const ActivationInputs ai = activation_inputs(c, seq);
        const LayerActivation a = layer_activation(s, moe, ai);
        elem_s = (eff.elementwise_passes * (a.replicated + a.sharded) + eff.score_passes * a.scores) / hbm;
        if (lf != LinearFormat::wide) {
            // Cast + scale passes over each FP8 GEMM's activation operand (the backward's
            // output-gradient casts come in with backward = 2 x forward): the QKV and MLP-up
            // inputs (full h; a local shard with SP, all-gathered in FP8), the output-projection
            // and MLP-down inputs (sharded by tp).
            // torchtitan's rowwise recipe gathers the 16-bit input and each Float8Linear casts the
            // gathered tensor (FrameworkTraits::fp8_linear_casts_gathered_input; 820504e
            // parallelize_llama.py: "for rowwise recipes ... all-gather happens in high precision").
            const FrameworkTraits* ft = find_traits(c.framework);
            const bool gathered_cast = lf == LinearFormat::fp8 && ft && ft->fp8_linear_casts_gathered_input &&
                                       std::find(ft->fp8_tp_gather_recipes.begin(), ft->fp8_tp_gather_recipes.end(),
                                                 *c.fp8) == ft->fp8_tp_gather_recipes.end();
            const double h_in = s.h / (c.sequence_parallel && !gathered_cast ? tp : 1.0);
            double cast = tokens * (2 * h_in + s.hq / tp + s.ffn / tp) * cast_bytes;
            if (moe) {
                // Routed experts: TE GroupedLinear quantizes the permuted rows the rank received
                // (tex.split_quantize of fc1's input, h wide, and of fc2's, expert_ffn / etp wide;
                // grouped_linear.py, TE release_v2.16): load x T x top_k x etp / tp rows, not the
                // layer's T; a shared expert is a dense TP MLP on the layer's own tokens.
                const double rows = moe_load_factor(c.moe) * tokens * std::max(1, s.top_k) * std::max(1, c.etp) / tp;
                cast = tokens * (h_in + s.hq / tp) * cast_bytes +
                       rows * (s.h + s.expert_ffn / std::max(1, c.etp)) * cast_bytes;
                if (s.shared_ffn > 0) cast += tokens * (h_in + s.shared_ffn / tp) * cast_bytes;
            }
            // Without TE's per-step weight cache (is_first_microbatch) every microbatch casts
            // the weights again (torchao Float8Linear).
            if (c.kernels != KernelStack::te) {
                const ShardedCounts lp = layer_params_per_gpu(s, moe, c.tp, c.ep, c.etp);
                cast += (lp.dense + lp.expert) * cast_bytes;
            }
            elem_s += cast / hbm;
        }
    };
    // LoRA (lora.h): the adapters' own GEMMs, r wide, per layer and microbatch (forward); their
    // backward is twice that (input and weight gradients). The frozen linears skip their weight
    // gradients, so a layer's GEMM backward is the input gradient alone, 1x its forward.
    const bool lora = c.lora.on();
    auto lora_fwd_s = [&](bool moe) {
        if (!lora) return 0.0;
        return tokens * lora_fwd_flops_per_token(s, moe, c.lora) / tp / (peak * gemm_efficiency(eff, c.lora.rank));
    };
    const double dl = lora_fwd_s(false), ml = s.experts > 0 ? lora_fwd_s(true) : dl;
    const double wgrad = lora ? 0.0 : 1.0;   // weight-gradient GEMMs per forward GEMM
    double dg, da, de, dw, mg = 0, ma = 0, me = 0, mw = 0;
    layer_fwd(false, narrow, dg, da, de, dw);
    if (s.experts > 0) layer_fwd(true, narrow, mg, ma, me, mw);
    // The layers kept in BF16 with FP4 (Config::fp4_bf16_layers_at_start / _end): their GEMMs at the
    // 16-bit peak and no casts; the first ones on the embedding's stage, the last on the head's.
    double dg16 = dg, de16 = de, mg16 = mg, me16 = me, unused = 0;
    if (narrow == LinearFormat::fp4) {
        layer_fwd(false, LinearFormat::wide, dg16, unused, de16, unused);
        if (s.experts > 0) layer_fwd(true, LinearFormat::wide, mg16, unused, me16, unused);
    }
    auto bf16_layers = [&](int stage, bool moe) {
        int n = 0;
        if (narrow != LinearFormat::fp4) return n;
        for (int k = 0; k < m.layers; ++k) {
            const bool first = k < c.fp4_bf16_layers_at_start, last = k >= m.layers - c.fp4_bf16_layers_at_end;
            const int at = first ? c.embedding_stage : last ? head_stage_of(c) : -1;
            if (at == stage && (s.experts > 0 && m.is_moe_layer(k)) == moe) ++n;
        }
        return n;
    };
    // Per-expert GEMM and FP8-cast kernels of a MoE layer, exposed by its token-count sync (moe.h).
    const MoeKernels mk = moe_expert_kernels(c, s);

    // Communication per layer per microbatch (comm_terms.h): TP, CP and PP.
    const LayerComm lc = layer_comm(s, c, hw, da, tp_gemms(s, dg));
    // Dispatch + combine per MoE layer (moe.h). Where the framework overlaps them with another
    // microbatch's compute (Megatron --overlap-moe-expert-parallel-comm pairs one microbatch's
    // forward with another's backward; DualPipe, DeepSeek-V3 report Sec. 3.2.1, overlaps both
    // all-to-alls of a forward/backward chunk pair), only what exceeds the layer's compute shows.
    const MoeComm ep_layer = s.experts > 0 ? moe_comm(s, c, hw) : MoeComm{};
    auto moe_layer_comm = [&](double layer_f, double layer_b) {
        const double t = ep_layer.fwd_s + ep_layer.bwd_s;
        return c.moe.overlap ? std::max(0.0, t - (layer_f + layer_b)) : t;
    };
    // A MoE layer keeps the attention block's TP collectives; its routed MLP moves tokens through
    // the dispatcher instead (moe_comm, with the expert-TP all-gather), and a shared expert is a
    // TP-parallel MLP with its own pair (Megatron SharedExpertMLP; with the TP overlap it is
    // hidden as the dense MLP's pair is).
    const double moe_layer_tp = s.shared_ffn > 0 ? lc.tp_fwd_s + lc.tp_bwd_s : lc.tp_attn_s;

    // Hybrid Mamba models (hybrid.h): each pattern layer is one mixer, priced on its own: its GEMMs
    // (Mamba in_proj + out_proj, attention q/k/v/o, MLP, MoE's shared expert and router besides the
    // routed experts), its core (the attention kernel; the Mamba-2 SSD scan, Megatron's 7 d_inner N
    // FLOPs per token, at the attention kernels' rate: SSD runs as chunked matmuls, Dao & Gu 2024
    // Sec. 6) and its elementwise passes over what it saves (hybrid_layer_activation).
    struct KindTimes {
        double g = 0, a = 0, e = 0;
    };
    KindTimes kt[4];   // in kHybridKinds order: M * - E
    if (c.hybrid) {
        const double gemm_rate = linear_peak_flops(narrow, hw) *
                                 linear_gemm_efficiency(narrow, eff, std::min(tokens, s.h / tp));
        const ActivationInputs ai = activation_inputs(c, seq);
        auto elem = [&](char k) {
            const LayerActivation x = hybrid_layer_activation(s, k, ai);
            return (eff.elementwise_passes * (x.replicated + x.sharded) + eff.score_passes * x.scores) / hbm;
        };
        const double attn_g = tokens * 2 * s.attn_params / tp / gemm_rate;
        kt[0] = {tokens * 2 * s.mamba_proj_params / tp / gemm_rate,
                 tokens * 7 * s.mamba_d_inner * s.mamba_state / tp / (peak * eff.attention), elem('M')};
        kt[1] = {attn_g, da, elem('*')};
        kt[2] = {tokens * 2 * s.dense_mlp_params / tp / gemm_rate, 0, elem('-')};
        if (s.experts > 0) kt[3] = {std::max(0.0, mg - attn_g), 0, elem('E')};
    }

    const int head = head_stage_of(c);
    const bool shares_nics = reduction_shares_nics(c);
    std::vector<StageTimes> out(pp);
    double z3_compute = -1, z3_exposed = 0;   // the last stage's ZeRO-3 window and gathers, reused by a stage like it
    Zero3Volume z3_volume;
    // ZeRO-3 reduce-scatters what the stage trains (the adapters alone with LoRA, lora.h) and gathers
    // LoRA's frozen linears as stored.
    const bool z3 = c.zero_stage >= 3;
    const auto z3_trained = z3 ? stage_trained_params(s, c) : std::vector<ShardedCounts>{};
    const auto z3_base = z3 ? stage_base_linear_params(s, c) : std::vector<ShardedCounts>{};
    for (int i = 0; i < pp; ++i) {
        StageTimes& st = out[i];
        const int layers = i < int(c.layers_per_stage.size()) ? c.layers_per_stage[i] : 0;
        const int nmoe = i < int(c.moe_layers_per_stage.size()) ? c.moe_layers_per_stage[i] : 0;
        const int nd = layers - nmoe;
        const int bd = std::min(nd, bf16_layers(i, false)), bm = std::min(nmoe, bf16_layers(i, true));
        const double g = (nd - bd) * dg + bd * dg16 + (nmoe - bm) * mg + bm * mg16, a = nd * da + nmoe * ma,
                     e = (nd - bd) * de + bd * de16 + (nmoe - bm) * me + bm * me16;
        const double lf = nd * dl + nmoe * ml;
        double f = g + a + e + nmoe * mk.fwd_s + lf;
        double b = (1 + wgrad) * g + 2.5 * a + 2 * e + nmoe * mk.bwd_s + 2 * lf;
        if (c.recompute == Recompute::full) b += f;
        if (c.recompute == Recompute::selective) {
            if (const FrameworkTraits* ft = find_traits(c.framework); ft && ft->op_sac)
                b += op_sac_recomputed_gemm_share(s) * (nd * dg) + nmoe * mg + e;
            else b += a + (c.flash_attention ? 0 : 0.5 * e);
        }
        st.compute_w = wgrad * g + lf;
        const double moe_f = mg + ma + me;
        const double moe_b = 2 * mg + 2.5 * ma + 2 * me + (c.recompute == Recompute::full ? moe_f : 0);
        st.ep = nmoe * moe_layer_comm(moe_f, moe_b);
        int nkind[4] = {0, 0, 0, 0};
        if (c.hybrid) {
            double hg = 0, ha = 0, he = 0;
            for (int k = 0; k < 4; ++k) {
                nkind[k] = hybrid_stage_layers(c, i, kHybridKinds[k]);
                hg += nkind[k] * kt[k].g;
                ha += nkind[k] * kt[k].a;
                he += nkind[k] * kt[k].e;
            }
            f = hg + ha + he + nmoe * mk.fwd_s;
            b = (1 + wgrad) * hg + 2.5 * ha + 2 * he + nmoe * mk.bwd_s;
            if (c.recompute == Recompute::full) b += f;
            if (c.recompute == Recompute::selective) b += nkind[1] * kt[1].a;   // attention cores only
            st.compute_w = wgrad * hg;
            const double ef = kt[3].g + kt[3].e, eb = 2 * kt[3].g + 2 * kt[3].e;
            st.ep = nmoe * moe_layer_comm(ef, eb + (c.recompute == Recompute::full ? ef : 0));
        }
        double mtp_layers = 0, ep_mtp_layers = 0;
        if (i == head) {
            const double logit = tokens * 2 * s.h * s.vocab / tp / (peak * gemm_efficiency(eff, std::min(tokens, s.h)));
            f += logit;
            b += (1 + wgrad) * logit;
            st.compute_w += wgrad * logit;
            if (c.moe.mtp_layers > 0 && m.layers > 0 && !c.hybrid) {
                // Multi-token prediction (DeepSeek-V3 report Sec. 2.2; Megatron puts the MTP block
                // after the decoder on the last stage): per module one transformer layer like the
                // model's last, the h x 2h projection of [norm(h); norm(emb)] and another pass
                // through the shared output head (Megatron num_floating_point_operations counts
                // the same, core_v0.19.0 training.py).
                const bool last_moe = s.experts > 0 && m.is_moe_layer(m.layers - 1);
                const double lg = last_moe ? mg : dg, la = last_moe ? ma : da, le = last_moe ? me : de;
                const double proj = tokens * 2 * 2 * s.h * s.h / tp /
                                    (peak * gemm_efficiency(eff, std::min(tokens, s.h)));
                mtp_layers = c.moe.mtp_layers;
                const double mf = mtp_layers * (lg + la + le + proj + logit + (last_moe ? mk.fwd_s : 0));
                f += mf;
                b += mtp_layers * (2 * (lg + proj + logit) + 2.5 * la + 2 * le + (last_moe ? mk.bwd_s : 0)) +
                     (c.recompute == Recompute::full ? mtp_layers * (lg + la + le) : 0);
                st.compute_w += mtp_layers * (lg + proj + logit);
                if (last_moe) {
                    st.ep += mtp_layers * moe_layer_comm(moe_f, moe_b);
                    ep_mtp_layers = mtp_layers;
                }
            }
        }
        st.compute_f = f;
        st.compute_b = b;
        st.tp = (nd + mtp_layers) * (lc.tp_fwd_s + lc.tp_bwd_s) + nmoe * moe_layer_tp;
        st.cp = (layers + mtp_layers) * (lc.cp_fwd_s + lc.cp_bwd_s);
        st.pp = 2 * lc.pp_s;
        if (c.hybrid) {
            // One TP collective pair per pattern layer: a Mamba mixer's in_proj / out_proj are
            // column / row parallel as attention's are (mamba_mixer.py), an MLP layer's the MLP's
            // pair, a MoE layer's only with a shared expert. CP: ring attention in the attention
            // layers; the Mamba layers' all-to-all (mamba_context_parallel.py) is not priced.
            const double mlp_pair = lc.tp_fwd_s + lc.tp_bwd_s - lc.tp_attn_s;
            st.tp = (nkind[0] + nkind[1]) * lc.tp_attn_s + nkind[2] * mlp_pair +
                    nkind[3] * (s.shared_ffn > 0 ? mlp_pair : 0.0);
            st.cp = nkind[1] * (lc.cp_fwd_s + lc.cp_bwd_s);
        }
        // Link sharing (reduction_shares_nics): the EP, CP and PP groups' wire seconds per microbatch,
        // on the NICs where they cross the scale-out, and what of them the step does not expose (ran
        // under the compute).
        double wire_hidden = 0;
        if (shares_nics) {
            auto on_nic = [&](GroupKind k, double fwd, double bwd, double exposed) {
                if (!crosses_scale_out(c.link[k])) return;
                st.nic_b += bwd;
                wire_hidden += std::max(0.0, fwd + bwd - exposed);
            };
            const double ep_layers = nmoe + ep_mtp_layers;
            on_nic(kEp, ep_layers * ep_layer.fwd_s, ep_layers * ep_layer.bwd_s, st.ep);
            const double cp_layers = c.hybrid ? nkind[1] : layers + mtp_layers;
            on_nic(kCp, cp_layers * lc.cp_fwd_count * lc.cp_call_s, cp_layers * lc.cp_bwd_count * lc.cp_call_s, st.cp);
            on_nic(kPp, lc.pp_wire_s, lc.pp_wire_s, st.pp);
        }
        // ZeRO-3: parameters gathered for forward and backward and gradients reduce-scattered
        // every microbatch, prefetched behind compute, less the time the other groups' hidden
        // traffic holds the shared NICs.
        if (c.zero_stage >= 3) {
            const double window = std::max(0.0, f + b - wire_hidden);
            const Zero3Volume v = zero3_volume(params[i], z3_trained[i], z3_base[i], c);
            if (i == 0 || window != z3_compute || v.gather_bytes != z3_volume.gather_bytes ||
                v.grad_bytes != z3_volume.grad_bytes) {
                z3_compute = window;
                z3_volume = v;
                z3_exposed = zero3_comm(v, c, z3_compute).exposed_s;
            }
            st.dp = z3_exposed;
        }
    }
    return out;
}

std::vector<double> closed_form_inflight(const Config& c) {
    // As estimate_time() calls simulate_closed_form: one stage cost per pipeline rank.
    const int pp = std::max(1, c.pp);
    return closed_form_inflight(c.schedule, pp, std::max(1, c.num_microbatches), std::max(1, c.chunks), pp);
}

TimeResult estimate_time(const ModelSpec& m, const LayerShapes& s, const Config& c, const Hardware& hw,
                         const Efficiency& eff, const PipelineFn& pipeline) {
    TimeResult r;
    const int pp = std::max(1, c.pp);
    const int mb = std::max(1, c.num_microbatches);
    // Gradient accumulation over pipeline flushes (Config::grad_accum_steps): each flush is the
    // schedule's own makespan with its own fill and drain, back to back (ColossalAI's
    // execute_pipeline and torchtitan's pp_schedule.step each run one flush to completion), so
    // a step of k flushes of m microbatches takes k x makespan(m) -- for 1F1B k bubbles of
    // (p - 1)/m of the flush's work rather than one of (p - 1)/(k m).
    const int flushes = std::max(1, c.grad_accum_steps);
    const auto params = stage_params(s, c);
    // What the gradient reduction and the optimizer step touch: the adapters alone with LoRA.
    const auto trained = stage_trained_params(s, c);
    const auto fp8_weights = stage_trained_fp8_weights(s, c);
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
    const double step_mb = double(flushes) * mb;   // microbatches per optimizer step per replica
    const double flushes_s = flushes * r.pipeline.makespan_s;
    r.compute_s = step_mb * (w.compute_f + w.compute_b);
    r.comm_tp_s = step_mb * w.tp;
    r.comm_cp_s = step_mb * w.cp;
    r.comm_ep_s = step_mb * w.ep;
    r.comm_pp_s = step_mb * w.pp;
    r.comm_dp_s = step_mb * w.dp;
    r.bubble_s = std::max(
        0.0, flushes_s - r.compute_s - r.comm_tp_s - r.comm_cp_s - r.comm_ep_s - r.comm_pp_s - r.comm_dp_s);

    // Gradient reduction (and parameter all-gather after a sharded optimizer step).
    double dp_exposed = 0, opt_s = 0, off_s = 0;
    const double hbm = hw.hbm_gbps * 1e9 * eff.hbm;
    double t = 0;
    for (int i = 0; i < pp; ++i) {
        const double pd = trained[i].dense, pe = trained[i].expert;
        // A stage holding what the one before holds runs the same reduction (the middle stages).
        const bool as_before = i > 0 && pd == trained[i - 1].dense && pe == trained[i - 1].expert &&
                               fp8_weights[i].dense == fp8_weights[i - 1].dense &&
                               fp8_weights[i].expert == fp8_weights[i - 1].expert;
        if (!as_before) {
            t = 0;
            for (const CommCall& k : grad_sync(trained[i], fp8_weights[i], c)) t += k.seconds;
        }
        const double window = grad_sync_window_s(c, costs[i], i, r.stages[i].nic_b);
        dp_exposed = std::max(dp_exposed, t - window);
        // Optimizer step: read and write the local states once (memory bound).
        const double zg = (c.zero_stage >= 1 || c.distributed_optimizer) ? std::max(1, c.zero_group) : 1;
        const double local =
            (pd / zg + pe / std::max(1, (c.zero_stage >= 1 || c.distributed_optimizer) ? c.expert_zero_group : 1));
        const double on_gpu = 1.0 - std::min(1.0, c.offload_optimizer);
        opt_s = std::max(opt_s, on_gpu * local * (c.bytes.weight + c.bytes.grad + 2 * c.bytes.optimizer) / hbm);
        if (c.offload_optimizer > 0) {
            const double moved = local * std::min(1.0, c.offload_optimizer);
            double o = moved / kCpuAdamParamsPerS + moved * (c.bytes.grad + c.bytes.weight) / (kPcieGbs * 1e9);
            if (c.offload_nvme) o += moved * c.bytes.optimizer * 2 / (kNvmeGbs * 1e9);
            off_s = std::max(off_s, o);
        }
    }
    // Once per step, after the last flush; after every flush where the framework reduces then.
    r.grad_sync_exposed_s = std::max(0.0, dp_exposed);
    r.grad_syncs = c.grad_sync_each_flush ? flushes : 1;
    const double syncs_s = r.grad_syncs_s();
    r.comm_dp_s += syncs_s;
    r.optimizer_s = opt_s;
    r.offload_s = off_s;
    r.step_s = flushes_s + syncs_s + opt_s + off_s;

    const double sequences = double(c.micro_batch) * step_mb * std::max(1, c.dp);
    r.flops = step_flops(m, s, sequences, c.seq_len, c.recompute, c.moe.mtp_layers, c.lora);
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

}   // namespace paraplan::estimate
