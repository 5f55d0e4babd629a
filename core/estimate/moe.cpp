#include "estimate/moe.h"

#include "estimate/comm.h"
#include "estimate/comm_terms.h"
#include "project/framework.h"

#include <algorithm>
#include <cmath>

namespace paraplan::estimate {

namespace {

// DeepEP's FP8 dispatch: e4m3 values plus one fp32 scale per 128 (DeepEP README, "FP8
// dispatching and BF16 combining"; DeepSeek-V3 report Sec. 3.3.2 / 3.3.3, 1x128 tiles).
constexpr double kFp8DispatchBytes = 1.0 + 4.0 / 128.0;
constexpr double kBf16Bytes = 2.0;

// DeepEP normal kernels (DeepEP README, "kernels optimized for asymmetric-domain bandwidth
// forwarding, such as forwarding data from NVLink domain to RDMA domain"): a token crosses
// the network once per destination node, then is forwarded over NVLink to the GPUs holding
// its experts. The README's measured bottleneck bandwidths reach the links' limits (H800:
// 153-158 of ~160 GB/s NVLink; 43-58 GB/s logical RDMA on a ~50 GB/s CX7), so both links
// are taken at their nominal bandwidth like the other collectives here.
double deepep_s(const GroupLink& l, const Hardware& hw, const LayerShapes& s, double routed_bytes, double token_bytes) {
    if (l.size <= 1 || routed_bytes <= 0) return 0;
    // On the cluster's tiers a "node" of DeepEP is a scale-up domain: its intranode kernels reach
    // every GPU of an NVLink domain larger than a tray.
    const int domains = l.fabric ? l.fabric->nodes : l.nodes;
    const int per_domain = l.fabric ? l.fabric->ppn : l.members_per_node;
    const double intra = (l.fabric ? l.fabric->intra_gbps : hw.intra_node_gbps) * 1e9;
    if (domains <= 1) return routed_bytes * (l.size - 1) / l.size / intra + l.latency_s;
    const double remote_nodes = nodes_reached(s.experts, s.top_k, domains) * (domains - 1) / domains;
    const double rdma = token_bytes * remote_nodes;
    const double nvl = routed_bytes * (per_domain - 1) / std::max(1, per_domain);
    const double nic = (l.fabric ? l.fabric->a2a_nic_gbps : hw.inter_node_gbits / 8.0 / std::max(1, hw.gpus_per_node)) *
                       1e9;
    return std::max(rdma / nic, nvl / intra) + l.latency_s;
}

}   // namespace

double moe_load_factor(const MoeOptions& o) {
    double load = o.imbalance > 0 ? o.imbalance : kDefaultMoeImbalance;
    if (o.capacity_factor > 0) load = std::min(load, o.capacity_factor);
    return std::max(1.0, load);
}

double moe_tokens_in(const Config& c) {
    const double tokens = double(c.micro_batch) * c.seq_len / std::max(1, c.cp);
    return tokens / (c.sequence_parallel ? std::max(1, c.tp) : 1.0);
}

double tokens_per_expert(const LayerShapes& s, const Config& c) {
    if (s.experts <= 0) return 0;
    const double tokens = double(c.micro_batch) * c.seq_len / std::max(1, c.cp);
    return tokens * std::max(1, s.top_k) * std::max(1, c.ep) * std::max(1, c.etp) /
           (double(s.experts) * std::max(1, c.tp));
}

double expert_gemm_fwd_s(const LayerShapes& s, const Config& c, const Hardware& hw, const Efficiency& eff) {
    return expert_gemm_fwd_s(s, c, hw, eff, linear_format(c, hw));
}

double expert_gemm_fwd_s(const LayerShapes& s, const Config& c, const Hardware& hw, const Efficiency& eff,
                         LinearFormat f) {
    if (s.experts <= 0) return 0;
    const double load = moe_load_factor(c.moe);
    const double tokens = double(c.micro_batch) * c.seq_len / std::max(1, c.cp);
    // Balanced routing spreads a microbatch's expert FLOPs over the tp ranks that held it
    // (Megatron num_floating_point_operations, core_v0.19.0 training.py: routed experts
    // 2 x 3 x h x moe_ffn x topk per token for SwiGLU); the busiest GPU does `load` times that.
    const double flops = load * tokens * std::max(1, s.top_k) * 2 * s.expert_params / std::max(1, c.tp);
    const double rows = load * tokens_per_expert(s, c);
    // Expert linear layers run in FP8 or FP4 like the dense ones (TE grouped linear / torchao), at that
    // format's peak and the narrow formats' lower ceiling (efficiency.h).
    Efficiency ge = eff;
    if (f != LinearFormat::wide) ge.gemm_max = eff.gemm_max_fp8 > 0 ? eff.gemm_max_fp8 : eff.gemm_max;
    return flops / (linear_peak_flops(f, hw) * grouped_gemm_efficiency(ge, rows));
}

double grouped_gemm_efficiency(const Efficiency& eff, double rows) {
    rows = std::max(1.0, rows);
    return eff.gemm_max * rows / (rows + kGroupedGemmHalfRows);
}

MoeKernels moe_expert_kernels(const Config& c, const LayerShapes& s) {
    MoeKernels k;
    const FrameworkTraits* ft = find_traits(c.framework);
    if (s.experts <= 0 || !ft || !ft->moe_per_expert_launches) return k;
    const double local = double(s.experts) / std::max(1, c.ep);
    double quantize = 0;   // kernels per quantization of one expert's operand
    if (c.fp8) switch (*c.fp8) {
        case Fp8Recipe::delayed: break;   // one fused multi_cast_transpose for all experts
        case Fp8Recipe::tensorwise:
        case Fp8Recipe::rowwise: quantize = 3; break;
        case Fp8Recipe::mxfp8:
        case Fp8Recipe::blockwise: quantize = 1; break;
        }
    // NVFP4 / MXFP4 experts: one grouped quantize per operand, as the block-scaled FP8 recipes (TE's
    // grouped NVFP4 quantization, which Megatron core_v0.16.0 fp4_utils.py get_fp4_align_size pads for).
    if (c.fp4 != Fp4Recipe::none) quantize = 1;
    k.fwd = local * (2 + 2 * quantize);   // fc1, fc2 and their inputs' casts
    k.bwd = local * (4 + 2 * quantize);   // dgrad + wgrad of both, the output gradients' casts
    k.fwd_s = k.fwd * kMoeKernelS;
    k.bwd_s = k.bwd * kMoeKernelS;
    return k;
}

double nodes_reached(int experts, int top_k, int nodes) {
    if (nodes <= 1 || experts <= 0 || top_k <= 0) return nodes >= 1 ? 1.0 : 0.0;
    const double E = experts, per_node = double(experts) / nodes;
    // P(no expert of a given node among k distinct picks) = C(E - E/N, k) / C(E, k).
    double miss = 1;
    for (int i = 0; i < top_k; ++i) miss *= std::max(0.0, (E - per_node - i) / (E - i));
    return nodes * (1 - miss);
}

MoeBytes moe_bytes(const LayerShapes& s, const Config& c) {
    MoeBytes b;
    if (s.experts <= 0 || (c.ep <= 1 && c.etp <= 1)) return b;
    const double load = moe_load_factor(c.moe);
    const double t_in = moe_tokens_in(c);
    const double k = std::max(1, s.top_k);
    const double routed = t_in * k * s.h * load;   // elements each way, busiest rank
    if (c.ep > 1) {
        if (c.moe.dispatcher == MoeDispatcher::allgather) {
            // MoEAllGatherTokenDispatcher (core_v0.19.0): every rank gathers the hidden states of
            // its TP x EP group and reduce-scatters the expert outputs back; no top_k copies.
            const double gathered = t_in * s.h * kBf16Bytes * c.ep * std::max(1, c.etp);
            b.dispatch_fwd = b.combine_fwd = b.dispatch_bwd = b.combine_bwd = gathered;
        } else {
            b.dispatch_fwd = routed * (c.moe.fp8_dispatch ? kFp8DispatchBytes : kBf16Bytes);
            b.combine_fwd = b.dispatch_bwd = b.combine_bwd = routed * kBf16Bytes;
            // ColossalAI's fp8_communication: the forward dispatch and combine in FP8 across nodes
            // (v0.5.1 shardformer/modeling/mixtral.py all_to_all_uneven(..., fp8_communication) ->
            // moe/_operation.py _all_to_all -> all_to_all_single_fp8); AllToAllUneven.backward sends
            // the gradients in 16-bit.
            if (fp8_gather_of(c) == Fp8Gather::wire_casts) {
                const double wire = fp8_wire_bytes(c, c.link[kEp]);
                b.dispatch_fwd = routed * wire;
                b.combine_fwd = routed * wire;
            }
        }
    }
    // The received tokens are all-gathered over the expert-TP group (innermost in Megatron's
    // expert order tp-ep-dp-pp) and the outputs reduce-scattered back.
    if (c.etp > 1 && c.moe.dispatcher != MoeDispatcher::allgather) b.etp_gathered = routed * kBf16Bytes * c.etp;
    return b;
}

MoeComm moe_comm(const LayerShapes& s, const Config& c, const Hardware& hw) {
    MoeComm r;
    if (s.experts <= 0 || (c.ep <= 1 && c.etp <= 1)) return r;
    const MoeBytes b = moe_bytes(s, c);
    const double k = std::max(1, s.top_k);
    const GroupLink& epl = c.link[kEp];
    if (c.ep > 1) {
        switch (c.moe.dispatcher) {
        case MoeDispatcher::alltoall:
            r.fwd_s = all_to_all_s(epl, hw, b.dispatch_fwd) + all_to_all_s(epl, hw, b.combine_fwd);
            r.bwd_s = all_to_all_s(epl, hw, b.dispatch_bwd) + all_to_all_s(epl, hw, b.combine_bwd);
            break;
        case MoeDispatcher::allgather:
            r.fwd_s = all_gather_s(epl, b.dispatch_fwd) + reduce_scatter_s(epl, b.combine_fwd);
            r.bwd_s = all_gather_s(epl, b.dispatch_bwd) + reduce_scatter_s(epl, b.combine_bwd);
            break;
        case MoeDispatcher::deepep: {
            // A token crosses the network once per node, not once per expert: 1/top_k of the routed
            // bytes. The network leg delivers to a whole node, whose experts' load averages over
            // its members_per_node ranks: with independent rank loads the excess over the balanced
            // share shrinks by sqrt(members_per_node) (an assumption, docs/accuracy.md).
            const double load = moe_load_factor(c.moe);
            const double node_load = 1 + (load - 1) / std::sqrt(double(std::max(1, epl.members_per_node)));
            const double net = node_load / (load * k);
            r.fwd_s = deepep_s(epl, hw, s, b.dispatch_fwd, b.dispatch_fwd * net) +
                      deepep_s(epl, hw, s, b.combine_fwd, b.combine_fwd * net);
            r.bwd_s = deepep_s(epl, hw, s, b.dispatch_bwd, b.dispatch_bwd * net) +
                      deepep_s(epl, hw, s, b.combine_bwd, b.combine_bwd * net);
            break;
        }
        }
    }
    if (b.etp_gathered > 0) {
        const GroupLink etpl = strided_link(hw, c.etp, 1);
        const double t = all_gather_s(etpl, b.etp_gathered) + reduce_scatter_s(etpl, b.etp_gathered);
        r.fwd_s += t;
        r.bwd_s += t;
    }
    return r;
}

}   // namespace paraplan::estimate
