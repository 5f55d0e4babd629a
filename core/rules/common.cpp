#include "rules/common.h"
#include "project/project_gpu.h"

#include "project/fp8.h"
#include "catalog/catalog.h"
#include "network/systems.h"
#include "project/derived_sizes.h"
#include "project/framework.h"
#include "project/tp_comm_overlap.h"

#include <set>

namespace paraplan::rules {
namespace {

std::vector<const GpuSpec*> cluster_gpus(const Project& p) {
    std::vector<const GpuSpec*> out;
    std::set<std::string> seen;
    for (const auto& n : p.cluster.nodes)
        if (seen.insert(n.gpu).second)
            if (const GpuSpec* g = find_gpu(p.cluster, n.gpu)) out.push_back(g);
    return out;
}

// The recipes a framework accepts (every recipe where it has no recipe choice).
std::vector<Fp8Recipe> framework_recipes(const Project& p) {
    const FrameworkTraits* t = find_traits(p.layout.framework);
    return t && !t->fp8_recipes.empty() ? t->fp8_recipes : enum_values<Fp8Recipe>();
}

// Fixes for an FP8 recipe: each accepted recipe from `allowed` (in that order), then FP8 off.
std::vector<Fix> recipe_fixes(const Project& p, const std::vector<Fp8Recipe>& allowed) {
    std::vector<Fix> c;
    for (const Fp8Recipe r : allowed)
        if (r != p.layout.fp8_recipe && accepts_fp8_recipe(p.layout.framework, r))
            c.push_back(
                set_value("/layout/fp8_recipe", to_string(r), "Use the " + std::string(to_string(r)) + " recipe"));
    Fix off{"Turn FP8 off (train in bf16)", {}};
    if (p.layout.fp8) off.changes.push_back({"/layout/fp8", false});
    if (p.training.precision == Precision::fp8) off.changes.push_back({"/training/precision", "bf16"});
    c.push_back(off);
    return c;
}

bool half_precision(Precision precision) {
    return precision == Precision::bf16 || precision == Precision::fp16 || precision == Precision::fp8;
}

}   // namespace

void cluster_not_empty(const Project& p, Out& out) {
    if (p.world_size() > 0) return;
    out.push_back(diag(Severity::Error, "cluster.not_empty",
                       "The cluster has no GPUs (world size 0), so no layout can be placed: add a node (drag a "
                       "node template onto the canvas, or Edit > Add Node).",
                       "", {"/cluster/nodes"}));
}

// torchrun takes one --nproc_per_node for every node (torch/distributed/run.py),
// so every node must run the same number of ranks.
void uniform_gpus(const Project& p, Out& out) {
    const auto& nodes = p.cluster.nodes;
    if (nodes.size() < 2) return;
    const int g0 = nodes[0].gpus;
    for (std::size_t i = 1; i < nodes.size(); ++i) {
        if (nodes[i].gpus != g0) {
            auto d = diag(Severity::Error, "cluster.uniform_gpus",
                          "Node " + nodes[i].name + " has " + str(nodes[i].gpus) + " GPUs but node " + nodes[0].name +
                              " has " + str(g0) + "; torchrun starts the same --nproc_per_node on every node.",
                          "", {"/cluster/nodes/" + str(static_cast<long long>(i)) + "/gpus"});
            Fix f{"Use " + str(g0) + " GPUs on every node", {}};
            for (std::size_t j = 1; j < nodes.size(); ++j)
                if (nodes[j].gpus != g0)
                    f.changes.push_back({"/cluster/nodes/" + str(static_cast<long long>(j)) + "/gpus", g0});
            add_fixes(d, &uniform_gpus, p, {f});
            out.push_back(d);
            return;
        }
    }
    for (std::size_t i = 1; i < nodes.size(); ++i) {
        if (nodes[i].gpu != nodes[0].gpu) {
            auto d = diag(Severity::Warning, "cluster.uniform_gpus",
                          "Node " + nodes[i].name + " has " + nodes[i].gpu + " GPUs but node " + nodes[0].name +
                              " has " + nodes[0].gpu + "; every synchronous step waits for the slowest GPU.",
                          "", {"/cluster/nodes/" + str(static_cast<long long>(i)) + "/gpu"});
            Fix f{"Use " + nodes[0].gpu + " on every node", {}};
            for (std::size_t j = 1; j < nodes.size(); ++j)
                if (nodes[j].gpu != nodes[0].gpu)
                    f.changes.push_back({"/cluster/nodes/" + str(static_cast<long long>(j)) + "/gpu", nodes[0].gpu});
            add_fixes(d, &uniform_gpus, p, {f});
            out.push_back(d);
            return;
        }
    }
}

// A cluster that names a system (cluster.system) has that system's GPU on every node: the
// system's tiers (link counts and speeds, NICs) are those of its GPU.
void system_gpus(const Project& p, Out& out) {
    if (p.cluster.system.empty()) return;
    const network::System* s = network::find_system(p.cluster.system);
    if (!s) return;   // the loader refuses an unknown id
    const auto& nodes = p.cluster.nodes;
    for (std::size_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].gpu == s->gpu) continue;
        auto d = diag(Severity::Error, "cluster.system_gpus",
                      "The cluster is a " + s->id + " system, built of " + s->gpu + " GPUs, but node " + nodes[i].name +
                          " has " + nodes[i].gpu +
                          "; the system's network (its links and NICs) is that of its own GPU. Give the nodes " +
                          s->gpu + ", or name a system of " + nodes[i].gpu + " GPUs.",
                      "", {"/cluster/nodes/" + str(static_cast<long long>(i)) + "/gpu", "/cluster/system"});
        Fix f{"Use " + s->gpu + " on every node", {}};
        for (std::size_t j = 0; j < nodes.size(); ++j)
            if (nodes[j].gpu != s->gpu)
                f.changes.push_back({"/cluster/nodes/" + str(static_cast<long long>(j)) + "/gpu", s->gpu});
        add_fixes(d, &system_gpus, p, {f});
        out.push_back(d);
        return;
    }
}

