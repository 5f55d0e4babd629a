// Megatron-LM export: a runnable shell script that starts pretrain_gpt.py (pretrain_mamba.py for a
// hybrid Mamba model) with torchrun on each node. Flag names are those of megatron/training/arguments.py
// (core_v0.14.0; tests/data/megatron_flags.txt lists them all and the tests check
// every emitted flag against it). Megatron has no --virtual-pipeline-model-parallel-size
// flag: virtual stages go through --num-virtual-stages-per-pipeline-rank.
#include "catalog/catalog.h"
#include "project/project_gpu.h"
#include "export/export.h"
#include "export/export_common.h"
#include "topology/megatron_order.h"
#include "export/launch_plan.h"
#include "project/framework.h"
#include "project/fp8.h"

#include <algorithm>
#include <sstream>

namespace paraplan {

using namespace exportutil;

std::vector<std::string> MegatronArgs::all() const {
    std::vector<std::string> v;
    for (const auto* g : {&model, &moe, &parallel, &training, &data}) v.insert(v.end(), g->begin(), g->end());
    return v;
}

namespace {
void add(std::vector<std::string>& v, const std::string& flag) { v.push_back(flag); }
void add(std::vector<std::string>& v, const std::string& flag, long long value) {
    v.push_back(flag);
    v.push_back(std::to_string(value));
}
void add(std::vector<std::string>& v, const std::string& flag, const std::string& value) {
    v.push_back(flag);
    v.push_back(value);
}
}   // namespace

MegatronArgs megatron_args(const Project& p, std::vector<Diagnostic>& findings) {
    MegatronArgs a;
    const Layout& l = p.layout;
    const ModelSpec& m = p.model;
    const Training& t = p.training;
    auto fail = [&](const std::string& what, std::vector<std::string> fields) {
        findings.push_back(unsupported("megatron", what, std::move(fields)));
    };

    // Model shape (pretrain_gpt.py builds a decoder-only GPT).
    if (m.encoder_layers > 0) fail("an encoder-decoder model with pretrain_gpt.py", {"/model"});
    add(a.model, "--num-layers", m.layers);
    add(a.model, "--hidden-size", m.hidden);
    add(a.model, "--num-attention-heads", m.heads);
    const int ffn = m.ffn_hidden > 0 ? m.ffn_hidden : m.expert_ffn_hidden;
    if (ffn > 0) add(a.model, "--ffn-hidden-size", ffn);
    if (m.kv_heads > 0 && m.kv_heads != m.heads) {
        add(a.model, "--group-query-attention");
        add(a.model, "--num-query-groups", m.kv_heads);
    }
    if (m.head_dim > 0 && m.heads > 0 && m.head_dim != m.hidden / m.heads) add(a.model, "--kv-channels", m.head_dim);
    add(a.model, "--seq-length", t.seq_len);
    add(a.model, "--max-position-embeddings", std::max(m.max_seq, t.seq_len));
    if (m.activation == "swiglu") add(a.model, "--swiglu");
    else if (m.activation == "relu2") add(a.model, "--squared-relu");   // Nemotron-H's squared ReLU
    else if (m.activation != "gelu")
        findings.push_back(
            finding(Severity::Warning, "export.megatron.activation",
                    "Megatron's GPT has no \"" + m.activation + "\" switch; the script keeps its default (gelu).",
                    {"/model/activation"}));
    if (m.norm == "rmsnorm") add(a.model, "--normalization", "RMSNorm");
    if (m.position == "none") add(a.model, "--position-embedding-type", "none");
    else if (m.position == "rope") add(a.model, "--position-embedding-type", "rope");
    else if (m.position == "relative") add(a.model, "--position-embedding-type", "relative");
    else add(a.model, "--position-embedding-type", "learned_absolute");
    if (!m.tied_embeddings) add(a.model, "--untie-embeddings-and-output-weights");
    if (!m.attn_bias && !m.mlp_bias) add(a.model, "--disable-bias-linear");
    else if (m.qkv_bias_only && !m.mlp_bias) {
        add(a.model, "--disable-bias-linear");
        add(a.model, "--add-qkv-bias");
    }
    if (m.kv_lora_rank > 0) {
        add(a.model, "--multi-latent-attention");
        if (m.q_lora_rank > 0) add(a.model, "--q-lora-rank", m.q_lora_rank);
        add(a.model, "--kv-lora-rank", m.kv_lora_rank);
        add(a.model, "--qk-head-dim", m.qk_nope_head_dim);
        add(a.model, "--qk-pos-emb-head-dim", m.qk_rope_head_dim);
        add(a.model, "--v-head-dim", m.v_head_dim);
    }
    if (m.is_hybrid()) {
        // pretrain_mamba.py (MambaModel): the pattern places each layer; mamba_builders.py needs the
        // stack spec through --spec, and --is-hybrid-model makes training.py's
        // num_floating_point_operations count the hybrid layers (core_v0.16.0).
        add(a.model, "--is-hybrid-model");
        add(a.model, "--hybrid-override-pattern", m.hybrid_override_pattern);
        add(a.model, "--mamba-state-dim", m.mamba_state_dim);
        add(a.model, "--mamba-head-dim", m.mamba_head_dim);
        add(a.model, "--mamba-num-groups", m.mamba_num_groups);
        add(a.model, "--mamba-num-heads", m.mamba_num_heads);
        a.model.push_back("--spec");
        a.model.push_back("megatron.core.models.mamba.mamba_layer_specs");
        a.model.push_back("mamba_stack_spec");
    }
    if (m.is_moe()) {
        add(a.moe, "--num-experts", m.experts);
        add(a.moe, "--moe-router-topk", m.top_k);
        if (m.expert_ffn_hidden > 0) add(a.moe, "--moe-ffn-hidden-size", m.expert_ffn_hidden);
        if (m.shared_experts > 0)
            add(a.moe, "--moe-shared-expert-intermediate-size",
                m.shared_expert_ffn_hidden > 0 ? m.shared_expert_ffn_hidden : m.shared_experts * m.expert_ffn_hidden);
        if (!m.is_hybrid() && (!m.dense_layers.empty() || m.moe_layer_freq > 1)) {
            // --moe-layer-freq takes a Python list expression: 1 = MoE layer, 0 = dense.
            std::string pattern = "[";
            for (int i = 0; i < m.layers; ++i) pattern += std::string(i ? "," : "") + (m.is_moe_layer(i) ? "1" : "0");
            add(a.moe, "--moe-layer-freq", pattern + "]");
        }
        add(a.moe, "--moe-token-dispatcher-type", "alltoall");
        add(a.moe, "--moe-grouped-gemm");
    }

    // Parallel sizes.
    add(a.parallel, "--tensor-model-parallel-size", l.tp);
    add(a.parallel, "--pipeline-model-parallel-size", l.pp);
    add(a.parallel, "--context-parallel-size", l.cp);
    if (m.is_moe() || l.ep > 1) add(a.parallel, "--expert-model-parallel-size", l.ep);
    if (l.etp > 0) add(a.parallel, "--expert-tensor-parallel-size", l.etp);
    if (l.chunks > 1) add(a.parallel, "--num-virtual-stages-per-pipeline-rank", l.chunks);
    // The embedding / loss counted as a layer each in the pipeline split (core 0.11+, arguments.py).
    if (l.pp > 1 && l.account_for_embedding_in_pipeline_split)
        add(a.parallel, "--account-for-embedding-in-pipeline-split");
    if (l.pp > 1 && l.account_for_loss_in_pipeline_split) add(a.parallel, "--account-for-loss-in-pipeline-split");
    if (l.pp > 1 && !(l.schedule == Schedule::one_f_one_b || is_interleaved_1f1b(l.schedule)))
        fail("the pipeline schedule \"" + std::string(to_string(l.schedule)) +
                 "\" (Megatron runs 1F1B, interleaved when chunks > 1)",
             {"/layout/schedule"});
    if (is_interleaved_1f1b(l.schedule) && l.chunks < 2)
        fail("an interleaved schedule with one chunk per stage", {"/layout/chunks"});
    if (!l.num_layers_per_stage.empty())
        fail(
            "an explicit per-stage layer list (Megatron splits evenly, or via "
            "--decoder-first/last-pipeline-num-layers)",
            {"/layout/num_layers_per_stage"});
    // Sequence parallelism in Megatron lives inside the TP group; it is required
    // with MoE when both EP and TP are > 1 (arguments.py validate_args).
    const bool sp_in_tp = sp_tp_mode(l.sp_mode);
    if ((sp_in_tp && l.tp > 1) || (l.ep > 1 && l.tp > 1)) add(a.parallel, "--sequence-parallel");
    // Transformer Engine userbuffers TP overlap; arguments.py asserts --sequence-parallel with it.
    if (l.tp_comm_overlap && l.tp > 1 && (sp_in_tp || l.ep > 1)) add(a.parallel, "--tp-comm-overlap");
    if (l.sp > 1 || sp_axis_mode(l.sp_mode))
        fail("sequence parallelism \"" + std::string(to_string(l.sp_mode)) +
                 "\" with sp > 1 (Megatron shards sequences through cp)",
             {"/layout/sp", "/layout/sp_mode"});
    const std::optional<topology::MegatronOrder> order = topology::megatron_cli_order(l.order);
    if (order == topology::MegatronOrder::pp_outside_dp) add(a.parallel, "--use-tp-pp-dp-mapping");
    else if (!order)
        fail("the rank order \"" + l.order + "\" (only tp-cp-ep-dp-pp and tp-cp-ep-pp-dp)", {"/layout/order"});
    if (l.tp_mode != TpMode::one_d)
        fail("the " + std::string(to_string(l.tp_mode)) + " tensor mode", {"/layout/tp_mode"});

    // Training.
    add(a.training, "--micro-batch-size", t.micro_batch_size);
    add(a.training, "--global-batch-size", t.global_batch_size);
    long long iters = 1000;
    if (t.train_tokens > 0) {
        const long long per_step = 1LL * t.global_batch_size * t.seq_len;
        iters = std::max<long long>(1, (t.train_tokens + per_step - 1) / per_step);
    }
    add(a.training, "--train-iters", iters);
    add(a.training, "--lr", "3.0e-4");
    add(a.training, "--min-lr", "3.0e-5");
    add(a.training, "--weight-decay", "0.1");
    if (t.optimizer == Optimizer::sgd) add(a.training, "--optimizer", "sgd");
    else if (t.optimizer == Optimizer::adam || t.optimizer == Optimizer::adamw) add(a.training, "--optimizer", "adam");
    else
        fail("the optimizer \"" + std::string(to_string(t.optimizer)) + "\" (Megatron offers adam and sgd)",
             {"/training/optimizer"});
    if (t.precision == Precision::bf16 || t.precision == Precision::fp8) add(a.training, "--bf16");
    else if (t.precision == Precision::fp16) add(a.training, "--fp16");
    // FP4 (layout.fp4_recipe) where Megatron runs the recipe (FrameworkTraits::fp4_recipes; export.cpp
    // reports one it does not): --fp4-format e2m1 --fp4-recipe nvfp4 (transformer_config.py fp4 /
    // fp4_recipe, core_v0.16.0), and the framework row's BF16 layers through --first-last-layers-bf16
    // with --num-layers-at-start-in-bf16 / --num-layers-at-end-in-bf16. Megatron refuses FP4 with FP8
    // (kernel.fp4_fp8), so the FP8 flags are left out then, as the estimate leaves FP8 out.
    const bool fp4 = l.fp4_recipe != Fp4Recipe::none && runs_fp4_recipe("megatron", l.fp4_recipe);
    if (fp4) {
        add(a.training, "--fp4-format", "e2m1");
        add(a.training, "--fp4-recipe", to_string(l.fp4_recipe));
        const FrameworkTraits& mt = traits(Framework::megatron);
        if (mt.fp4_bf16_layers_at_start > 0 || mt.fp4_bf16_layers_at_end > 0) {
            add(a.training, "--first-last-layers-bf16");
            add(a.training, "--num-layers-at-start-in-bf16", mt.fp4_bf16_layers_at_start);
            add(a.training, "--num-layers-at-end-in-bf16", mt.fp4_bf16_layers_at_end);
        }
        if (fp8_on(l, t))
            findings.push_back(finding(Severity::Warning, "export.megatron.fp4_fp8",
                                       "Megatron-LM refuses --fp4-format with --fp8-format: written with FP4 only.",
                                       {"/layout/fp4_recipe", "/layout/fp8"}));
    }
    if (!fp4 && fp8_on(l, t)) {
        // Megatron-LM arguments.py: --fp8-format {e4m3,hybrid}, --fp8-recipe
        // {tensorwise,delayed,mxfp8,blockwise}, --fp8-param-gather (FP8 weights all-gathered).
        add(a.training, "--fp8-format", "hybrid");
        if (!accepts_fp8_recipe("megatron", l.fp8_recipe)) {   // rowwise (FrameworkTraits::fp8_recipes)
            findings.push_back(finding(Severity::Warning, "export.megatron.fp8_recipe",
                                       "Megatron-LM has no row-wise FP8 recipe; written as --fp8-recipe tensorwise.",
                                       {"/layout/fp8_recipe"}));
            add(a.training, "--fp8-recipe", "tensorwise");
        } else {
            add(a.training, "--fp8-recipe", to_string(l.fp8_recipe));
        }
        if (l.fp8_all_gather) add(a.training, "--fp8-param-gather");
    }
    // Kernel stack (layout.kernels). Megatron-LM builds its layers from Transformer Engine unless
    // --transformer-impl local (choices local, transformer_engine; arguments.py
    // _add_transformer_engine_args, and pretrain_gpt.py _get_transformer_layer_spec picks the local
    // spec from it, core_v0.14.0). FP8 runs through Transformer Engine only; there is no switch
    // that compiles the model with torch.compile. "auto" is Megatron's default, whichever
    // framework the project names.
    Layout as_megatron = l;
    as_megatron.framework = "megatron";
    if (const KernelStack ks = kernel_stack(as_megatron); ks == KernelStack::eager) {
        if (fp8_on(l, t) || fp4)
            findings.push_back(finding(Severity::Warning, "export.megatron.kernels",
                                       "Megatron-LM runs FP8 and FP4 only through Transformer Engine: written with its "
                                       "Transformer Engine layers although kernels is \"eager\".",
                                       {"/layout/kernels", fp4 ? "/layout/fp4_recipe" : "/layout/fp8"}));
        else add(a.training, "--transformer-impl", "local");
    } else if (ks == KernelStack::compile) {
        findings.push_back(finding(Severity::Warning, "export.megatron.kernels",
                                   "Megatron-LM has no torch.compile switch for the model: written with its default "
                                   "Transformer Engine layers (--transformer-impl transformer_engine).",
                                   {"/layout/kernels"}));
    }
    if (l.zero_stage >= 2) {
        add(a.training, "--use-megatron-fsdp");
        add(a.training, "--data-parallel-sharding-strategy", l.zero_stage == 2 ? "optim_grads" : "optim_grads_params");
    } else if (l.zero_stage == 1 || l.distributed_optimizer) {
        add(a.training, "--use-distributed-optimizer");
    }
    if (l.offload == Offload::cpu) {
        add(a.training, "--optimizer-cpu-offload");
        if (l.offload_fraction > 0) {
            std::ostringstream f;
            f << l.offload_fraction;
            add(a.training, "--optimizer-offload-fraction", f.str());
        }
    } else if (l.offload == Offload::nvme) {
        fail("NVMe offload", {"/layout/offload"});
    }
    if (l.recompute == Recompute::full) {
        add(a.training, "--recompute-granularity", "full");
        add(a.training, "--recompute-method", "uniform");
        add(a.training, "--recompute-num-layers", 1);
    } else if (l.recompute == Recompute::selective) {
        add(a.training, "--recompute-granularity", "selective");
    }
    if (!l.flash_attention) add(a.training, "--attention-backend", "unfused");

    // Data: mock data and a null tokenizer so that the script runs as written;
    // replace with --data-path / --tokenizer-type for real training.
    add(a.data, "--mock-data");
    add(a.data, "--tokenizer-type", "NullTokenizer");
    add(a.data, "--vocab-size", m.vocab);
    return a;
}

std::string megatron_script(const Project& p, const ExportOptions& opt) {
    if (!opt.script.empty()) return opt.script;
    return p.model.is_hybrid() ? "pretrain_mamba.py" : "pretrain_gpt.py";
}

std::vector<std::pair<std::string, std::string>> megatron_env(const Project& p) {
    // CUDA_DEVICE_MAX_CONNECTIONS=1 is required with TP or CP > 1 before Blackwell
    // (arguments.py asserts it) and must not be 1 with Megatron-FSDP.
    bool pre_blackwell = false;
    for (const auto& n : p.cluster.nodes) {
        const GpuSpec* g = find_gpu(p.cluster, n.gpu);
        if (!g || g->arch != "blackwell") pre_blackwell = true;
    }
    std::vector<std::pair<std::string, std::string>> env;
    if ((p.layout.tp > 1 || p.layout.cp > 1) && pre_blackwell && p.layout.zero_stage < 2)
        env.push_back({"CUDA_DEVICE_MAX_CONNECTIONS", "1"});
    return env;
}

FormatOutput export_megatron(const Project& p, const ExportOptions& opt) {
    FormatOutput out;
    const MegatronArgs args = megatron_args(p, out.findings);
    const LaunchPlan plan = launch_plan(p, opt);
    out.findings.insert(out.findings.end(), plan.findings.begin(), plan.findings.end());

    std::ostringstream sh;
    sh << "#!/usr/bin/env bash\n# " << header_line(p, "megatron") << "\n"
       << "# Run once on every node, from a Megatron-LM checkout: NODE_RANK=<k> bash train_megatron.sh\n";
    for (std::size_t k = 0; k < plan.nodes.size(); ++k)
        sh << "#   node rank " << k << ": " << plan.nodes[k].host << "\n";
    sh << "set -euo pipefail\n\n";
    for (const auto& [k, v] : megatron_env(p)) sh << "export " << k << "=" << shell_quote(v) << "\n";
    sh << "NODE_RANK=${NODE_RANK:-0}\n"
       << "MASTER_ADDR=${MASTER_ADDR:-" << shell_quote(plan.master_addr) << "}\n"
       << "MASTER_PORT=${MASTER_PORT:-" << plan.master_port << "}\n";
    bool pinned = false;
    for (const auto& n : plan.nodes) pinned = pinned || !n.devices.empty();
    if (pinned) {
        sh << "case \"$NODE_RANK\" in\n";
        for (std::size_t k = 0; k < plan.nodes.size(); ++k)
            if (!plan.nodes[k].devices.empty())
                sh << "    " << k << ") export CUDA_VISIBLE_DEVICES=" << plan.nodes[k].cuda_visible_devices()
                   << " ;;\n";
        sh << "esac\n";
    }
    sh << "\nDISTRIBUTED_ARGS=(\n    --nproc_per_node " << plan.nproc_per_node << "\n    --nnodes " << plan.nnodes
       << "\n    --node_rank \"$NODE_RANK\"\n    --master_addr \"$MASTER_ADDR\"\n    --master_port "
          "\"$MASTER_PORT\"\n)\n";
    auto group = [&](const char* name, const std::vector<std::string>& v, const char* comment) {
        sh << "\n";
        if (comment) sh << "# " << comment << "\n";
        sh << name << "=(";
        for (std::size_t i = 0; i < v.size(); ++i) {
            if (v[i].rfind("--", 0) == 0) sh << "\n    " << shell_quote(v[i]);
            else sh << " " << shell_quote(v[i]);
        }
        sh << "\n)\n";
    };
    group("MODEL_ARGS", args.model, nullptr);
    group("MOE_ARGS", args.moe, nullptr);
    group("MODEL_PARALLEL_ARGS", args.parallel, nullptr);
    group("TRAINING_ARGS", args.training,
          "Learning rates and --train-iters are starting points, not part of the layout.");
    group("DATA_ARGS", args.data,
          "Mock data so that the script runs as written; use --data-path and a real tokenizer to train.");
    std::vector<std::string> script = {megatron_script(p, opt)};
    sh << "\ntorchrun \"${DISTRIBUTED_ARGS[@]}\" " << join_shell(script)
       << " \\\n    \"${MODEL_ARGS[@]}\" \"${MOE_ARGS[@]}\" \"${MODEL_PARALLEL_ARGS[@]}\" \\\n"
       << "    \"${TRAINING_ARGS[@]}\" \"${DATA_ARGS[@]}\"";
    if (!opt.script_args.empty()) sh << " " << join_shell(opt.script_args);
    sh << "\n";
    out.files["train_megatron.sh"] = {sh.str(), FileSyntax::Shell};
    if (p.layout.peft) {
        // Megatron-LM's pretrain_gpt.py trains every weight (arguments.py has no LoRA); Megatron-Bridge
        // does, with its LoRA PEFT class (megatron/bridge/peft/lora.py: LoRA(target_modules, dim, alpha),
        // NVIDIA-NeMo/Megatron-Bridge 0191fc5) set as the ConfigContainer's peft field
        // (megatron/bridge/training/config.py). The targets are already Megatron-Bridge's names.
        const Peft& f = *p.layout.peft;
        std::string targets;
        for (LoraTarget x : f.targets) targets += (targets.empty() ? "" : ", ") + py_string(to_string(x));
        std::ostringstream alpha;
        alpha << f.alpha;
        std::ostringstream py;
        py << "# " << header_line(p, "megatron") << "\n"
           << "# LoRA for Megatron-Bridge: Megatron-LM's pretrain_gpt.py (train_megatron.sh) has no LoRA and\n"
           << "# trains every weight. Set this as the recipe's ConfigContainer.peft and run Megatron-Bridge's\n"
           << "# fine-tuning entry point with the parallel sizes of train_megatron.sh.\n"
           << "from megatron.bridge.peft.lora import LoRA\n\n"
           << "peft = LoRA(\n    target_modules=[" << targets << "],\n    dim=" << f.rank
           << ",\n    alpha=" << alpha.str() << ",\n)\n"
           << "# cfg.peft = peft\n";
        out.files["megatron_bridge_lora.py"] = {py.str(), FileSyntax::Python};
        out.findings.push_back(finding(Severity::Warning, "export.megatron.peft",
                                       "Megatron-LM's pretrain_gpt.py has no LoRA: train_megatron.sh trains the "
                                       "full model. megatron_bridge_lora.py holds the Megatron-Bridge LoRA "
                                       "config (LoRA(target_modules, dim, alpha)) to fine-tune with instead.",
                                       {"/layout/peft"}));
    }
    return out;
}

}   // namespace paraplan
