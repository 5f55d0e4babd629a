#include "estimate/comm_terms.h"

#include "estimate/comm.h"
#include "estimate/efficiency.h"
#include "project/framework.h"

#include <algorithm>

namespace paraplan::estimate {

const char* to_string(CollectiveOp op) {
    switch (op) {
    case CollectiveOp::all_reduce: return "all-reduce";
    case CollectiveOp::all_gather: return "all-gather";
    case CollectiveOp::reduce_scatter: return "reduce-scatter";
    case CollectiveOp::all_to_all: return "all-to-all";
    case CollectiveOp::send_recv: return "send/recv";
    }
    return "all-reduce";
}

double wire_factor(CollectiveOp op, int n) {
    if (op == CollectiveOp::send_recv) return 1;
    if (n <= 1) return 0;
    const double f = double(n - 1) / n;
    return op == CollectiveOp::all_reduce ? 2 * f : f;
}

double fp8_wire_bytes(const Config& c, const GroupLink& l) {
    // ColossalAI v0.5.1 colossalai/quantization/fp8.py: all_gather_fp8, all_to_all_fp8 and
    // all_to_all_single_fp8 cast to FP8 only when process_group_is_intranode(group) is false, and
    // call the plain 16-bit collective inside a node; all_reduce_fp8 and reduce_scatter_fp8 always
    // fall back to the plain collective ("fall back to default op due to performance issue").
    return fp8_gather_of(c) == Fp8Gather::wire_casts && l.nodes > 1 ? 1.0 : 2.0;
}

TpGemms tp_gemms(const LayerShapes& s, double dense_gemm_s) {
    TpGemms g;
    const double total = s.attn_params + s.dense_mlp_params;
    if (total <= 0) return g;
    const double proj = s.hq * s.h, fc2 = s.ffn * s.h;
    g.qkv = dense_gemm_s * std::max(0.0, s.attn_params - proj) / total;
    g.proj = dense_gemm_s * std::min(proj, s.attn_params) / total;
    g.fc1 = dense_gemm_s * std::max(0.0, s.dense_mlp_params - fc2) / total;
    g.fc2 = dense_gemm_s * std::min(fc2, s.dense_mlp_params) / total;
    return g;
}

namespace {

// Transformer Engine's pipelined reduce-scatter overlap splits the GEMM in 4 (initialize_ub's
// add_ub(num_splits=4) default in transformer_engine/pytorch/module/base.py, TE 1.x; the NeMo
// launcher's ub_cfg_h100_* files and NeMo 2.0's userbuffers_*_b200_* configs keep num_splits 4).
constexpr double kUbSplits = 4;

// One block's TP pair (the all-gather before its column-parallel linear `col`, the reduce-scatter
// after its row-parallel linear `row`) with the overlap on, exposed seconds forward and backward.
//  ag, rs: the bare collectives; rs_copy: the reduce-scatter with its DTensor copy (when not fused);
//  reduce: the micro-pipeline reduce-scatter's local sum of the partials.
struct PairExposed {
    double fwd = 0, bwd = 0;
};
PairExposed overlapped_pair(TpCommOverlapKind kind, int n, double ag, double rs, double rs_copy, double reduce,
                            double col, double row, bool row_ring) {
    // Ring exchange (TE UbufP2PCommOverlap; torch _pipelined_all_gather_and_consume and
    // _pipelined_produce_and_all2all): the GEMM runs in n chunks, the first on local data while
    // the n - 1 transfers run, so only the transfer time beyond (n - 1)/n of the GEMM shows.
    auto ring = [&](double comm, double gemm) { return std::max(0.0, comm - gemm * (n - 1) / n); };
    // Pipelined (TE UbufCommOverlap, method "pipeline"): chunk i's reduce-scatter runs during chunk
    // i + 1's GEMM; the last chunk's reduce-scatter always shows.
    auto pipe = [&](double comm, double gemm) {
        return std::max(comm / kUbSplits, comm - gemm * (kUbSplits - 1) / kUbSplits);
    };
    // Bulk (method "bulk"): the collective runs beside a whole independent GEMM.
    auto bulk = [&](double comm, double gemm) { return std::max(0.0, comm - gemm); };
    PairExposed p;
    if (kind == TpCommOverlapKind::userbuffers) {
        // TE initialize_ub's default methods (base.py): ring_exchange for qkv_fprop, fc1_fprop,
        // proj_dgrad, fc2_dgrad (the all-gathers); pipeline for proj_fprop, fc2_fprop (the forward
        // reduce-scatters); bulk for qkv_dgrad / fc1_dgrad (the input re-gather beside dgrad, which the
        // model does not count) and qkv_wgrad / fc1_wgrad (the dgrad reduce-scatter beside wgrad).
        // A config may run the forward reduce-scatter as a ring exchange instead (NeMo v2.2.0
        // tp_overlap_configs/userbuffers.py: the B200 configs' proj_fprop / fc2_fprop
        // RingExchangeOverlapCfg).
        p.fwd = ring(ag, col) + (row_ring ? ring(rs, row) : pipe(rs, row));
        p.bwd = ring(ag, row) + bulk(rs, col);
    } else if (kind == TpCommOverlapKind::micro_pipeline) {
        // torch's micro-pipeline TP pass (torch/_inductor/fx_passes/micro_pipeline_tp.py) fuses an
        // all-gather with the matmuls that take it as their left operand (fuse_all_gather_matmul) and a
        // reduce-scatter whose input one matmul produces (_find_producer_matmul, fuse_matmul_reduce_scatter),
        // and the fused ops handle the sequence dim themselves (no chunk + cat copy). Forward: all four.
        // Backward: the output-gradient all-gather feeds the row-parallel dgrad (its wgrad takes the
        // gathered tensor transposed); the column-parallel input gradient is the sum of several
        // linears' dgrads (wq + wk + wv, w1 + w3), which no single matmul produces, so that
        // reduce-scatter and its copy stay exposed.
        p.fwd = ring(ag, col) + ring(rs, row) + reduce;
        p.bwd = ring(ag, row) + rs_copy;
    }
    return p;
}

}   // namespace

LayerComm layer_comm(const LayerShapes& s, const Config& c, const Hardware& hw, double da, const TpGemms& gm) {
    LayerComm r;
    const int pp = std::max(1, c.pp);
    const double tp = std::max(1, c.tp);
    const double tokens = double(c.micro_batch) * c.seq_len / std::max(1, c.cp);   // per GPU sequence share

    const GroupLink& tpl = c.link[kTp];
    const FrameworkTraits* ft = find_traits(c.framework);
    const double act_bytes = tokens * s.h * 2;
    r.tp_bytes = act_bytes;
    r.tp_sequence_parallel = c.sequence_parallel;
    // ColossalAI's fp8_communication gathers the sequence-parallel activations in FP8 across nodes
    // (shardformer/layer/_operation.py _gather -> all_gather_fp8); its reduce-scatters and
    // all-reduces stay 16-bit (fp8_wire_bytes).
    double gather_elem = fp8_wire_bytes(c, tpl);
    // torchao's Float8 TP styles (torchtitan with tensorwise scaling, fp8_tp_gather_recipes) cast
    // before every SP all-gather: PrepareFloat8ModuleInput and Float8ColwiseParallel cast the
    // sharded input to FP8 and then redistribute it; Float8RowwiseParallel reduce-scatters its
    // 16-bit output and then applies NoopFwToFloat8BwDynamic, so in backward the output gradient is
    // cast first and the all-gather that is the reduce-scatter's backward moves FP8 too. The
    // reduce-scatters (the output, and the input gradient) stay 16-bit. torchao
    // float8/float8_tensor_parallel.py at eab345c and at 6243040 (the asyncTP benchmark's).
    if (ft && c.sequence_parallel && c.fp8) {
        const auto& rs = ft->fp8_tp_gather_recipes;
        if (std::find(rs.begin(), rs.end(), *c.fp8) != rs.end()) gather_elem = 1;
    }
    const double tp_gather = act_bytes * gather_elem / 2;
    r.tp_gather_bytes = c.sequence_parallel ? tp_gather : 0;
    double ag = all_gather_s(tpl, tp_gather), rs = reduce_scatter_s(tpl, act_bytes);
    if (ft && ft->sp_collectives_copy && c.sequence_parallel && c.tp > 1) {
        // funcol all_gather_tensor(gather_dim=1): torch.cat(torch.chunk(res, group_size, dim=0),
        // dim=1); reduce_scatter_tensor(scatter_dim=1): torch.cat(torch.chunk(x, group_size, dim=1))
        // before the collective (torch/distributed/_functional_collectives.py). A memory-bound
        // copy, read + write, at the element-wise passes' share of HBM bandwidth.
        const double hbm = hw.hbm_gbps * 1e9 * efficiency_for(hw.arch, c.kernels, c.fp8).hbm;
        if (hbm > 0) {
            r.tp_gather_copy_s = 2 * tp_gather / hbm;
            r.tp_scatter_copy_s = 2 * act_bytes / hbm;
        }
        ag += r.tp_gather_copy_s;
        rs += r.tp_scatter_copy_s;
    }
    const double tp_coll = c.sequence_parallel ? ag + rs : all_reduce_s(tpl, act_bytes);
    // Two collectives per layer forward (attention and MLP outputs: all-reduce, or with SP an
    // all-gather + reduce-scatter pair of the same volume), two backward (Narayanan et al.
    // Sec. 3.2: 8bsh(t-1)/t bytes per layer); full recomputation runs the forward's two again.
    if (c.tp > 1) {
        r.tp_fwd_count = 2;
        r.tp_bwd_count = 2 + (c.recompute == Recompute::full ? 2 : 0);
        // torchtitan's op-level selective recomputation saves the reduce-scatter outputs but not
        // the sequence-parallel all-gathers (_save_list in parallelize_llama.py at 9dec370 and
        // 820504e holds mm, SDPA, reduce_scatter_tensor, max), and backward needs the gathered
        // norm outputs again (the recomputed wk / w3 and every weight gradient): the attention
        // and MLP all-gathers run once more per layer.
        if (ft && ft->op_sac && c.recompute == Recompute::selective && c.sequence_parallel) r.tp_bwd_regathers = 2;
    }
    r.tp_fwd_s = r.tp_fwd_count * tp_coll;
    r.tp_bwd_s = r.tp_bwd_count * tp_coll + r.tp_bwd_regathers * ag;
    r.tp_attn_s = 0.5 * (r.tp_fwd_s + r.tp_bwd_s);
    if (c.tp_comm_overlap != TpCommOverlapKind::none && c.tp > 1 && c.sequence_parallel) {
        const double ag_bare = ag - r.tp_gather_copy_s, rs_bare = rs - r.tp_scatter_copy_s;
        // _fused_matmul_reduce_scatter_impl sums the n received partials locally (torch
        // distributed/_symmetric_memory/__init__.py): reads the whole output, writes 1/n of it.
        const double hbm = hw.hbm_gbps * 1e9 * efficiency_for(hw.arch, c.kernels, c.fp8).hbm;
        const double reduce = c.tp_comm_overlap == TpCommOverlapKind::micro_pipeline && hbm > 0
                                  ? act_bytes * (1 + 1.0 / c.tp) / hbm
                                  : 0;
        const PairExposed at = overlapped_pair(c.tp_comm_overlap, c.tp, ag_bare, rs_bare, rs, reduce, gm.qkv, gm.proj,
                                               c.tp_overlap_proj_ring);
        const PairExposed ml = overlapped_pair(c.tp_comm_overlap, c.tp, ag_bare, rs_bare, rs, reduce, gm.fc1, gm.fc2,
                                               c.tp_overlap_fc2_ring);
        const double recomputed = c.recompute == Recompute::full ? 1 : 0;   // the forward's pairs again
        const double before = r.tp_fwd_s + r.tp_bwd_s;
        r.tp_fwd_s = at.fwd + ml.fwd;
        // Op-level SAC's re-gathers are counted exposed (they feed recomputed wk / w3 and the wgrads).
        r.tp_bwd_s = at.bwd + ml.bwd + recomputed * (at.fwd + ml.fwd) + r.tp_bwd_regathers * ag;
        r.tp_attn_s = at.fwd + at.bwd + recomputed * at.fwd + 0.5 * r.tp_bwd_regathers * ag;
        r.tp_hidden_s = before - (r.tp_fwd_s + r.tp_bwd_s);
    }

    const GroupLink& cpl = c.link[kCp];
    if (c.cp > 1) {
        if (c.seq_split == SeqSplit::ring) {
            const double kv_bytes = tokens * 2 * s.hkv / tp * 2;
            const double step = send_recv_s(cpl, kv_bytes);
            r.cp_ring = true;
            r.cp_bytes = kv_bytes;
            r.cp_call_s = step;
            r.cp_fwd_count = c.cp - 1;
            r.cp_bwd_count = 2 * (c.cp - 1);
            r.cp_fwd_s = std::max(0.0, (c.cp - 1) * step - da);   // overlapped with attention
            r.cp_bwd_s = std::max(0.0, 2 * (c.cp - 1) * step - 2.5 * da);
        } else {
            // Ulysses: q, k, v, out; FP8 across nodes with ColossalAI's fp8_communication
            // (shardformer/modeling/llama.py all_to_all_comm(..., fp8_communication), v0.5.1).
            const double qkvo = tokens * (2 * s.hq + 2 * s.hkv) / tp * fp8_wire_bytes(c, cpl);
            r.cp_bytes = qkvo;
            r.cp_fwd_count = r.cp_bwd_count = 1;
            r.cp_call_s = all_to_all_s(cpl, hw, qkvo);
            r.cp_fwd_s = r.cp_call_s;
            r.cp_bwd_s = r.cp_fwd_s;
        }
    }
    const GroupLink& ppl = c.link[kPp];
    if (pp > 1) {
        r.pp_bytes = act_bytes / (c.sequence_parallel ? tp : 1.0);
        // ColossalAI's fp8_communication sends the hidden states and their gradients in FP8 on any
        // link (pipeline/schedule/one_f_one_b.py and interleaved_pp.py: cast_to_fp8_pipeline before
        // each send, quantization/fp8.py; v0.5.1); its ZeroBubbleVPipeScheduler takes no such switch.
        if (fp8_gather_of(c) == Fp8Gather::wire_casts &&
            (c.schedule == Schedule::one_f_one_b || c.schedule == Schedule::interleaved_colossalai))
            r.pp_bytes /= 2;
        r.pp_count = is_multi_chunk(c.schedule) ? std::max(1, c.chunks) : 1;
        r.pp_wire_s = send_recv_s(ppl, r.pp_bytes) * r.pp_count;
        r.pp_s = c.overlap_p2p ? 0 : r.pp_wire_s;
    }
    return r;
}

Zero3Volume zero3_volume(const ShardedCounts& params, const ShardedCounts& trained, const ShardedCounts& base_linears,
                         const Config& c) {
    Zero3Volume v;
    // FP8 all-gathers (torchao enable_fsdp_float8_all_gather) move 1 byte a parameter; Gemini's
    // fp8_communication only across nodes (chunk.py Chunk.__gather -> all_gather_fp8, fp8_wire_bytes).
    const double elem = fp8_gather_of(c) == Fp8Gather::fsdp_weights ? 1.0 : fp8_wire_bytes(c, c.link[kDp]);
    v.gather_bytes = params.dense * elem;
    if (c.lora.on()) {
        // Every frozen weight stays sharded and is gathered for forward and backward as it is
        // stored; the gradient reduction takes only the parameters that require grad:
        //  - FSDP2: FSDPParamGroup.unshard gathers all of the group's parameters, and
        //    FSDPParamGroup.post_backward passes foreach_reduce only those whose unsharded grad is not
        //    None (torch/distributed/fsdp/_fully_shard/_fsdp_param_group.py, PyTorch 2.6);
        //  - DeepSpeed ZeRO-3: DeepSpeedZeroOptimizer_Stage3._get_trainable_parameter_groups keeps the
        //    parameters with requires_grad, and create_reduce_and_remove_grad_hooks hooks only those
        //    into reduce_ready_partitions_and_remove_grads (deepspeed/runtime/zero/stage3.py, v0.16.0);
        //  - Megatron FSDP: the parameter groups split by requires_grad, grad buffers only for those
        //    that require it (megatron_fsdp/param_and_grad_buffer.py ParamAndGradBuffer,
        //    only_create_grad_buffer_and_main_weight_buffer_for_param_requires_grad; megatron_fsdp.py
        //    _grad_acc returns for a frozen group; core_v0.19.0), as Megatron's DDP buckets only
        //    parameters that require grad (distributed_data_parallel.py, __init__).
        const double base = std::min(params.dense, base_linears.dense);
        v.gather_bytes = c.lora.base_bytes * base + elem * (params.dense - base + trained.dense);
    }
    v.grad_bytes = trained.dense * c.grad_reduce_bytes;
    return v;
}

Zero3Comm zero3_comm(const Zero3Volume& v, const Config& c, double compute_s) {
    Zero3Comm z;
    if (c.zero_stage < 3 || c.link[kDp].size <= 1) return z;
    const GroupLink& dl = c.link[kDp];
    const double pbytes = v.gather_bytes, gbytes = v.grad_bytes;
    z.calls.push_back({kDp, CollectiveOp::all_gather, pbytes, 2, 2 * all_gather_s(dl, pbytes)});
    z.calls.push_back({kDp, CollectiveOp::reduce_scatter, gbytes, 1, reduce_scatter_s(dl, gbytes)});
    double total = 0;
    for (const auto& k : z.calls) total += k.seconds;
    z.exposed_s = std::max(0.0, total - (c.overlap_param_gather ? compute_s : 0));
    return z;
}

std::vector<CommCall> grad_sync(const ShardedCounts& params, const ShardedCounts& fp8_weights, const Config& c) {
    std::vector<CommCall> out;
    if (c.zero_stage >= 3) return out;
    const double pd = params.dense, pe = params.expert;
    const bool sharded = c.zero_stage >= 1 || c.distributed_optimizer;
    const GroupLink& dl = c.link[kDp];
    const GroupLink& el = c.link[kEdp];
    auto add = [&](GroupKind g, CollectiveOp op, double bytes, double s) {
        if (bytes > 0 && c.link[g].size > 1) out.push_back({g, op, bytes, 1, s});
    };
    if (sharded) {
        add(kDp, CollectiveOp::reduce_scatter, pd * c.grad_reduce_bytes,
            reduce_scatter_s(dl, pd * c.grad_reduce_bytes));
        add(kEdp, CollectiveOp::reduce_scatter, pe * c.grad_reduce_bytes,
            reduce_scatter_s(el, pe * c.grad_reduce_bytes));
        if (!c.overlap_param_gather) {
            // The updated parameters, 16-bit unless gathered in FP8:
            //  - FP8 primary weights (Megatron --fp8-param-gather): the uint8 param buffer of the FP8
            //    linear weights, 1 B each (core_v0.19.0 param_and_grad_buffer.py
            //    group_params_for_buffers); MXFP8 weights are gathered in BF16 through the grad
            //    buffer (_ParamAndGradBuffer.__init__, shared_buffer viewed as bfloat16);
            //  - ColossalAI fp8_communication: across nodes (low_level_optim.py
            //    LowLevelZeroOptimizer.step / TensorBucket.all_gather -> all_gather_fp8; fp8_wire_bytes).
            const Fp8Gather g = fp8_gather_of(c);
            auto gathered = [&](double n, double fp8_n, const GroupLink& l) {
                if (g == Fp8Gather::fsdp_weights) return n;
                if (g == Fp8Gather::wire_casts) return n * fp8_wire_bytes(c, l);
                if (g == Fp8Gather::primary_weights && c.fp8 != Fp8Recipe::mxfp8) return 2 * n - std::min(n, fp8_n);
                return 2 * n;
            };
            const double ad = gathered(pd, fp8_weights.dense, dl), ae = gathered(pe, fp8_weights.expert, el);
            add(kDp, CollectiveOp::all_gather, ad, all_gather_s(dl, ad));
            add(kEdp, CollectiveOp::all_gather, ae, all_gather_s(el, ae));
        }
    } else {
        add(kDp, CollectiveOp::all_reduce, pd * c.grad_reduce_bytes, all_reduce_s(dl, pd * c.grad_reduce_bytes));
        add(kEdp, CollectiveOp::all_reduce, pe * c.grad_reduce_bytes, all_reduce_s(el, pe * c.grad_reduce_bytes));
    }
    return out;
}

bool crosses_scale_out(const GroupLink& l) { return l.size > 1 && (l.fabric ? l.fabric->nodes > 1 : l.nodes > 1); }

bool reduction_shares_nics(const Config& c) {
    return crosses_scale_out(c.link[kDp]) || crosses_scale_out(c.link[kEdp]);
}

double grad_sync_window_s(const Config& c, const StageCost& cost, int stage, double nic_b) {
    return (c.overlap_grad_reduce ? std::max(0.0, cost.b - nic_b) : 0) + stage * cost.b;
}

}   // namespace paraplan::estimate