void dp_matches(const Project& p, Out& out) {
    if (p.layout.dp <= 0) return;
    Project q = p;
    q.layout.dp = 0;
    const Sizes s = sizes(q);
    if (s.dp == p.layout.dp) return;
    auto d = diag(Severity::Error, "layout.dp_matches",
                  "dp is set to " + str(p.layout.dp) + " but " + str(s.world) + " GPUs / " + str(s.model) +
                      " (the model-parallel product) give " + (s.dp > 0 ? "dp = " + str(s.dp) : "no whole dp") + ".",
                  "", {"/layout/dp"});
    std::vector<Fix> c;
    c.push_back(set_value("/layout/dp", 0, "Derive dp from the world size"));
    if (s.dp > 0) c.insert(c.begin(), set_value("/layout/dp", s.dp, "Set dp to " + str(s.dp)));
    add_fixes(d, &dp_matches, p, c);
    out.push_back(d);
}

// Mixed precision bf16 needs bf16 tensor cores (Ampere+ / CDNA2+): V100 and T4 lack them.
void bf16_gpu(const Project& p, Out& out) {
    if (p.training.precision != Precision::bf16) return;
    for (const GpuSpec* g : cluster_gpus(p)) {
        if (g->supports_bf16()) continue;
        auto d = diag(Severity::Error, "kernel.bf16_gpu",
                      g->name + " (" + g->arch + ") has no bf16 support; bf16 training needs Ampere or newer.",
                      "RuntimeError: Current CUDA Device does not support bfloat16. Please switch dtype to float16.",
                      {"/training/precision"});
        add_fixes(d, &bf16_gpu, p, {set_value("/training/precision", "fp16", "Train in fp16 (with loss scaling)")});
        out.push_back(d);
        return;
    }
}

