#include "rules/fp4.h"

#include "project/fp8.h"
#include "project/framework.h"
#include "project/project_gpu.h"

#include <set>

namespace paraplan::rules {
namespace {

// Whether a GPU runs the recipe's GEMMs: an FP4 peak in its catalog entry (GpuSpec::tflops_fp4), and for
// NVFP4 an NVIDIA part: Transformer Engine v2.9 pytorch/quantization.py check_nvfp4_support needs compute
// capability 10.0+ ("blackwell and above"), and NVFP4's E4M3 block scales are NVIDIA's format. MXFP4's
// E8M0-scaled blocks are the OCP MX format both vendors' FP4 tensor cores take.
bool runs_on(const GpuSpec& g, Fp4Recipe r) {
    if (g.tflops_fp4 <= 0) return false;
    return r != Fp4Recipe::nvfp4 || g.vendor == "nvidia";
}

Fix recipe_off() { return set_value("/layout/fp4_recipe", "none", "Train without FP4 (fp4_recipe none)"); }

}   // namespace

// The GPUs named are those of the project and the catalog that run the recipe, never a fixed list.
void fp4_gpu(const Project& p, Out& out) {
    const Fp4Recipe r = p.layout.fp4_recipe;
    if (r == Fp4Recipe::none) return;
    std::set<std::string> seen;
    for (const auto& n : p.cluster.nodes) {
        const GpuSpec* g = find_gpu(p.cluster, n.gpu);
        if (!g || runs_on(*g, r) || !seen.insert(g->id).second) continue;
        std::string able;
        for (const auto& id : gpu_ids(p.cluster))
            if (const GpuSpec* o = find_gpu(p.cluster, id); o && runs_on(*o, r))
                able += (able.empty() ? "" : ", ") + id;
        const std::string why = g->tflops_fp4 <= 0 ? " has no FP4 tensor cores" : " has no NVFP4 (NVIDIA's format)";
        auto d = diag(
            Severity::Error, "kernel.fp4_gpu",
            g->name + " (" + g->arch + ")" + why + "; the " + to_string(r) + " recipe needs a GPU with " +
                (r == Fp4Recipe::nvfp4 ? "NVIDIA " : "") + "FP4 tensor cores (" +
                (able.empty() ? std::string("none known") : able) + ").",
            r == Fp4Recipe::nvfp4 ? "Device compute capability 10.0 or higher required for NVFP4 execution." : "",
            {"/layout/fp4_recipe"});
        std::vector<Fix> fixes = {recipe_off()};
        if (g->supports_fp8()) {
            Fix f8{"Train in FP8 instead", {}};
            f8.changes.push_back({"/layout/fp4_recipe", "none"});
            f8.changes.push_back({"/layout/fp8", true});
            fixes.push_back(f8);
        }
        add_fixes(d, &fp4_gpu, p, fixes);
        out.push_back(d);
        return;
    }
}

// FrameworkTraits::fp4_recipes: Megatron-LM runs nvfp4 (fp4_recipe Literal["nvfp4", "custom"],
// transformer_config.py core_v0.16.0, its --fp4-recipe choices);
// no framework Paraplan exports trains in MXFP4 (each row's fp4_missing says what it has instead).
void fp4_recipe(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (runs_fp4_recipe(l.framework, l.fp4_recipe)) return;
    const FrameworkTraits* t = find_traits(l.framework);
    if (!t) return;
    const std::string framework_error = t->id == Framework::megatron
                                            ? std::string("argument --fp4-recipe: invalid choice: '") +
                                                  to_string(l.fp4_recipe) + "' (choose from 'nvfp4', 'custom')"
                                            : "";
    auto d = diag(Severity::Error, "kernel.fp4_recipe",
                  std::string(t->display_name) + " cannot train with the " + to_string(l.fp4_recipe) +
                      " FP4 recipe: " + t->fp4_missing + ".",
                  framework_error, {"/layout/fp4_recipe"});
    std::vector<Fix> fixes;
    for (Fp4Recipe r : t->fp4_recipes)
        fixes.push_back(
            set_value("/layout/fp4_recipe", to_string(r), std::string("Use the ") + to_string(r) + " recipe"));
    fixes.push_back(recipe_off());
    add_fixes(d, &fp4_recipe, p, fixes);
    out.push_back(d);
}

// One low-precision format for the linear layers: Megatron-LM refuses both ("fp4 and fp8 cannot be used
// simultaneously", transformer_config.py TransformerConfig.__post_init__, core_v0.16.0).
void fp4_with_fp8(const Project& p, Out& out) {
    if (p.layout.fp4_recipe == Fp4Recipe::none || !fp8_on(p.layout, p.training)) return;
    std::vector<std::string> fields = {"/layout/fp4_recipe"};
    Fix fp8_off{"Turn FP8 off (keep FP4)", {}};
    if (p.layout.fp8) {
        fields.push_back("/layout/fp8");
        fp8_off.changes.push_back({"/layout/fp8", false});
    }
    if (p.training.precision == Precision::fp8) {
        fields.push_back("/training/precision");
        fp8_off.changes.push_back({"/training/precision", "bf16"});
    }
    auto d = diag(Severity::Error, "kernel.fp4_fp8",
                  std::string("fp4_recipe ") + to_string(p.layout.fp4_recipe) +
                      " and FP8 both choose the linear layers' format; set one of them.",
                  "fp4 and fp8 cannot be used simultaneously. Please choose one.", fields);
    add_fixes(d, &fp4_with_fp8, p, {fp8_off, recipe_off()});
    out.push_back(d);
}

}   // namespace paraplan::rules
