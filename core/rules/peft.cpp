// Rule peft.framework: a LoRA layout (layout.peft) the framework refuses, from its FrameworkTraits
// row (project/framework.cpp cites each source): no LoRA at all, LoRA only without tensor
// parallelism, or a frozen-base dtype it cannot load.
#include "rules/common.h"

#include "project/framework.h"

#include <algorithm>

namespace paraplan::rules {

void peft_framework(const Project& p, Out& out) {
    const Layout& l = p.layout;
    if (!l.peft) return;
    const FrameworkTraits* t = find_traits(l.framework);
    if (!t) return;
    const std::string name = t->display_name;
    if (t->lora == LoraKind::none) {
        auto d = diag(Severity::Error, "peft.framework",
                      name + " has no LoRA that Paraplan's export for it can set up" +
                          (t->id == Framework::colossalai_gemini
                               ? std::string(" (GeminiPlugin.support_lora() is False; booster.enable_lora "
                                             "refuses it)")
                           : t->id == Framework::torchtitan
                               ? std::string(" (the v0.2 job config has none; torchtitan main's LoRAConverter "
                                             "is configured outside it)")
                               : std::string("")) +
                          ": fine-tune with another framework or remove layout.peft.",
                      t->id == Framework::colossalai_gemini
                          ? "AssertionError: The plugin GeminiPlugin does not support lora."
                          : "",
                      {"/layout/peft", "/layout/framework"});
        std::vector<Fix> c{set_value("/layout/peft", nlohmann::json(), "Train the full model (remove layout.peft)")};
        for (const char* fw : {"megatron", "colossalai-zero", "colossalai"})
            c.push_back(set_value("/layout/framework", fw, std::string("Use ") + fw));
        add_fixes(d, &peft_framework, p, c);
        out.push_back(d);
        return;
    }
    if (!t->lora_with_tp && l.tp > 1) {
        // ColossalAI v0.5.1 HybridParallelPlugin.enable_lora: `assert self.tp_size == 1`.
        auto d = diag(Severity::Error, "peft.framework",
                      name + " adds LoRA only without tensor parallelism (enable_lora asserts tp_size == 1).",
                      "AssertionError", {"/layout/peft", "/layout/tp"});
        std::vector<Fix> c{set_int(p, "/layout/tp", 1), set_value("/layout/framework", "megatron", "Use megatron")};
        add_fixes(d, &peft_framework, p, c);
        out.push_back(d);
    }
    const std::string base = to_string(l.peft->base_dtype);
    const auto& refused = t->lora_refused_base_dtypes;
    if (std::find(refused.begin(), refused.end(), base) != refused.end()) {
        const std::string why = t->lora == LoraKind::megatron_bridge
                                    ? "Megatron-core's linears have no 4-bit NF4 weights (QLoRA's base is "
                                      "bitsandbytes', loaded through Hugging Face)"
                                    : "its bitsandbytes quantization loads 8-bit integer (LLM.int8) or 4-bit bases, "
                                      "not FP8";
        auto d = diag(Severity::Error, "peft.framework", name + " cannot load a " + base + " frozen base: " + why + ".",
                      "", {"/layout/peft"});
        Peft bf16 = *l.peft;
        bf16.base_dtype = PeftBaseDtype::bf16;
        std::vector<Fix> c{set_value("/layout/peft", to_json(bf16), "Keep the frozen base in bf16")};
        add_fixes(d, &peft_framework, p, c);
        out.push_back(d);
    }
}

}   // namespace paraplan::rules