// flash-attn 2 supports Ampere, Ada and Hopper (README "Installation and features");
// ColossalAI falls back to its own kernels otherwise.
void flash_attention_gpu(const Project& p, Out& out) {
    if (!p.layout.flash_attention) return;
    for (const GpuSpec* g : cluster_gpus(p)) {
        if (g->supports_flash_attention()) continue;
        const bool ring = p.layout.sp_mode == SpMode::ring_attn;
        auto d = diag(
            ring ? Severity::Error : Severity::Warning, "kernel.flash_attention_gpu",
            g->name + " (" + g->arch + ") cannot run flash attention kernels (they need Ampere or newer)" +
                (ring ? "; ring_attn is built on flash attention." : "; attention falls back to the slower path."),
            "RuntimeError: FlashAttention only supports Ampere GPUs or newer.", {"/layout/flash_attention"});
        std::vector<Fix> c;
        if (ring) c.push_back(Fix{"Use all_to_all sequence parallelism", {{"/layout/sp_mode", "all_to_all"}}});
        c.push_back(set_value("/layout/flash_attention", false, "Turn flash attention off"));
        add_fixes(d, &flash_attention_gpu, p, c);
        out.push_back(d);
        return;
    }
}

// Flash attention kernels take fp16/bf16 tensors only ("FlashAttention only support fp16 and bf16 data type").
void flash_attention_dtype(const Project& p, Out& out) {
    if (!p.layout.flash_attention || half_precision(p.training.precision)) return;
    auto d = diag(Severity::Warning, "kernel.flash_attention_dtype",
                  "Flash attention runs in fp16/bf16 only, but training precision is " +
                      std::string(to_string(p.training.precision)) + "; the flag has no effect.",
                  "RuntimeError: FlashAttention only support fp16 and bf16 data type",
                  {"/layout/flash_attention", "/training/precision"});
    add_fixes(d, &flash_attention_dtype, p,
              {set_value("/training/precision", "bf16", "Train in bf16"),
               set_value("/layout/flash_attention", false, "Turn flash attention off")});
    out.push_back(d);
}

// FP8 GEMMs need FP8 tensor cores: Hopper, Ada, Blackwell, CDNA3 (MI300).
void fp8_gpu(const Project& p, Out& out) {
    if (!fp8_on(p.layout, p.training)) return;
    for (const GpuSpec* g : cluster_gpus(p)) {
        if (g->supports_fp8()) continue;
        std::vector<std::string> fields;
        if (p.layout.fp8) fields.push_back("/layout/fp8");
        if (p.training.precision == Precision::fp8) fields.push_back("/training/precision");
        auto d = diag(
            Severity::Error, "kernel.fp8_gpu",
            g->name + " (" + g->arch + ") has no FP8 tensor cores; FP8 needs Hopper, Ada, Blackwell or MI300.",
            "AssertionError: Device compute capability 8.9 or higher required for FP8 execution.", fields);
        Fix f{"Turn FP8 off (train in bf16)", {}};
        if (p.layout.fp8) f.changes.push_back({"/layout/fp8", false});
        if (p.training.precision == Precision::fp8)
            f.changes.push_back({"/training/precision", g->supports_bf16() ? "bf16" : "fp16"});
        add_fixes(d, &fp8_gpu, p, {f});
        out.push_back(d);
        return;
    }
}

