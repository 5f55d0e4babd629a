#pragma once
// The estimator's own inputs: a framework-neutral description of one layout
// (sizes, groups, batch, schedule, precision), the hardware it runs on, and the
// placement of each parallel group. Built from a Project by estimate.cpp; tests
// and the planner fill it directly so that every formula can be checked alone.
#include "network/fabric.h"
#include "project/framework.h"
#include "project/layout_enums.h"
#include "project/peft.h"

#include <array>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace paraplan::estimate {

// The layout's typed choices, one enum per meaning (project/layout_enums.h has them and their
// names): the estimate reads them as the project reader parsed them.
using paraplan::LossLogits;
using paraplan::MoeDispatcher;
using paraplan::Recompute;

// How the sequence is split inside a layer.
//   megatron_sp: Korthikanti's sequence parallelism inside the TP group (ColossalAI
//                split_gather/ring, Megatron --sequence-parallel, torchtitan TP);
//   ulysses:     DeepSpeed-Ulysses all-to-all over a separate SP group (ColossalAI all_to_all);
//   ring:        ring attention / context parallelism over a separate group (Megatron CP,
//                ColossalAI ring_attn, torchtitan CP).
enum class SeqSplit { none, ulysses, ring };

// Pipeline schedules: layout.schedule's Schedule (project/layout_enums.h), resolved for the framework
// (resolved_schedule, project/framework.h) before the estimate sees it, so never Schedule::interleaved
// here. The closed forms in pipeline.h model each, the simulator runs each for a single project.

// Several model chunks per rank in a loop (v = chunks).
bool is_multi_chunk(Schedule s);
// Two chunks per rank in a V (zbv, dualpipev).
bool is_v_shape(Schedule s);
// The schedule's name in the estimate's JSON: the table's name, except that Megatron's and
// ColossalAI's interleaved 1F1B both read "interleaved".
const char* reported_name(Schedule s);
// The schedule id the simulator (core/schedule/ schedule_names()) runs for s.
const char* simulator_name(Schedule s);

// The links one kind of group actually spans (from the rank map).
struct GroupLink {
    int size = 1;               // members of one group
    int nodes = 1;              // nodes one group spans
    int members_per_node = 1;   // group members sharing a node
    double bw_gbs = 0;          // per-GPU bandwidth of the flat model's collectives, GB/s (not read with a fabric)
    double latency_s = 5e-6;    // per hop
    // The tiers the group crosses on the cluster's system (Hardware::network), its collectives
    // priced the way NCCL runs them (network/collective.h); absent: the flat model of comm.h.
    std::optional<network::Fabric> fabric;
};

// kEdp: the expert data-parallel group (gradient sync of expert weights).
enum GroupKind { kTp = 0, kCp, kEp, kPp, kDp, kEdp, kGroupKinds };

struct Hardware {
    double memory_gib = 80;
    double peak_tflops = 312;        // dense, for the 16-bit (or fp32) training precision
    double peak_fp8_tflops = 0;      // dense FP8 peak (0: the part has no FP8 tensor cores)
    double peak_fp4_tflops = 0;      // dense FP4 peak (0: the part has no FP4 tensor cores)
    double power_ratio = 1;          // power limit / TDP (peaks above are already derated)
    double hbm_gbps = 2039;          // GB/s
    double intra_node_gbps = 300;    // per GPU, unidirectional, GB/s
    double inter_node_gbits = 400;   // one node's total network bandwidth, Gbit/s
    int gpus_per_node = 8;
    double latency_us = 5;
    std::string arch = "ampere";
    // A cluster profile's multipliers of the efficiency model (profile.h); 1 = built-in.
    double gemm_scale = 1;
    double attention_scale = 1;
    // The profile's caching-allocator reserve (a fraction of the allocated peak); < 0: the
    // framework's built-in share (memory.h kFragmentation, kFragmentationFsdp).
    double memory_reserve = -1;
    // The cluster's network tiers (network::system_of: cluster.system, cluster.network.tiers, or
    // the two tiers its nodes and network make); null: the flat two-figure network above, for a
    // Hardware built by hand or a cluster whose system does not price (rule cluster.system_gpus).
    std::shared_ptr<const network::System> network;
};

