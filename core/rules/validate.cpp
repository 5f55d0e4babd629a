#include "rules/validate.h"

#include "rules/colossalai.h"
#include "rules/others.h"

namespace paraplan {

namespace rules {
namespace {
void unknown_framework(const Project& p, Out& out) {
    out.push_back(diag(Severity::Error, "layout.framework",
                       "Unknown framework '" + p.layout.framework +
                           "': expected colossalai, colossalai-moe, colossalai-gemini, colossalai-zero, megatron, torchtitan, "
                           "deepspeed or devicemesh.",
                       "", {"/layout/framework"}));
}
}  // namespace

const std::vector<RuleFn>& rules_for(const std::string& framework) {
    static const std::vector<RuleFn> unknown = {&unknown_framework};
    if (framework == "colossalai") return colossalai_rules();
    if (framework == "colossalai-moe") return colossalai_moe_rules();
    if (framework == "colossalai-gemini") return colossalai_gemini_rules();
    if (framework == "colossalai-zero") return colossalai_zero_rules();
    if (framework == "megatron") return megatron_rules();
    if (framework == "torchtitan") return torchtitan_rules();
    if (framework == "deepspeed") return deepspeed_rules();
    if (framework == "devicemesh") return devicemesh_rules();
    return unknown;
}
}  // namespace rules

std::vector<Diagnostic> validate(const Project& p) {
    rules::Out out;
    for (rules::RuleFn fn : rules::rules_for(p.layout.framework)) fn(p, out);
    return out;
}

}  // namespace paraplan