// The recipe's scaling must run on every GPU of the cluster (GPUs without FP8 at all are kernel.fp8_gpu's).
// Transformer Engine v2.9, transformer_engine/pytorch/quantization.py: check_mxfp8_support needs compute
// capability >= 10.0 (Blackwell; B200 is 10.0); check_fp8_block_scaling_support needs >= 9.0 (Hopper or newer)
// and CUDA >= 12.9 (v2.4-v2.8 fp8.py: Hopper only, < 10.0). torchao's MX training (prototype/mx_formats
// README) runs its cuBLAS/CUTLASS MXFP8 GEMMs on Blackwell; older GPUs get only the emulated GEMM.
// AMD parts (CDNA2/3 in the catalog) count as lacking MXFP8; block scaling is checked on NVIDIA parts only.
void fp8_recipe_gpu(const Project& p, Out& out) {
    const Fp8Recipe r = p.layout.fp8_recipe;
    if (!fp8_on(p.layout, p.training) || (r != Fp8Recipe::mxfp8 && r != Fp8Recipe::blockwise)) return;
    for (const GpuSpec* g : cluster_gpus(p)) {
        if (!g->supports_fp8()) continue;
        const bool mx = r == Fp8Recipe::mxfp8;
        if (mx ? g->arch == "blackwell" : (g->vendor != "nvidia" || g->arch == "hopper" || g->arch == "blackwell"))
            continue;
        auto d = diag(Severity::Error, "kernel.fp8_recipe_gpu",
                      g->name + " (" + g->arch + ") cannot run the " + to_string(r) + " FP8 recipe: " +
                          (mx ? "MXFP8 block scaling needs Blackwell tensor cores (compute capability 10.0)."
                              : "FP8 block-scaled GEMMs need Hopper or newer (compute capability 9.0+)."),
                      mx ? "Device compute capability 10.0 or higher required for MXFP8 execution."
                         : "FP8 block scaled GEMM requires compute capability 9.0 or higher and CUDA >= 12.9.",
                      {"/layout/fp8_recipe"});
        add_fixes(d, &fp8_recipe_gpu, p,
                  recipe_fixes(p, {Fp8Recipe::tensorwise, Fp8Recipe::delayed, Fp8Recipe::rowwise}));
        out.push_back(d);
        return;
    }
}

void fp8_recipe_accepted(const Project& p, Out& out, RuleFn self, const std::string& rule,
                         const std::string& framework_error) {
    if (!fp8_on(p.layout, p.training)) return;
    if (accepts_fp8_recipe(p.layout.framework, p.layout.fp8_recipe)) return;
    const auto ok = framework_recipes(p);
    std::string list;
    for (const Fp8Recipe r : ok) list += (list.empty() ? "" : ", ") + std::string(to_string(r));
    auto d = diag(Severity::Error, rule,
                  traits_of(p.layout).display_name + std::string(" has no ") + to_string(p.layout.fp8_recipe) +
                      " FP8 recipe; fp8_recipe must be one of " + list + ".",
                  framework_error, {"/layout/fp8_recipe"});
    add_fixes(d, self, p, recipe_fixes(p, ok));
    out.push_back(d);
}

// layout.fp8_all_gather that the framework ignores (FrameworkTraits::fp8_all_gather_recipes, one
// query with the estimate, which then counts 16-bit all-gathers, and the exporters, which write none).
void fp8_all_gather_ignored(const Project& p, Out& out) { fp8_all_gather_ignored(p, out, &fp8_all_gather_ignored); }

void fp8_all_gather_ignored(const Project& p, Out& out, RuleFn self) {
    const Layout& l = p.layout;
    if (!fp8_on(p.layout, p.training) || !l.fp8_all_gather || gathers_fp8_weights(l.framework, l.fp8_recipe)) return;
    const FrameworkTraits* t = find_traits(l.framework);
    if (!t) return;
    const std::string why = t->fp8_all_gather_recipes.empty()
                                ? std::string(t->display_name) + " has no FP8 all-gather"
                                : std::string(t->display_name) + " gathers no FP8 weights with the " +
                                      to_string(l.fp8_recipe) + " recipe";
    auto d = diag(Severity::Warning, "kernel.fp8_all_gather",
                  why + ": fp8_all_gather is ignored, the weights are gathered in 16-bit (and estimated so).", "",
                  {"/layout/fp8_all_gather"});
    std::vector<Fix> c{set_value("/layout/fp8_all_gather", false, "Gather the weights in 16-bit")};
    for (const Fp8Recipe r : t->fp8_all_gather_recipes)
        if (accepts_fp8_recipe(l.framework, r))
            c.push_back(
                set_value("/layout/fp8_recipe", to_string(r), "Use the " + std::string(to_string(r)) + " recipe"));
    add_fixes(d, self, p, c);
    out.push_back(d);
}

