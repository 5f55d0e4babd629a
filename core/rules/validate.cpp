#include "rules/validate.h"

#include "rules/colossalai.h"
#include "rules/deepspeed.h"
#include "rules/devicemesh.h"
#include "rules/megatron.h"
#include "rules/torchtitan.h"
#include "project/framework.h"

namespace paraplan {

namespace rules {
namespace {
void unknown_framework(const Project& p, Out& out) {
    out.push_back(
        diag(Severity::Error, "layout.framework",
             "Unknown framework '" + p.layout.framework +
                 "': expected colossalai, colossalai-moe, colossalai-gemini, colossalai-zero, megatron, torchtitan, "
                 "deepspeed or devicemesh.",
             "", {"/layout/framework"}));
}
}   // namespace

const std::vector<RuleFn>& rules_for(const std::string& framework) {
    static const std::vector<RuleFn> unknown = {&unknown_framework};
    const std::optional<Framework> f = parse_framework(framework);
    if (!f) return unknown;
    switch (*f) {
    case Framework::colossalai: return colossalai_rules();
    case Framework::colossalai_moe: return colossalai_moe_rules();
    case Framework::colossalai_gemini: return colossalai_gemini_rules();
    case Framework::colossalai_zero: return colossalai_zero_rules();
    case Framework::megatron: return megatron_rules();
    case Framework::torchtitan: return torchtitan_rules();
    case Framework::deepspeed: return deepspeed_rules();
    case Framework::devicemesh: return devicemesh_rules();
    }
    return unknown;
}
}   // namespace rules

std::vector<Diagnostic> validate(const Project& p) {
    rules::Out out;
    for (rules::RuleFn fn : rules::rules_for(p.layout.framework)) fn(p, out);
    return out;
}

}   // namespace paraplan