// Bytes per parameter by role (before any ZeRO sharding).
struct StateBytes {
    double weight = 2;       // the compute copy (bf16/fp16)
    double grad = 2;         // gradient buffer
    double optimizer = 12;   // fp32 master + optimizer moments
};

// Mixture of experts as the framework runs it (core/estimate/moe.h has the formulas). The dispatcher
// (layout.moe_dispatcher, project/layout_enums.h):
//   alltoall: Megatron --moe-token-dispatcher-type alltoall, torchtitan's default all-to-all;
//   allgather: Megatron's allgather dispatcher (all-gather over the EP group, reduce-scatter back);
//   deepep: DeepEP normal kernels (Megatron flex + --moe-enable-deepep, torchtitan/Automodel deepep):
//           one copy of a token per destination node over RDMA, then NVLink forwarding.

struct MoeOptions {
    MoeDispatcher dispatcher = MoeDispatcher::alltoall;
    double capacity_factor = 0;   // 0: dropless; > 0: each expert takes at most C x its balanced share
    double imbalance = 0;         // busiest EP rank's routed tokens / balanced share; 0: kDefaultMoeImbalance
    bool fp8_dispatch = false;    // dispatch all-to-all in FP8 (DeepEP with FP8 training); combine stays BF16
    bool overlap = false;         // dispatch/combine hidden behind another microbatch's compute
    int mtp_layers = 0;           // multi-token-prediction modules trained (on the last stage)
};

// LoRA (layout.peft; estimate/lora.h has the formulas): the base weights are frozen, the
// adapters of the targeted linears are the only trained parameters.
struct LoraOptions {
    int rank = 0;   // 0: full training
    std::vector<LoraTarget> targets;
    // One adapter per Megatron-core linear (fused Q/K/V and gate/up: Megatron-Bridge) or one per
    // Hugging Face module (q, k, v, gate, up apart: HF PEFT); FrameworkTraits::lora.
    bool fused = true;
    double base_bytes = 2;   // bytes per frozen transformer-layer weight (project/peft.h base_weight_bytes)
    bool on() const { return rank > 0; }
};