// A TP communication overlap switch that does not run, in the estimate's one meaning
// (project/tp_comm_overlap.h): the estimate then prices the TP collectives exposed.
void tp_comm_overlap_unused(const Project& p, Out& out) {
    const Layout& l = p.layout;
    const FrameworkTraits* t = find_traits(l.framework);
    if (!t) return;
    const TpOverlapState s = tp_comm_overlap_state(l, *t);
    const std::string name = t->display_name;
    const std::string own = tp_comm_overlap_field(*t);
    if (*s.ignored) {
        const std::string field = s.ignored;
        auto d = diag(Severity::Warning, "kernel.tp_comm_overlap",
                      name + (own.empty() ? " has no TP communication overlap" : " reads " + own + ", not " + field) +
                          ": " + field + " is ignored and the TP collectives are estimated exposed.",
                      "", {"/layout/" + field});
        std::vector<Fix> c{set_value("/layout/" + field, false, "Clear " + field)};
        if (!own.empty())
            c.push_back(Fix{"Use " + own + " instead", {{"/layout/" + field, false}, {"/layout/" + own, true}}});
        add_fixes(d, &tp_comm_overlap_unused, p, c);
        out.push_back(d);
    }
    if (s.block == TpOverlapBlock::none) return;
    // Megatron-LM arguments.py (validate_args) asserts sequence parallelism with --tp-comm-overlap,
    // and turns sequence parallelism off at tp 1 first; torchtitan parallelize_llama raises without
    // torch.compile when tp > 1, and applies no TP (so no async TP) at tp 1.
    const bool megatron = t->tp_comm_overlap_kind == TpCommOverlapKind::userbuffers;
    const bool no_sp = s.block == TpOverlapBlock::no_sequence_parallel ||
                       (megatron && s.block == TpOverlapBlock::no_tensor_parallel);
    const bool no_compile = s.block == TpOverlapBlock::needs_compile;
    const std::string why = no_sp        ? name + ": " + tp_overlap_block_reason(TpOverlapBlock::no_sequence_parallel)
                            : no_compile ? name + ": " + tp_overlap_block_reason(TpOverlapBlock::needs_compile)
                                         : "";
    auto d = diag(no_sp || no_compile ? Severity::Error : Severity::Warning, "kernel.tp_comm_overlap",
                  why.empty() ? "tp is 1, so there are no TP collectives: " + own + " does nothing."
                              : why + ": " + own + " does not run and the TP collectives are estimated exposed.",
                  no_sp        ? "AssertionError: Tensor parallel communication/GEMM overlap can happen only when "
                                 "sequence parallelism is enabled"
                  : no_compile ? "RuntimeError: Async TP requires torch.compile"
                               : "",
                  {"/layout/" + own, no_compile ? "/layout/kernels"
                                     : no_sp    ? "/layout/sp_mode"
                                                : "/layout/tp"});
    std::vector<Fix> c{set_value("/layout/" + own, false, "Clear " + own)};
    if (no_sp) c.push_back(set_value("/layout/sp_mode", "split_gather", "Turn on sequence parallelism (split_gather)"));
    if (no_compile) c.push_back(set_value("/layout/kernels", "compile", "Compile the blocks (kernels: compile)"));
    add_fixes(d, &tp_comm_overlap_unused, p, c);
    out.push_back(d);
}

// ColossalAI's fused LayerNorm/RMSNorm come from apex (shardformer/layer/normalization.py).
void fused_norm_apex(const Project& p, Out& out) {
    if (!p.layout.fused_norm) return;
    out.push_back(diag(Severity::Info, "kernel.fused_norm_apex",
                       "Fused normalization uses NVIDIA apex kernels; install apex on every node or the plain "
                       "PyTorch norm is used.",
                       "", {"/layout/fused_norm"}));
}

