#include "project/layout.h"

#include "project/framework.h"

#include <cctype>

namespace paraplan {

const std::vector<std::string> kFrameworks = framework_ids();
const std::vector<std::string> kSpModes = enum_names<SpMode>();
const std::vector<std::string> kRecompute = enum_names<Recompute>();
const std::vector<std::string> kOffload = enum_names<Offload>();
const std::vector<std::string> kPrecisions = enum_names<Precision>();
const std::vector<std::string> kOptimizers = enum_names<Optimizer>();
const std::vector<std::string> kFp8Recipes = enum_names<Fp8Recipe>();
const std::vector<std::string> kKernelStacks = enum_names<KernelStack>();
const std::vector<std::string> kLossLogits = enum_names<LossLogits>();
const std::vector<std::string> kTpModes = enum_names<TpMode>();
const std::vector<std::string> kMoeDispatchers = enum_names<MoeDispatcher>();

std::optional<Schedule> parse_schedule(std::string_view name) {
    if (const auto exact = parse_enum<Schedule>(name)) return exact;
    const auto folded = [](std::string_view raw) {
        std::string k;
        for (const char ch : raw)
            if (ch != '-' && ch != '_' && ch != ' ')
                k += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        return k;
    };
    const std::string k = folded(name);
    for (const auto& e : EnumNames<Schedule>::table)
        if (k == folded(e.name)) return e.value;
    for (const auto& a : kScheduleAliases)
        if (k == a.name) return a.value;
    return std::nullopt;
}

KernelStack kernel_stack(const Layout& l) {
    if (l.kernels != KernelStack::framework) return l.kernels;
    // Megatron-LM builds its layers from Transformer Engine (--transformer-impl transformer_engine,
    // the default since core 0.8); torchtitan's configs leave [compile] off; ColossalAI and
    // DeepSpeed run the Hugging Face / user model code, fused only where switched on.
    const FrameworkTraits* t = find_traits(l.framework);
    if (!t) return KernelStack::eager;
    if (t->fused_switches_mean_te && l.fused_norm && l.jit_fused) return KernelStack::te;
    return t->kernels;
}

}   // namespace paraplan