struct Config {
    int tp = 1, pp = 1, cp = 1, ep = 1, etp = 1, dp = 1;
    SeqSplit seq_split = SeqSplit::none;   // how cp (> 1) splits the sequence
    bool sequence_parallel = false;        // Korthikanti SP inside the TP group
    int zero_stage = 0;
    int zero_group = 1;                   // ranks dense states are sharded over (dp, dp*cp, dp*sp ...)
    int expert_zero_group = 1;            // ranks expert states are sharded over (expert data parallel)
    int expert_dp = 1;                    // expert data-parallel size (gradient sync of expert weights)
    bool distributed_optimizer = false;   // Megatron: optimizer sharded over DP x CP (6 + 12/dp)
    int micro_batch = 1;
    int num_microbatches = 1;   // per pipeline flush
    // Pipeline flushes per optimizer step: global / (micro x dp x num_microbatches) where the
    // framework takes num_microbatches as its per-flush knob (project/derived_sizes.h), else 1.
    int grad_accum_steps = 1;
    // The data-parallel gradient reduction runs after every flush rather than once per step:
    // torch.distributed.pipelining reduces at the end of each schedule step (PyTorch v2.10.0
    // torch/distributed/pipelining/stage.py: backward_maybe_with_nosync defers the DDP/FSDP sync
    // to the step's last backward, _post_backward re-enables it) and torchtitan v0.2.2
    // train_step has no no_sync around its accumulation steps. ColossalAI's execute_pipeline
    // skips sync_dp_grads inside booster.no_sync(), so an accumulating loop reduces once.
    // The framework's FrameworkTraits::grad_sync_each_flush row (project/framework.h).
    bool grad_sync_each_flush = false;
    int seq_len = 2048;
    Schedule schedule = Schedule::one_f_one_b;
    int chunks = 1;   // model chunks per pipeline rank
    Recompute recompute = Recompute::none;
    bool flash_attention = true;
    // FP8 linear-layer GEMMs in this recipe (attention etc. stay 16-bit); nullopt: none in FP8.
    std::optional<Fp8Recipe> fp8;
    bool fp8_all_gather = false;   // FSDP / ZeRO-3 parameter all-gathers in FP8
    // FP4 linear-layer GEMMs (layout.fp4_recipe; fp8 is nullopt with it), except the first and last
    // transformer layers the framework keeps in BF16 (FrameworkTraits::fp4_bf16_layers_at_start / _end).
    Fp4Recipe fp4 = Fp4Recipe::none;
    int fp4_bf16_layers_at_start = 0, fp4_bf16_layers_at_end = 0;
    KernelStack kernels = KernelStack::te;   // resolved (layout.h kernel_stack): never KernelStack::framework
    bool compile_loss = false;               // the loss compiled too (with kernels compile; layout.h)
    // What the loop holds of the logits through the eager loss's backward (layout.h loss_logits;
    // framework = "auto": the framework's own loop, else by the kernel stack).
    LossLogits loss_logits = LossLogits::framework;
    std::string framework = "megatron";   // whose allocator and buffers the memory model counts
    bool dropout = false;                 // dropout masks stored (GPT-2/BERT style models)
    StateBytes bytes;
    double offload_optimizer = 0;   // fraction of optimizer states (and master) on CPU/NVMe
    bool offload_params = false;    // ZeRO-3 parameter offload
    bool offload_nvme = false;
    // Overlap the framework does.
    bool overlap_grad_reduce = true;
    bool overlap_param_gather = true;
    bool overlap_p2p = false;
    // TP collectives overlapped with the GEMMs they feed (comm_terms.h tp_overlap_exposed): the
    // framework's kind where its switch is on (layout.tp_comm_overlap / enable_async_tensor_parallel)
    // and what it needs holds (tp > 1 with sequence parallelism; compiled blocks for torchtitan).
    TpCommOverlapKind tp_comm_overlap = TpCommOverlapKind::none;
    // userbuffers: the forward reduce-scatters after proj / fc2 run as a ring exchange rather than
    // TE's default pipelined chunks (layout.tp_comm_overlap_cfg proj_fprop / fc2_fprop method).
    bool tp_overlap_proj_ring = false, tp_overlap_fc2_ring = false;
    double grad_reduce_bytes = 2;   // bytes per element in the gradient reduction
    // Layers per pipeline rank (sum of its chunks) and how many are MoE; size pp.
    std::vector<int> layers_per_stage;
    std::vector<int> moe_layers_per_stage;
    // Hybrid Mamba models (hybrid.h): pattern layers 'M', '*' and '-' per stage (MoE 'E' layers in
    // moe_layers_per_stage); empty for other models.
    bool hybrid = false;
    std::vector<int> mamba_layers_per_stage, attention_layers_per_stage, mlp_layers_per_stage;
    // Which stage holds the embedding and which the output layer + loss.
    int embedding_stage = 0;
    int head_stage = -1;   // -1: pp - 1
    std::array<GroupLink, kGroupKinds> link{};
    MoeOptions moe;
    LoraOptions lora;
};

// What Config::fp8_all_gather does in the framework that runs it: its FrameworkTraits row
// fp8_all_gather_kind (project/framework.h, where each kind and its source are described):
// fsdp_weights (torchtitan FSDP2), primary_weights (Megatron --fp8-param-gather, with the
// distributed optimizer only; memory.h fp8_primary_weight_bytes) or wire_casts (ColossalAI
// fp8_communication; comm_terms.h).
using Fp8Gather = Fp8AllGatherKind;
Fp8Gather fp8_gather_of(const Config& c);
const char* to_string(Fp8Gather g);
// How Config::tp_comm_overlap hides the TP collectives: none, userbuffers, micro_pipeline
// (estimate --json layout.tp_comm_overlap).
const char* to_string(TpCommOverlapKind k);

}   // namespace paraplan::estimate