void tp_divides_heads(const Project& p, Out& out, RuleFn self, const std::string& rule,
                      const std::string& framework_error) {
    const int H = p.model.heads, tp = p.layout.tp;
    if (H <= 0 || tp <= 1 || H % tp == 0) return;
    auto d = diag(Severity::Error, rule,
                  "tp = " + str(tp) + " does not divide the " + str(H) +
                      " attention heads, so the heads cannot be split "
                      "evenly over the tensor-parallel GPUs.",
                  framework_error, {"/layout/tp", "/model/heads"});
    add_fixes(d, self, p, knob_candidates(p, {"/layout/tp"}, divisors(H)));
    out.push_back(d);
}

void batch_divisible(const Project& p, Out& out, RuleFn self, const std::string& rule,
                     const std::string& framework_error) {
    const Sizes s = sizes(p);
    if (s.batch_dp <= 0) return;   // the world-size rule already failed
    const long long gbs = p.training.global_batch_size, mbs = p.training.micro_batch_size;
    if (gbs <= 0 || mbs <= 0) {
        auto d = diag(Severity::Error, rule,
                      "Batch sizes must be positive (global " + str(gbs) + ", micro " + str(mbs) + ").",
                      framework_error, {"/training/global_batch_size", "/training/micro_batch_size"});
        add_fixes(
            d, self, p,
            {set_value("/training/micro_batch_size", 1, "Set micro_batch_size to 1"),
             set_value("/training/global_batch_size", s.batch_dp, "Set global_batch_size to " + str(s.batch_dp))});
        out.push_back(d);
        return;
    }
    // With a per-flush count (layout_microbatches) the batch must hold whole flushes: k = global /
    // (micro x dp x num_microbatches) gradient-accumulation steps of one flush each.
    const long long nmb = layout_microbatches(p.layout);
    const long long per = mbs * s.batch_dp * (nmb > 0 ? nmb : 1);
    if (gbs % per == 0) return;
    const bool with_nmb = nmb > 0;
    auto d = diag(Severity::Error, rule,
                  "The global batch " + str(gbs) + " is not a multiple of micro batch " + str(mbs) + " × dp " +
                      str(s.batch_dp) + (with_nmb ? " × " + str(p.layout.num_microbatches) + " microbatches" : "") +
                      " = " + str(per) + ", so the steps cannot be split evenly over the data-parallel replicas.",
                  framework_error, {"/training/global_batch_size", "/training/micro_batch_size", "/layout/dp"});
    std::vector<Fix> c = global_batch_fixes(gbs, per);
    for (auto& f : micro_batch_fixes(mbs, gbs)) c.push_back(std::move(f));
    if (with_nmb) c.push_back(set_value("/layout/num_microbatches", 0, "Derive num_microbatches from the batch sizes"));
    add_fixes(d, self, p, c);
    out.push_back(d);
}

void microbatches_not_a_knob(const Project& p, Out& out, RuleFn self, const std::string& rule, const std::string& who) {
    if (has_microbatch_knob(p.layout.framework)) return;   // FrameworkTraits::num_microbatches_knob
    const Sizes s = sizes(p);
    const long long set = p.layout.num_microbatches, runs = s.batch_microbatches;
    if (set <= 0 || runs <= 0 || set == runs) return;   // unset, agreeing, or the batch rule reports it
    auto d = diag(Severity::Warning, rule,
                  who + " has no microbatch-count setting: it runs global batch " + str(p.training.global_batch_size) +
                      " / (micro batch " + str(p.training.micro_batch_size) + " × dp " + str(s.batch_dp) +
                      ") = " + str(runs) + " microbatches per step" + (s.pp > 1 ? " in one pipeline flush" : "") +
                      ", so num_microbatches = " + str(set) + " is not used (the estimate counts " + str(runs) + ").",
                  "", {"/layout/num_microbatches", "/training/global_batch_size"});
    std::vector<Fix> c = {set_value("/layout/num_microbatches", 0, "Derive num_microbatches from the batch sizes")};
    const long long gbs = set * p.training.micro_batch_size * s.batch_dp;
    c.push_back(set_value("/training/global_batch_size", gbs,
                          "Set global_batch_size to " + str(gbs) + " (" + str(set) + " microbatches per step)"));
    add_fixes(d, self, p, c);
    out.push_back(d);
}

}   // namespace paraplan::rules
