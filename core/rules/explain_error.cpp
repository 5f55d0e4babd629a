#include "rules/explain_error.h"

#include "project/framework.h"

#include "rules/apply_fix.h"
#include "rules/rule_kit.h"
#include "rules/validate.h"

#include <regex>
#include <string_view>
#include <set>

namespace paraplan {
namespace {

struct Pattern {
    std::string rule;
    std::string framework;
    std::string regex;         // ECMAScript, case-insensitive
    std::string explanation;   // may use $1.. from the match
};

// Most specific first. Texts from the frameworks' sources (see the rule files).
const std::vector<Pattern>& patterns() {
    static const std::vector<Pattern> p = {
        // ---- ColossalAI ----
        {"colossalai.world_divisible", "colossalai",
         R"(World size (\d+) is not divisible by tp_size (\d+) \* pp_size (\d+))",
         "HybridParallelPlugin needs the world size ($1 GPUs) to be a multiple of tp_size × pp_size ($2 × $3). Pick tp "
         "and pp "
         "whose product divides the GPU count."},
        {"colossalai.sp_mode_unset", "colossalai", R"(should not set sp_size when sequence parallelism is not enabled)",
         "sp_size was set but enable_sequence_parallelism is False. Turn sequence parallelism on with an explicit "
         "sequence_parallelism_mode, or leave sp_size at 1."},
        {"colossalai.sp_mode_needs_tp", "colossalai",
         R"(Sequence parallelism mode (\w+) must be enabled when using tensor parallelism|sequence parallelism mode (\w+) can only be used when enable_tensor_parallelism is True)",
         "The split_gather and ring modes split the sequence over the tensor-parallel group, so they need tp_size > 1. "
         "(ShardConfig also picks split_gather when the mode is left unset: always name the mode.)"},
        {"colossalai.world_divisible_sp", "colossalai",
         R"(The product of the size\((\d+)\) must be equal to the world size\((\d+)\))",
         "The process-group mesh covers $1 ranks but the world has $2. With all_to_all or ring_attn, sequence "
         "parallelism is "
         "its own mesh axis, so the world size must be divisible by tp × pp × sp."},
        {"colossalai.zero_stage_with_pp", "colossalai", R"(zero stage must be 0 or 1 when using pipeline parallelism)",
         "HybridParallelPlugin allows ZeRO stage 0 or 1 when pp_size > 1 (ZeRO-2 would sync gradients every "
         "microbatch)."},
        {"colossalai.model_chunks", "colossalai",
         R"(num_model_chunks must be 1 when using 1f1b|number of model chunks must be > 1 when using (interleaved|ZerbubbleV)|num_model_chunks must be 2 when using zero bubble)",
         "The number of model chunks must match the pipeline style: 1 for 1f1b, more than 1 for interleaved, exactly 2 "
         "for zbv."},
        {"colossalai.pp_style", "colossalai", R"(Unsupported pipeline parallelism style)",
         "pp_style must be 1f1b, interleaved or zbv."},
        {"colossalai.microbatches", "colossalai",
         R"(Number of microbatch should be larger than number of stages|Number of microbatch should be an integer multiple of number of pipeline parallel devices)",
         "ColossalAI's 1F1B schedule needs at least pp_size microbatches; the interleaved and zero-bubble schedules "
         "need a "
         "multiple of pp_size."},
        {"colossalai.batch_divisible", "colossalai",
         R"(Batch size should divided by (# microbatches|the number of microbatch|the microbatch size))",
         "The per-rank batch must split into whole microbatches: batch = num_microbatches × microbatch_size."},
        {"colossalai.tp_divides_heads", "colossalai",
         R"(number of attention heads must be divisible by tensor parallel size)",
         "Tensor parallelism gives each GPU whole attention heads, so num_attention_heads must be divisible by "
         "tp_size."},
        {"colossalai.tp_divides_kv_heads", "colossalai", R"(number of key_value heads must be divisible by)",
         "With grouped-query attention the key/value heads are split too: num_key_value_heads must be divisible by "
         "tp_size "
         "and at least tp_size."},
        {"colossalai.seq_divisible", "colossalai",
         R"(dimension to split \((\d+)\) is not a multiple of world size \((\d+)\))",
         "A tensor dimension of size $1 (usually the sequence) is split over $2 GPUs (tp for split_gather/ring, sp for "
         "all_to_all). Pad the sequence length to a multiple of $2 or change the degree."},
        {"colossalai.seq_divisible_ring", "colossalai", R"(seq length (\d+) for tensor \d+ can't be split by (\d+))",
         "Ring attention cuts every sequence into 2 × sp zigzag pieces: the sequence length $1 must be a multiple of "
         "$2."},
        {"colossalai.inner_ring_size", "colossalai", R"(should be divisible by inner_ring_size)",
         "inner_ring_size must divide sp_size (2D ring attention)."},
        {"colossalai.moe_dp_divisible_ep", "colossalai-moe",
         R"(dp_size should be divisible by ep_size[^0-9]*(\d+)[^0-9]+(\d+))",
         "MoeHybridParallelPlugin carves expert parallelism out of data parallelism: dp ($1) must be divisible by ep "
         "($2)."},
        {"colossalai.moe_stage_has_experts", "colossalai-moe", R"(No parameters found in moe_dp_group)",
         "With ZeRO, every pipeline stage must hold at least one MoE layer; here a stage holds only dense layers (for "
         "example the first dense layers of DeepSeek models). Use fewer stages or a manual layer split."},
        {"colossalai.moe_experts_divisible_ep", "colossalai-moe",
         R"(number of experts must be divisible by the number of expert parallel|num_experts % ep_size)",
         "Each expert-parallel rank holds the same number of experts: num_experts must be divisible by ep_size."},
        {"colossalai.moe_sp_with_pp", "colossalai-moe",
         R"(Sequence parallelism is not supported with pipeline parallelism|Pipeline parallelism is not supported with sequence parallelism)",
         "Mixtral and DeepSeek MoE policies cannot combine sequence parallelism with pipeline parallelism; use one of "
         "them."},
        {"colossalai.deepseek_v3_limits", "colossalai-moe", R"(DeepSeekV3 does not support (\w+( \w+)?))",
         "ColossalAI's DeepSeek-V3 policy does not support $1; use expert, pipeline and data parallelism."},
        {"colossalai.model_sp_support", "colossalai",
         R"(all_to_all sequence parallelism is not supported for (\w+)|Invalid sp_mode)",
         "This model's ShardFormer policy does not implement the chosen sequence-parallel mode."},
        {"colossalai.model_policy", "colossalai", R"(Auto policy for (\S+).* is not implemented)",
         "ShardFormer has no sharding policy for $1, so HybridParallelPlugin cannot shard it (use GeminiPlugin / "
         "LowLevelZeroPlugin, or write a custom policy)."},
        {"colossalai.zero_precision", "colossalai", R"(Please set precision to 'fp16' or 'bf16' when using ZeRO)",
         "ZeRO in ColossalAI keeps fp32 master weights of fp16/bf16 parameters; train in fp16 or bf16."},
        {"colossalai.gemini_axes", "colossalai-gemini",
         R"(Gemini is not compatible with pipeline|Cannot use pipeline and gemini)",
         "GeminiPlugin has no pipeline parallelism; use HybridParallelPlugin for pp."},
        {"colossalai.gemini_world_divisible", "colossalai-gemini",
         R"(global group size can't be evenly divided by the subgroup size)",
         "GeminiPlugin needs world = tp × extra_dp × zero: tp must divide the world size."},
        {"colossalai.zero_plugin_stage", "colossalai-zero", R"(LowLevelZeroPlugin only supports stage 1/2)",
         "LowLevelZeroPlugin runs ZeRO stage 1 or 2 only; stage 3 is GeminiPlugin."},
        {"colossalai.moe_zero2_downgraded", "colossalai-moe", R"(ZeRO-2 or comm overlap cause program hang)",
         "MoeHybridParallelPlugin silently turns ZeRO-2 into ZeRO-1 and switches communication overlap off (not an "
         "error)."},
        // ---- Megatron-LM ----
        {"megatron.expert_grid", "megatron",
         R"(world_size \((\d+)\) is not divisible by expert_tensor_model_pipeline_parallel size \((\d+)\))",
         "Megatron's expert grid needs world ($1) divisible by expert-tensor-parallel × expert-parallel × pipeline "
         "($2). EP "
         "is carved out of the tp·cp·dp ranks; it does not multiply the world size."},
        {"megatron.world_divisible", "megatron",
         R"(world[ _]size \((\d+)\) is not divisible by (total_model_size )?\(?(\d+)\)?)",
         "Megatron needs the world size ($1) to be a multiple of tp × pp × cp ($3); dp = world / (tp·pp·cp)."},
        {"megatron.experts_divisible", "megatron",
         R"(Number of experts should be a multiple of expert model parallel|num_(moe_)?experts must be non None)",
         "Expert parallelism needs an MoE model (--num-experts) whose expert count is a multiple of "
         "--expert-model-parallel-size."},
        {"megatron.heads_divisible_tp", "megatron",
         R"(num_attention_heads \((\d+)\) must be a multiple of tensor_model_parallel_size \((\d+)\))",
         "Each tensor-parallel rank gets whole heads: $1 heads cannot be split over tp = $2."},
        {"megatron.query_groups_divisible_tp", "megatron", R"(num_query_groups \((\d+)\) must be a multiple)",
         "With GQA the $1 query groups are split over tensor parallelism: tp must divide them (core ≥ 0.16 also "
         "accepts "
         "tp being a multiple of them)."},
        {"megatron.layers_divisible_vp", "megatron",
         R"(number of layers per pipeline stage must be divisible number of layers per virtual)",
         "The layers of one pipeline stage must split evenly into the virtual stages: num_layers divisible by pp × "
         "vp."},
        {"megatron.layers_divisible_pp", "megatron",
         R"(Number of layers should be divisible by the pipeline-model-parallel size|number of layers of the model must be divisible pipeline)",
         "Megatron splits the layers evenly over pipeline stages: num_layers must be divisible by pp (or use "
         "--decoder-first/last-pipeline-num-layers)."},
        {"megatron.virtual_stages_pp2", "megatron", R"(pipeline-model-parallel size should be greater than 2)",
         "With the interleaved schedule and pp = 2, sends to the next and previous stage go to the same rank; Megatron "
         "needs "
         "overlapped p2p communication (the default) or pp > 2."},
        {"megatron.virtual_stages_need_pp", "megatron",
         R"(pipeline-model-parallel size should be greater than 1|When interleaved schedule is used, pipeline-model-parallel size)",
         "Virtual pipeline stages (the interleaved schedule) need pipeline parallelism (pp > 1)."},
        {"megatron.seq_divisible_cp", "megatron", R"(seq-length should be a multiple of 2 \* context-parallel-size)",
         "Context parallelism splits each sequence into 2 × cp load-balanced chunks: seq_length must be a multiple of "
         "2·cp."},
        {"megatron.global_batch", "megatron",
         R"(global batch size \((\d+)\) is not divisible by micro batch size \((\d+)\) times data parallel size \((\d+)\))",
         "The global batch ($1) must be a multiple of micro batch ($2) × data-parallel size ($3); the quotient is the "
         "number "
         "of microbatches."},
        {"megatron.interleaved_microbatches", "megatron",
         R"(is not divisible by pipeline-model-parallel-size .*interleaved schedule|contiguous micro-batches in a virtual pipeline stage|The remainder of M)",
         "The interleaved schedule runs microbatches in groups of pp: the number of microbatches (global / (micro × "
         "dp)) "
         "must be at least pp and a multiple of it."},
        {"megatron.moe_tp_needs_sp", "megatron",
         R"(MoE and tensor parallelism ?are enabled without also enabling sequence parallelism)",
         "Megatron's MoE layers with tensor parallelism require --sequence-parallel; despite the wording this stops "
         "training."},
        {"megatron.order", "megatron", R"(but you haven'?t ?specified the order)",
         "An axis with size > 1 is missing from the rank order string (e.g. tp-cp-ep-dp-pp)."},
        {"megatron.cuda_device_max_connections", "megatron", R"(CUDA_DEVICE_MAX_CONNECTIONS)",
         "Megatron with tp > 1 or cp > 1 (before Blackwell) needs the environment variable "
         "CUDA_DEVICE_MAX_CONNECTIONS=1 so "
         "that communication and compute kernels are issued in order; FSDP needs it unset or > 1."},
        // ---- torchtitan ----
        {"torchtitan.world_product", "torchtitan", R"(Invalid parallel dims)",
         "torchtitan needs dp_replicate × dp_shard × cp × tp × pp to equal the world size exactly (only dp_shard may "
         "be -1 "
         "to take the rest); ep is not a factor."},
        {"torchtitan.ep_divides", "torchtitan",
         R"(expert_parallel_degree \((\d+)\) must divide dp_shard \* cp \* tp \((\d+)\))",
         "Expert parallelism borrows the dp_shard × cp × tp ranks ($2); ep = $1 must divide them."},
        {"torchtitan.seq_divisible", "torchtitan", R"(must be divisible by the product of TP degree)",
         "With context parallelism the sequence is split into tp × 2·cp pieces: seq_len must be a multiple of that."},
        {"torchtitan.global_batch", "torchtitan", R"(global batch size must be multiple of local batch size)",
         "global_batch_size must be a multiple of local_batch_size × data-parallel degree (the quotient is the number "
         "of "
         "gradient-accumulation steps)."},
        {"torchtitan.pp_stages", "torchtitan",
         R"(v schedules assume 2 stages per rank|Single stage schedule requires|Multi-stage schedule requires|Number of virtual stages)",
         "The pipeline schedule fixes the stages per rank: 1 for single-stage schedules (1F1B, GPipe), at least 2 for "
         "interleaved ones, exactly 2 for V schedules."},
        {"torchtitan.degrees", "torchtitan", R"(dp_shard must -1 or >=1|Parallelism degree should be >= 1)",
         "Parallel degrees must be ≥ 1 (dp_shard may be -1 = infer)."},
        // ---- DeepSpeed ----
        {"deepspeed.batch", "deepspeed",
         R"(train_batch_size is not equal to micro_batch_per_gpu \* gradient_acc_step \* world_size (\d+) != (\d+) \* (\d+) \* (\d+))",
         "DeepSpeed needs train_batch_size = micro batch × gradient accumulation × data-parallel size: $1 != $2 × $3 × "
         "$4. "
         "Give all three consistent values (missing ones are derived with floor division)."},
        {"deepspeed.zero_with_pp", "deepspeed", R"(ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism)",
         "DeepSpeed's PipelineEngine works with ZeRO stage 0 or 1 only."},
        {"deepspeed.world_divisible", "deepspeed",
         R"(num_stages \((\d+)\) must divide distributed world size \((\d+)\))",
         "The number of pipeline stages ($1) must divide the world size ($2)."},
        {"deepspeed.zero_stage", "deepspeed", R"(Maximum supported ZeRO stage is 3)", "ZeRO stages are 0 to 3."},
        // ---- kernels ----
        {"kernel.flash_attention_gpu", "cuda", R"(FlashAttention only supports (Ampere|Turing) GPUs or newer)",
         "Flash attention kernels need an Ampere-or-newer GPU (A100, H100, L40S, ...); turn flash attention off on "
         "older GPUs."},
        {"kernel.flash_attention_dtype", "cuda", R"(FlashAttention only supports? fp16 and bf16)",
         "Flash attention runs on fp16/bf16 tensors only; train in bf16/fp16 or turn it off."},
        {"kernel.bf16_gpu", "cuda", R"(does not support bfloat16|bf16 is only supported on A100)",
         "This GPU has no bfloat16 support (pre-Ampere); train in fp16 with loss scaling."},
        {"kernel.fp8_gpu", "cuda",
         R"(compute capability 8\.9 or higher required for FP8|FP8 (is )?(not supported|requires))",
         "FP8 GEMMs need Hopper, Ada, Blackwell or MI300 GPUs."},
        // Transformer Engine v2.9 pytorch/quantization.py check_nvfp4_support; Megatron-LM core_v0.16.0
        // transformer_config.py TransformerConfig.__post_init__.
        {"kernel.fp4_gpu", "cuda", R"(compute capability 10\.0 or higher required for NVFP4)",
         "NVFP4 GEMMs need Blackwell-class NVIDIA GPUs (compute capability 10.0+); set layout.fp4_recipe to none."},
        {"kernel.fp4_fp8", "megatron",
         R"(fp4 and fp8 cannot be used simultaneously|--fp4-format and --fp8-format cannot)",
         "Megatron-LM runs the linear layers in FP4 or in FP8, not both; keep one of fp4_recipe and fp8."},
        // ---- NCCL / PyTorch distributed / CUDA ----
        {"nccl.watchdog_timeout", "nccl",
         R"(Watchdog caught collective operation timeout|collective operation timeout|NCCL timeout)",
         "A rank waited longer than the process-group timeout (default 10 min) for a collective. Usually the ranks are "
         "not "
         "running the same collectives: one crashed or ran out of memory, ranks disagree on the layout (different "
         "config "
         "per node), a pipeline schedule mismatch or uneven batches, or a data loader stall; less often a very slow "
         "network. "
         "Check the first error on every rank, and rerun with NCCL_DEBUG=INFO and TORCH_NCCL_ASYNC_ERROR_HANDLING=1."},
        {"nccl.unhandled_system_error", "nccl", R"(NCCL error.*unhandled system error|ncclSystemError)",
         "NCCL failed a system call. Common causes: the wrong network interface (set NCCL_SOCKET_IFNAME, e.g. to the "
         "InfiniBand/Ethernet device shared by all nodes), too little shared memory in a container (run with "
         "--ipc=host or "
         "a larger --shm-size), InfiniBand/RDMA not set up (try NCCL_IB_DISABLE=1 to confirm), or firewalled ports. "
         "Rerun "
         "with NCCL_DEBUG=INFO to see the failing call."},
        {"nccl.unhandled_cuda_error", "nccl", R"(NCCL error.*unhandled cuda error|ncclUnhandledCudaError)",
         "A CUDA call inside NCCL failed: often a driver/CUDA mismatch, peer-to-peer access broken between GPUs (try "
         "NCCL_P2P_DISABLE=1 to confirm), or an earlier kernel failure such as out of memory."},
        {"nccl.invalid_usage", "nccl", R"(ncclInvalidUsage|NCCL error.*invalid usage|Duplicate GPU detected)",
         "Two ranks use the same GPU: --nproc_per_node exceeds the GPUs of the node or the script does not call "
         "torch.cuda.set_device(LOCAL_RANK)."},
        {"nccl.network_error", "nccl",
         R"(remote process exited or there was a network error|NET/(IB|Socket).*(error|failed))",
         "A peer disappeared or the network failed during a collective: look for a crash (often OOM) on another rank "
         "first, "
         "then check the inter-node network."},
        {"pytorch.rendezvous", "pytorch",
         R"(DistNetworkError|Timed out initializing process group|TCPStore|connect\(\) timed out|Connection refused)",
         "The ranks could not meet at MASTER_ADDR:MASTER_PORT: check that the address is reachable from every node, "
         "the port "
         "is open, every node uses the same --nnodes/--rdzv settings, and all nodes started."},
        {"pytorch.port_in_use", "pytorch", R"(Address already in use|EADDRINUSE)",
         "The master port is taken (often by an earlier run still alive): pick another --master_port or stop the old "
         "job."},
        {"cuda.out_of_memory", "cuda",
         R"(CUDA out of memory|OutOfMemoryError|CUBLAS_STATUS_ALLOC_FAILED|HIP out of memory)",
         "A GPU ran out of memory. Reduce the memory per GPU: a smaller micro batch, activation recomputation, a "
         "higher "
         "ZeRO stage, or more model parallelism (tp/pp/cp). Setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
         "reduces fragmentation."},
        {"cuda.arch_mismatch", "cuda", R"(no kernel image is available for execution on the device)",
         "The installed PyTorch or extension was not compiled for this GPU architecture; install a build that targets "
         "it."},
    };
    return p;
}

// Changes that lower memory per GPU, kept when they leave the project valid.
std::vector<Fix> memory_fixes(const Project& p) {
    std::vector<Fix> c;
    const Training& t = p.training;
    const Layout& l = p.layout;
    if (t.micro_batch_size > 1)
        c.push_back(rules::set_value("/training/micro_batch_size", t.micro_batch_size / 2,
                                     "Halve the micro batch to " + std::to_string(t.micro_batch_size / 2)));
    if (l.recompute != Recompute::full)
        c.push_back(rules::set_value("/layout/recompute", "full", "Recompute activations (full)"));
    // The highest ZeRO stage the framework accepts with this pipeline (project/framework.h).
    const FrameworkTraits* ft = find_traits(l.framework);
    const int max_zero = ft && !zero_stages(*ft, l.pp).empty() ? zero_stages(*ft, l.pp).back() : 2;
    if (l.zero_stage < max_zero)
        c.push_back(
            rules::set_value("/layout/zero_stage", l.zero_stage + 1, "Use ZeRO-" + std::to_string(l.zero_stage + 1)));
    for (int f : {2, 4}) {
        c.push_back(rules::set_int(p, "/layout/tp", l.tp * f));
        c.push_back(rules::set_int(p, "/layout/pp", l.pp * f));
    }
    std::vector<Fix> out;
    for (const auto& f : c) {
        try {
            if (!has_errors(validate(with_fix(p, f)))) out.push_back(f);
        } catch (const std::exception&) {}
        if (out.size() >= 4) break;
    }
    return out;
}

// Compiled once (compiling all patterns costs milliseconds).
const std::vector<std::regex>& compiled() {
    static const std::vector<std::regex> r = [] {
        std::vector<std::regex> v;
        for (const auto& pat : patterns()) v.emplace_back(pat.regex, std::regex::ECMAScript | std::regex::icase);
        return v;
    }();
    return r;
}

}   // namespace

std::size_t known_error_patterns() { return patterns().size(); }

ErrorExplanation explain_error(const std::string& text, const Project* project) {
    ErrorExplanation e;
    std::string_view tail(text);
    if (tail.size() > kExplainBytes) {
        tail.remove_prefix(tail.size() - kExplainBytes);
        const auto nl = tail.find('\n');
        if (nl != std::string_view::npos) tail.remove_prefix(nl + 1);
    }
    const std::string searched(tail);
    const auto& res = compiled();
    for (std::size_t i = 0; i < res.size(); ++i) {
        const Pattern& pat = patterns()[i];
        const std::regex& re = res[i];
        std::smatch m;
        if (!std::regex_search(searched, m, re)) continue;
        e.matched = true;
        e.rule = pat.rule;
        e.framework = pat.framework;
        e.matched_text = m.str(0);
        e.explanation = m.format(pat.explanation);
        break;
    }
    if (!e.matched || !project) return e;
    const auto ds = validate(*project);
    for (const auto& d : ds)
        if (d.rule == e.rule) e.diagnostics.push_back(d);
    if (!e.diagnostics.empty()) {
        for (const auto& d : e.diagnostics)
            for (const auto& f : d.fixes) e.fixes.push_back(f);
    } else {
        // The project does not break this rule (now); its own errors may still explain the failure.
        for (const auto& d : ds)
            if (d.severity != Severity::Info) e.diagnostics.push_back(d);
        if (e.rule == "cuda.out_of_memory") e.fixes = memory_fixes(*project);
    }
    return e;
}

nlohmann::json to_json(const ErrorExplanation& e) {
    nlohmann::json fixes = nlohmann::json::array();
    for (const auto& f : e.fixes) fixes.push_back(to_json(f));
    nlohmann::json j = {{"matched", e.matched},
                        {"rule", e.matched ? nlohmann::json(e.rule) : nlohmann::json(nullptr)},
                        {"framework", e.matched ? nlohmann::json(e.framework) : nlohmann::json(nullptr)},
                        {"explanation", e.explanation},
                        {"matched_text", e.matched_text},
                        {"fixes", fixes},
                        {"diagnostics", to_json(e.diagnostics)}};
    return j;
}

}   // namespace paraplan
