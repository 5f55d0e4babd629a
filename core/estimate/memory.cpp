#include "estimate/memory.h"

#include "estimate/hybrid.h"
#include "estimate/lora.h"
#include "estimate/moe.h"
#include "project/framework.h"

#include <algorithm>
#include <cmath>

namespace paraplan::estimate {

ActivationInputs activation_inputs(const Config& c, double seq) {
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
    ai.moe_load = moe_load_factor(c.moe);
    return ai;
}

LayerActivation layer_activation(const LayerShapes& s, bool moe, const ActivationInputs& in) {
    LayerActivation a;
    const double sl = in.seq / std::max(1, in.cp);   // local sequence
    const double b = in.micro_batch;
    const double t = std::max(1, in.tp);
    const double rep_div = in.sequence_parallel ? t : 1.0;
    const double sbh = sl * b * s.h;
    if (in.recompute == Recompute::full) {
        // Only the layer input is kept (Korthikanti Table 2 last row: 2sbh).
        a.replicated = 2 * sbh / rep_div;
        return a;
    }
    if (in.op_sac && in.recompute == Recompute::selective && !moe) {
        // Saved per token: the block input, q (wq) and v (wv) outputs, the MLP up (w1) output
        // and down (w2) output, the attention output; with SP the two reduce-scatter outputs.
        a.replicated = 2 * sbh / rep_div + 2 * sl * b * s.h + (in.sequence_parallel ? 4 * sbh / t : 0);
        a.sharded = 2 * sl * b * (2 * s.hq + s.hkv + s.ffn) / t;
        return a;
    }
    const double drop = in.dropout ? 1.0 : 0.0;
    // Two LayerNorm inputs (4sbh), attention and MLP block inputs (2sbh each), two dropout masks.
    // Where the linears save their all-gathered input, the two block inputs are whole sequences.
    const bool gathered = in.sequence_parallel && in.gathered_input_bytes > 0;
    a.replicated = (4 + 2 * drop) * sbh / rep_div + (gathered ? 2 * in.gathered_input_bytes * sbh : 4 * sbh / rep_div);
    // Q, K, V (Korthikanti: 4sbh + 2sbh; GQA shrinks K and V) and the output-projection input.
    a.sharded = 2 * sl * b * (s.hq + 2 * s.hkv) / t + 2 * sl * b * s.hq / t;
    // MLA (DeepSeek-V2 Sec. 2.1.2/2.1.3): the compressed query and key-value latents are
    // inputs of their norms and of the up-projections (q_lora_rank, kv_lora_rank + rope dim).
    if (s.mla) a.replicated += 2 * 2 * sl * b * (s.q_lora + s.kv_lora + s.qk_rope) / rep_div;
    // MLP: fc1 output and activation output (2 x 2sbf; a gated MLP keeps gate and up, 3 x 2sbf).
    const double mlp_per_width = s.gated > 1 ? 6.0 : 4.0;
    if (moe) {
        const double k = std::max(1, s.top_k);
        const double etp = std::max(1, in.etp);
        // Routed tokens: each token's hidden state is copied to k experts (permuted input),
        // and each expert keeps its MLP intermediates; the busiest EP rank holds moe_load x
        // its balanced share (dropless routing, moe.h).
        const double load = std::max(1.0, in.moe_load);
        a.sharded += load * (2 * sl * b * k * s.h / rep_div + mlp_per_width * sl * b * k * s.expert_ffn / etp);
        if (s.shared_ffn > 0) a.sharded += mlp_per_width * sl * b * s.shared_ffn / t;
        a.sharded += 4 * sl * b * s.experts;   // fp32 router logits
    } else {
        a.sharded += mlp_per_width * sl * b * s.ffn / t;
    }
    // Attention scores: softmax output 2as^2b, dropout mask as^2b and dropout output 2as^2b
    // (5as^2b/t); without dropout the softmax output alone. Flash attention keeps none,
    // selective recomputation recomputes them.
    if (!in.flash_attention && in.recompute == Recompute::none)
        a.scores = (in.dropout ? 5.0 : 2.0) * s.heads * sl * in.seq * b / t;
    return a;
}

double op_sac_recomputed_gemm_share(const LayerShapes& s) {
    const double total = s.h * (s.hq + 2 * s.hkv) + s.hq * s.h + (s.gated > 1 ? 3 : 2) * s.h * s.ffn;
    if (total <= 0) return 0;
    return (s.h * s.hkv + s.hq * s.h + s.h * s.ffn) / total;
}

namespace {

int head_stage_of(const Config& c) { return c.head_stage >= 0 ? c.head_stage : std::max(0, c.pp - 1); }

int groups_in_use(const Config& c) {
    int n = 0;
    for (const auto& l : c.link) n += l.size > 1 ? 1 : 0;
    return n;
}

// Parameters of stage i outside its transformer layers (per GPU): the vocabulary-parallel
// embedding on the first stage, the final norm and output layer (or the tied copy) on the last,
// as stage_params() places them.
double non_layer_params(const LayerShapes& s, const Config& c, int i) {
    double n = 0;
    const double t = std::max(1, c.tp);
    const int head = head_stage_of(c);
    if (i == c.embedding_stage) n += s.embedding_params / t;
    if (i == head) {
        n += s.final_norm_params;
        if (s.head_params > 0) n += s.head_params / t;
        else if (head != c.embedding_stage) n += s.vocab * s.h / t;
    }
    return n;
}

}   // namespace

std::vector<ShardedCounts> stage_params(const LayerShapes& s, const Config& c) {
    const int pp = std::max(1, c.pp);
    std::vector<ShardedCounts> out(pp);
    const ShardedCounts dense = layer_params_per_gpu(s, false, c.tp, c.ep, c.etp);
    const ShardedCounts moe = layer_params_per_gpu(s, true, c.tp, c.ep, c.etp);
    const int head = head_stage_of(c);
    for (int i = 0; i < pp; ++i) {
        const int layers = i < int(c.layers_per_stage.size()) ? c.layers_per_stage[i] : 0;
        const int nmoe = i < int(c.moe_layers_per_stage.size()) ? c.moe_layers_per_stage[i] : 0;
        if (c.hybrid) {
            out[i] = hybrid_stage_layer_params(s, c, i);
        } else {
            out[i].dense = dense.dense * (layers - nmoe) + moe.dense * nmoe;
            out[i].expert = moe.expert * nmoe;
        }
        // Vocabulary-parallel embedding on the first stage; output layer (or, tied and
        // pp > 1, the embedding copy Megatron and ColossalAI keep) and final norm on the last.
        if (i == c.embedding_stage) out[i].dense += s.embedding_params / c.tp;
        if (i == head) {
            // Multi-token-prediction modules (DeepSeek-V3 Sec. 2.2): a layer (MoE in MoE models),
            // the h x 2h projection and two norms each; embedding and output head are shared.
            if (c.moe.mtp_layers > 0) {
                const ShardedCounts& l = s.experts > 0 ? moe : dense;
                out[i].dense += c.moe.mtp_layers * (l.dense + 2 * s.h * s.h / c.tp + 2 * s.h);
                out[i].expert += c.moe.mtp_layers * l.expert;
            }
            out[i].dense += s.final_norm_params;
            if (s.head_params > 0) out[i].dense += s.head_params / c.tp;
            else if (head != c.embedding_stage) out[i].dense += s.vocab * s.h / c.tp;
        }
    }
    return out;
}

std::vector<ShardedCounts> stage_fp8_weight_params(const LayerShapes& s, const Config& c) {
    const int pp = std::max(1, c.pp);
    std::vector<ShardedCounts> out(pp);
    const ShardedCounts dl = layer_params_per_gpu(s, false, c.tp, c.ep, c.etp);
    const ShardedCounts ml = layer_params_per_gpu(s, true, c.tp, c.ep, c.etp);
    for (int i = 0; i < pp; ++i) {
        if (c.hybrid) {
            out[i] = hybrid_stage_layer_params(s, c, i);
            continue;
        }
        const int layers = i < int(c.layers_per_stage.size()) ? c.layers_per_stage[i] : 0;
        const int nmoe = i < int(c.moe_layers_per_stage.size()) ? c.moe_layers_per_stage[i] : 0;
        out[i].dense = (layers - nmoe) * dl.dense + nmoe * ml.dense;
        out[i].expert = (layers - nmoe) * dl.expert + nmoe * ml.expert;
    }
    return out;
}

double fp8_primary_weight_bytes(Fp8Recipe r, const std::string& arch) {
    // Megatron-LM core_v0.19.0 param_and_grad_buffer.py group_params_for_buffers: FP8 parameters
    // live in a torch.uint8 param buffer, 1 B each. After each all-gather, fp8_utils.py
    // post_all_gather_processing calls Transformer Engine's (TE v2.16 pytorch/tensor/utils.py):
    // Float8Tensor (tensorwise, delayed) gets _create_transpose() unless is_non_tn_fp8_gemm_supported()
    // (sm100 and sm110: Blackwell), Float8BlockwiseQTensor its column-wise data; an MXFP8Tensor
    // keeps row-wise and column-wise data of its own.
    const bool per_tensor = r == Fp8Recipe::tensorwise || r == Fp8Recipe::delayed;
    return per_tensor && arch == "blackwell" ? 1.0 : 2.0;
}

MemoryResult estimate_memory(const LayerShapes& s, const Config& c, const Hardware& hw,
                             const std::vector<double>& inflight) {
    MemoryResult r;
    const int pp = std::max(1, c.pp);
    const auto params = stage_params(s, c);
    const auto fp8_weights = stage_fp8_weight_params(s, c);
    const auto adapters = stage_adapter_params(s, c);
    const auto base_linears = stage_base_linear_params(s, c);
    const Fp8Gather gather = fp8_gather_of(c);
    ActivationInputs ai = activation_inputs(c, c.seq_len);
    ai.recompute = c.recompute;
    if (s.experts == 0) ai.moe_load = 1.0;
    const FrameworkTraits* ft = find_traits(c.framework);
    ai.op_sac = ft && ft->op_sac;
    // torchao's PrepareFloat8ModuleInput casts to FP8 before the all-gather and Float8Linear saves
    // the FP8 input (eab345c float8_tensor_parallel.py; float8_linear.py
    // manual_float8_matmul_with_args_in_float8); torchtitan uses the Float8 TP styles with
    // tensorwise scaling only, rowwise linears save the 16-bit input.
    const bool sp_gathers = ft && ft->tp_saves_gathered_input && c.sequence_parallel && c.tp > 1;
    if (sp_gathers) ai.gathered_input_bytes = c.fp8 == Fp8Recipe::tensorwise ? 1.0 : 2.0;
    const double dense_act = layer_activation(s, false, ai).total();
    const double moe_act = s.experts > 0 ? layer_activation(s, true, ai).total() : dense_act;
    ActivationInputs full_ai = ai;
    full_ai.recompute = Recompute::none;
    const double dense_full = layer_activation(s, false, full_ai).total();
    const double moe_full = s.experts > 0 ? layer_activation(s, true, full_ai).total() : dense_full;

    const double zg = std::max(1, c.zero_group);
    const double ezg = std::max(1, c.expert_zero_group);
    const double t = std::max(1, c.tp);
    const double sl = double(c.seq_len) / std::max(1, c.cp);
    const double b = c.micro_batch;
    const int head = head_stage_of(c);
    const double rep_div = c.sequence_parallel ? t : 1.0;

    r.capacity_bytes = hw.memory_gib * kGiB;
    for (int i = 0; i < pp; ++i) {
        StageMemory m;
        m.stage = i;
        const double pd = params[i].dense, pe = params[i].expert;
        m.params_count = pd + pe;
        m.expert_params_count = pe;
        // Sharding divisor per role: ZeRO-1 (and Megatron's distributed optimizer) shard the
        // optimizer states, ZeRO-2 also the gradients, ZeRO-3 also the weights.
        const bool shard_opt = c.zero_stage >= 1 || c.distributed_optimizer;
        const double w_d = c.zero_stage >= 3 ? zg : 1, w_e = c.zero_stage >= 3 ? ezg : 1;
        const double g_d = c.zero_stage >= 2 ? zg : 1, g_e = c.zero_stage >= 2 ? ezg : 1;
        const double o_d = shard_opt ? zg : 1, o_e = shard_opt ? ezg : 1;
        m.params = c.bytes.weight * (pd / w_d + pe / w_e);
        // FP8 primary weights (Megatron --fp8-param-gather): the linear weights are FP8 tensors with
        // no 16-bit copy (fp8_utils.py get_fp8_context(is_init=True) builds the TE modules under
        // fp8_model_init; distrib_optimizer.py _build_model_and_main_param_groups keeps the fp32 main
        // params, counted in the optimizer states); norms, embedding and output layer stay 16-bit.
        if (gather == Fp8Gather::primary_weights && !c.lora.on())
            m.params -= (c.bytes.weight - fp8_primary_weight_bytes(*c.fp8, hw.arch)) *
                        (fp8_weights[i].dense / w_d + fp8_weights[i].expert / w_e);
        m.grads = c.bytes.grad * (pd / g_d + pe / g_e);
        m.optimizer = c.bytes.optimizer * (pd / o_d + pe / o_e);
        if (c.lora.on()) {
            // LoRA (lora.h): the base is frozen, so it has no gradient and no optimizer state
            // (requires_grad = False: Megatron's DDP buffers and every optimizer take only the
            // parameters that require grad). The transformer layers' weights are stored in
            // layout.peft.base_dtype (QLoRA, Dettmers et al. 2023, quantizes the layers' linears and
            // keeps embedding, norms, router and output layer 16-bit); the adapters are trained as any
            // weight is, with 16-bit weight and gradient and the framework's optimizer states.
            const double ad = adapters[i].dense, ae = adapters[i].expert;
            const double ld = base_linears[i].dense, le = base_linears[i].expert;
            m.params = c.lora.base_bytes * (ld / w_d + le / w_e) +
                       c.bytes.weight * ((pd - ld) / w_d + (pe - le) / w_e + ad / w_d + ae / w_e);
            m.grads = c.bytes.grad * (ad / g_d + ae / g_e);
            m.optimizer = c.bytes.optimizer * (ad / o_d + ae / o_e);
            m.params_count = pd + pe + ad + ae;
        }
        if (c.offload_optimizer > 0) {
            const double moved = m.optimizer * std::min(1.0, c.offload_optimizer);
            m.optimizer -= moved;
            m.offloaded += moved;
        }
        double live = 0;
        const bool fp8 = c.fp8.has_value();
        if (c.zero_stage >= 3) {
            // Gathered 16-bit weights of the layer in use and the one prefetched (ZeRO-3 live
            // parameters; FSDP2 forward_prefetch of the next block), FP8 when the all-gather is
            // FP8 (torchao enable_fsdp_float8_all_gather); during backward also the unsharded
            // gradient of one layer before its reduce-scatter, in the reduce dtype (torchtitan
            // MixedPrecisionPolicy reduce_dtype float32; DeepSpeed 16-bit).
            const int layers = std::max(1, i < int(c.layers_per_stage.size()) ? c.layers_per_stage[i] : 1);
            const double outside = std::min(pd, non_layer_params(s, c, i));
            const double layer_params = (pd + pe - outside) / layers;
            // ColossalAI's fp8_communication casts for the wire only: Gemini gathers each chunk
            // into its 16-bit buffer (zero/gemini/chunk/chunk.py Chunk.__gather, all_gather_fp8
            // copying back to the input dtype, v0.5.1).
            const double gathered_bytes = gather == Fp8Gather::fsdp_weights ? 1.0 : 2.0;
            double layer_gathered = gathered_bytes * layer_params;
            // With LoRA (lora.h) a layer gathers its frozen linears in their stored dtype and its norms
            // and adapters 16-bit (what zero3_volume moves), and only the adapters have gradients.
            const double trained = c.lora.on() ? adapters[i].dense + adapters[i].expert : pd + pe;
            const double layer_grads = c.lora.on() ? trained / layers : layer_params;
            if (c.lora.on()) {
                const double base = std::min(pd + pe - outside, base_linears[i].dense + base_linears[i].expert);
                layer_gathered = (c.lora.base_bytes * base + 2.0 * (pd + pe - outside - base + trained)) / layers;
            }
            live = 2.0 * layer_gathered + c.grad_reduce_bytes * layer_grads;
            // FSDP2's root module (torchtitan: fully_shard(model) over the embedding, final norm and
            // output layer) is not resharded after forward: FSDPState._lazy_init sets the root group's
            // post_forward_mesh_info = None "since for training, the parameters would be freed and
            // all-gathered immediately" (torch/distributed/fsdp/_fully_shard/_fsdp_state.py, PyTorch
            // 2.6), so those parameters stay gathered from the forward through the backward. They are
            // 16-bit even with FP8 all-gathers: the embedding is no linear layer and torchtitan's float8
            // converter skips the output layer (9dec370 torchtitan/float8.py, module_filter_fn
            // fqn != "output").
            if (ft && ft->fsdp2) live += 2.0 * outside;
            // torchtitan with pipeline parallelism does not reshard after forward
            // (torchtitan 9dec370 parallelize_llama.py apply_fsdp: reshard_after_forward = False when
            // pp is enabled), so the stage's parameters stay gathered across its microbatches. Nor
            // does it reduce-scatter per microbatch: PyTorch's pipelining stage
            // (torch/distributed/pipelining/stage.py backward_maybe_with_nosync, FSDPModule branch)
            // sets set_requires_gradient_sync(False) and set_reshard_after_backward(False) for every
            // backward but the last, so FSDP2 accumulates each parameter's unsharded gradient,
            // upcast to the reduce dtype (_fsdp_param.py to_accumulated_grad_if_needed: fp32 under
            // torchtitan's MixedPrecisionPolicy), for the whole stage until the last microbatch's
            // backward; one layer's 16-bit gradient exists besides it while it is added in.
            // With several model chunks per rank the accumulation is per chunk: each chunk is its own
            // FSDP module whose last backward reduce-scatters and frees its gradients
            // (backward_maybe_with_nosync, last_backward). PyTorch's ScheduleInterleaved1F1B orders a
            // rank's backwards chunk by chunk within a round of pp microbatches (schedules.py
            // _calculate_single_rank_operations, backward_stage_index), so with one round
            // (n_microbatches < 2 pp: number_of_rounds = 1) the last chunk's backwards all run, and
            // its gradients are freed, before the previous chunk's first; ScheduleLoopedBFS always
            // runs them chunk by chunk. Then only the largest chunk's gradients exist at once. Both
            // chunks' parameters are still gathered at the peak (the first backward).
            if (ft && ft->fsdp_reshard_off_with_pp && c.pp > 1) {
                const int v = std::max(1, c.chunks);
                const bool chunk_by_chunk = v > 1 && (c.schedule == Schedule::looped_bfs ||
                                                      (c.schedule == Schedule::interleaved_pytorch &&
                                                       c.num_microbatches < 2 * c.pp));
                const double grad_share = chunk_by_chunk ? std::ceil(double(layers) / v) / layers : 1.0;
                const double stage_gathered = c.lora.on() ? layers * layer_gathered
                                                          : gathered_bytes * (pd + pe - outside);
                live = stage_gathered + 2.0 * outside + c.grad_reduce_bytes * trained * grad_share + 2.0 * layer_grads;
            }
            if (c.offload_params) {
                m.offloaded += m.params;
                m.params = 0;
            }
        }
        // Transformer Engine keeps an FP8 copy of each linear weight and its transpose for the
        // whole step (cached across microbatches): 2 bytes per local linear parameter. FP8 primary
        // weights need no such copy: the GEMMs read the parameters themselves.
        if (fp8 && c.kernels == KernelStack::te && gather != Fp8Gather::primary_weights)
            live += 2.0 * (fp8_weights[i].dense + fp8_weights[i].expert);
        // With FP4 the cached copies are NVFP4 / MXFP4: row- and column-wise E2M1 (0.5 B each) with a
        // 1-byte scale per 16 (NVFP4) or 32 (MXFP4) values; master weights, gradients and optimizer
        // states stay as they are (FP4 is a GEMM format).
        if (c.fp4 != Fp4Recipe::none && hw.peak_fp4_tflops > 0 && c.kernels == KernelStack::te)
            live += 2 * (0.5 + (c.fp4 == Fp4Recipe::nvfp4 ? 1.0 / 16 : 1.0 / 32)) *
                    (fp8_weights[i].dense + fp8_weights[i].expert);
        // Activations: layers held, times in-flight microbatches.
        const int layers = i < int(c.layers_per_stage.size()) ? c.layers_per_stage[i] : 0;
        const int nmoe = i < int(c.moe_layers_per_stage.size()) ? c.moe_layers_per_stage[i] : 0;
        double per_mb = c.hybrid ? hybrid_stage_activation(s, c, i, ai) : dense_act * (layers - nmoe) + moe_act * nmoe;
        // LoRA's adapters keep their r-wide intermediates besides what the layer saves (lora.h).
        if (c.lora.on() && c.recompute != Recompute::full)
            per_mb += (layers - nmoe) * lora_activation_bytes(s, false, c, sl * b) +
                      nmoe * lora_activation_bytes(s, true, c, sl * b);
        m.inflight = i < int(inflight.size()) ? inflight[i] : 1.0;
        double act = per_mb * m.inflight;
        // Full recomputation rebuilds one layer's activations during its backward.
        double recompute_peak = c.recompute == Recompute::full && layers > 0 ? (nmoe > 0 ? moe_full : dense_full) : 0.0;
        if (c.hybrid && recompute_peak > 0) {   // the largest pattern layer the stage rebuilds
            recompute_peak = 0;
            for (char k : kHybridKinds)
                if (hybrid_stage_layers(c, i, k) > 0)
                    recompute_peak = std::max(recompute_peak, hybrid_layer_activation(s, k, full_ai).total());
        }
        if (i == c.embedding_stage) {
            // Token ids (int64) and the embedding-dropout mask per in-flight microbatch (Megatron).
            act += m.inflight * (8 * sl * b + (c.dropout ? sl * b * s.h / rep_div : 0));
        }
        // What the head and the loss hold only while one microbatch's loss runs (its forward and
        // backward): freed before the backward reaches the last layer.
        double loss_peak = 0;
        if (i == head) {
            // Final norm and output-layer inputs plus fp32 logits for the loss: 4sbh/t (1 + V/h). The
            // output layer stays 16-bit (torchtitan's float8 filter skips it); with DTensor SP it
            // saves its all-gathered input, the whole sequence.
            loss_peak += 2 * sl * b * s.h / t + (sp_gathers ? 2 * sl * b * s.h : 2 * sl * b * s.h / t) +
                         4 * sl * b * s.vocab / t;
            // Each MTP module: one more layer held per in-flight microbatch, and its own logits.
            if (c.moe.mtp_layers > 0) {
                act += c.moe.mtp_layers * (s.experts > 0 ? moe_act : dense_act) * m.inflight;
                loss_peak += c.moe.mtp_layers * 4 * sl * b * (s.h + s.vocab) / t;
            }
            // Outside Megatron's fused vocab-parallel cross entropy the loss keeps more. An eager
            // cross entropy on .float() logits (torchtitan's loss_fn; transformers' LlamaForCausalLM)
            // peaks in the log-softmax backward: the NLL gradient, the saved log-probabilities and the
            // gradient of the fp32 logits, 4 B each, 8 B beyond the 4 B above, plus whatever copy of
            // the logits the training loop still holds (layout.loss_logits):
            //  - freed: none (torchtitan 9dec370 train.py `del pred` before loss.backward(), "need to
            //    free to before bwd to avoid peaking memory"; ColossalAI e5fdefa6c
            //    examples/language/llama/benchmark.py `del outputs  # free memory`): 8 B;
            //  - kept: the model's 16-bit logits: 10 B;
            //  - kept_fp32: the fp32 logits the model returns (transformers modeling_llama.py
            //    LlamaForCausalLM.forward, 0022728: `logits = logits.float()` before the loss, returned in
            //    CausalLMOutputWithPast; its loss takes a contiguous shifted copy, freed after the
            //    forward) when the loop keeps the output (ColossalAI 4c4482f3a examples/language/llama2/
            //    benchmark.py: `outputs = model(**batch)` alive through booster.backward): 12 B.
            // auto: torchtitan frees them; elsewhere eager 10 B, and with compiled transformer blocks
            // 6 B, the eager/compile gap of the T1 tune pair (docs/accuracy.md).
            // A compiled loss (torchtitan e7c0cae components/loss.py build_cross_entropy_loss under
            // training.compile) is one fused log-softmax / NLL whose backward recomputes the softmax
            // from the 16-bit logits and per-row statistics: it keeps no fp32 copy, so the logits and
            // their 16-bit gradient (the 4 B above) are all it holds.
            if (!(ft && ft->fused_vocab_parallel_loss) && !c.compile_loss) {
                const LossLogits held = c.loss_logits != LossLogits::framework   ? c.loss_logits
                                        : ft && ft->frees_logits_before_backward ? LossLogits::freed
                                                                                 : LossLogits::framework;
                const double extra = held == LossLogits::freed           ? 8.0
                                     : held == LossLogits::kept          ? 10.0
                                     : held == LossLogits::kept_fp32     ? 12.0
                                     : c.kernels == KernelStack::compile ? 6.0
                                                                         : 10.0;
                loss_peak += extra * sl * b * s.vocab / t;
                // Loss parallel (torchtitan with tp > 1) runs DTensor's own, unfused cross entropy
                // (torch/distributed/tensor/parallel/loss.py, PyTorch 2.6): its backward,
                // _nll_loss_and_log_softmax_backward, returns (zeros_like(x) + exp(x)) * grad_output,
                // so besides the saved fp32 log-probabilities three fp32 tensors of the local logits
                // exist at once (zeros, exp(x) then the sum, the product) where aten's fused
                // log_softmax backward holds two: 4 B more per local logit.
                if (ft && ft->decomposed_loss_parallel && c.tp > 1) loss_peak += 4.0 * sl * b * s.vocab / t;
            }
            // PyTorch's pipelining keeps the last stage's output of every microbatch for the
            // step's output merge (stage.py forward_one_chunk: output_chunks.append(output), cleared
            // only when the next step starts; backward_one_chunk detaches but does not free them):
            // torchtitan's bf16 logits, vocabulary-sharded under loss parallelism.
            if (ft && ft->fsdp_reshard_off_with_pp && c.pp > 1)
                act += double(std::max(1, c.num_microbatches)) * 2.0 * sl * b * s.vocab / t;
        }
        // The loss's temporaries and a recomputed layer never coexist: autograd frees the loss's
        // and the output layer's saved tensors once their backward nodes have run, before the last
        // layer's checkpointed forward is replayed (torch/utils/checkpoint.py, recomputation on the
        // first unpack of a saved tensor in backward); so the stage holds the larger of the two.
        act += std::max(loss_peak, recompute_peak);
        // PyTorch's pipelining stage (torch/distributed/pipelining/stage.py, PyTorch 2.6) allocates
        // its P2P buffers for every microbatch up front and keeps them: _prepare_forward_infra one
        // activation-receive buffer per microbatch for each local stage but the first (in-flight
        // ones are the first layer's input, counted above), _prepare_backward_infra one
        // gradient-receive buffer per microbatch for each local stage but the last; and
        // forward_one_chunk keeps each in-flight microbatch's stage output in fwd_cache until its
        // backward. Each is the 16-bit hidden state at the stage boundary (sequence-sharded with SP).
        if (ft && ft->fsdp_reshard_off_with_pp && c.pp > 1) {
            const double io = 2.0 * sl * b * s.h / rep_div;
            const double v = std::max(1, c.chunks);
            const double n_mb = std::max(1, c.num_microbatches);
            const double with_recv = v - (i == 0 ? 1 : 0), with_grad_recv = v - (i == pp - 1 ? 1 : 0);
            live += io * (with_recv * std::max(0.0, n_mb - m.inflight) + with_grad_recv * (n_mb + m.inflight));
        }
        m.activations = act;
        m.buffers = live;
        // A cluster profile's measured reserve (profile.h memory_reserve) replaces the built-in share.
        m.fragmentation = hw.memory_reserve >= 0 ? hw.memory_reserve * m.allocated()
                          : ft && ft->fsdp2      ? kFragmentationFsdp * m.allocated()
                                                 : kFragmentation * (m.activations + m.grads);
        m.other = m.buffers + m.fragmentation + kCudaContextGiB * kGiB + kNcclPerGroupGiB * kGiB * groups_in_use(c);
        r.stages.push_back(m);
        if (m.total() > r.peak_bytes) {
            r.peak_bytes = m.total();
            r.peak_stage = i;
        }
        r.allocated_peak_bytes = std::max(r.allocated_peak_bytes, m.allocated());
        r.reserved_peak_bytes = std::max(r.reserved_peak_bytes, m.reserved());
    }
    r.fits = r.peak_bytes <= r.capacity_bytes;
    return r;
}

}   // namespace paraplan::estimate
