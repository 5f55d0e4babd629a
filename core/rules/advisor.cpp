#include "rules/advisor.h"

#include "project/framework.h"

#include "rules/rule_kit.h"
#include "rules/validate.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <set>
#include <tuple>

namespace paraplan {
namespace {

bool split_field(const std::string& f) {
    static const std::set<std::string> s = {"/layout/tp",  "/layout/pp",       "/layout/sp",
                                            "/layout/cp",  "/layout/ep",       "/layout/dp",
                                            "/layout/etp", "/layout/dp_shard", "/layout/dp_replicate"};
    return s.count(f) > 0;
}

int get(const Split& s, const std::string& axis) {
    if (axis == "tp") return s.tp;
    if (axis == "pp") return s.pp;
    if (axis == "sp") return s.sp;
    if (axis == "cp") return s.cp;
    return s.ep;
}
void set(Split& s, const std::string& axis, int v) {
    if (axis == "tp") s.tp = v;
    else if (axis == "pp") s.pp = v;
    else if (axis == "sp") s.sp = v;
    else if (axis == "cp") s.cp = v;
    else s.ep = v;
}

void apply_split(Project& p, const Split& s) {
    Layout& l = p.layout;
    l.tp = s.tp;
    l.pp = s.pp;
    l.cp = s.cp;
    l.ep = s.ep;
    l.dp = 0;
    l.sp = s.sp;
    const FrameworkTraits* t = find_traits(l.framework);
    if (t && t->world.sp_only_in_axis_mode) {   // ColossalAI: the sp axis exists in all_to_all / ring_attn
        if (s.sp > 1 && !rules::sp_axis_mode(l.sp_mode)) l.sp_mode = SpMode::all_to_all;
        if (s.sp == 1 && rules::sp_axis_mode(l.sp_mode)) l.sp_mode = SpMode::none;
    }
    if (l.pp <= 1) l.num_layers_per_stage.clear();
    if (!l.num_layers_per_stage.empty() && static_cast<int>(l.num_layers_per_stage.size()) != l.pp)
        l.num_layers_per_stage.clear();
}

// Enumerate axis values (divisors of the world) with the product of the
// world-dividing axes dividing the world.
template <typename F>
void for_each_candidate(int world, const std::vector<std::string>& axes, const std::map<std::string, int>& fixed,
                        const std::map<std::string, int>& max, F&& f) {
    const auto divs = rules::divisors(std::max(1, world));
    Split s;
    std::function<void(std::size_t)> rec = [&](std::size_t i) {
        if (i == axes.size()) {
            f(s);
            return;
        }
        const std::string& a = axes[i];
        for (int v : divs) {
            if (fixed.count(a) && fixed.at(a) != v) continue;
            if (max.count(a) && v > max.at(a)) continue;
            set(s, a, v);
            rec(i + 1);
        }
        set(s, a, 1);
    };
    rec(0);
}

}   // namespace

std::vector<std::string> advisor_axes(const std::string& f) {
    if (const FrameworkTraits* t = find_traits(f)) return t->axes;
    return {"tp", "pp", "sp", "cp"};   // an unknown framework: every mesh axis
}

Project advisor_project(const AdvisorQuery& q, const Split& s) {
    Project p;
    p.name = "advisor";
    const int gpn = q.gpus_per_node > 0 ? q.gpus_per_node : q.world;
    const int nodes = gpn > 0 ? q.world / gpn : 0;
    for (int i = 0; i < nodes; ++i) {
        Node n;
        n.name = "node" + std::to_string(i);
        n.gpus = gpn;
        p.cluster.nodes.push_back(n);
    }
    if (q.model) p.model = *q.model;
    p.layout.framework = q.framework;
    const FrameworkTraits* t = find_traits(q.framework);
    p.layout.zero_stage = t && t->zero == ZeroSemantics::always_3 ? 3 : 1;
    p.layout.flash_attention = false;   // hardware is not part of the query
    p.training.seq_len = q.seq_len;
    apply_split(p, s);
    // Megatron's --sequence-parallel is a switch (sp_mode split_gather) that the rules require with MoE.
    if (t && t->family == FrameworkFamily::megatron && s.tp > 1) p.layout.sp_mode = SpMode::split_gather;
    const rules::Sizes z = rules::sizes(p);
    // A batch every schedule accepts: dp replicas x 4*pp microbatches of 1.
    p.training.micro_batch_size = 1;
    p.training.global_batch_size = std::max(1, z.batch_dp) * 4 * std::max(1, s.pp);
    return p;
}

std::vector<Split> enumerate_splits(const AdvisorQuery& q) {
    std::vector<Split> out;
    if (q.world <= 0 || (q.gpus_per_node > 0 && q.world % q.gpus_per_node != 0)) return out;
    rules::NoFixSearch no_fixes;
    const auto axes = advisor_axes(q.framework);
    auto fixed = q.fixed;
    if (!(q.model && q.model->is_moe()) && !fixed.count("ep")) fixed["ep"] = 1;   // experts need an MoE model
    for_each_candidate(q.world, axes, fixed, q.max, [&](const Split& s) {
        Project p = advisor_project(q, s);
        const rules::Sizes z = rules::sizes(p);
        if (z.dp <= 0) return;
        if (has_errors(validate(p))) return;
        Split r = s;
        r.dp = z.dp;
        out.push_back(r);
    });
    return out;
}

Split split_of(const Project& p) {
    Split s;
    s.tp = p.layout.tp;
    s.pp = p.layout.pp;
    s.sp = p.layout.sp;
    s.cp = p.layout.cp;
    s.ep = p.layout.ep;
    s.dp = rules::sizes(p).dp;
    return s;
}

std::vector<NearestLayout> nearest_layouts(const Project& p, std::size_t max) {
    std::vector<NearestLayout> out;
    rules::NoFixSearch no_fixes;
    std::set<std::string> before;
    for (const auto& d : validate(p))
        if (d.severity == Severity::Error) before.insert(d.rule);
    const Split cur = split_of(p);
    const auto axes = advisor_axes(p.layout.framework);
    for_each_candidate(p.world_size(), axes, {}, {}, [&](const Split& s) {
        Project q = p;
        apply_split(q, s);
        const rules::Sizes z = rules::sizes(q);
        if (z.dp <= 0) return;
        for (const auto& d : validate(q)) {
            if (d.severity != Severity::Error) continue;
            if (!before.count(d.rule)) return;   // a new error
            for (const auto& f : d.fields)
                if (split_field(f)) return;   // still a parallel-size problem
        }
        NearestLayout n;
        n.split = s;
        n.split.dp = z.dp;
        for (const auto& a : axes) {
            const int o = std::max(1, get(cur, a)), v = get(s, a);
            if (o != v) {
                ++n.changed;
                n.distance += std::fabs(std::log2(static_cast<double>(v) / o));
            }
        }
        n.distance += n.changed;
        if (n.changed == 0) return;
        out.push_back(n);
    });
    std::stable_sort(out.begin(), out.end(), [](const NearestLayout& a, const NearestLayout& b) {
        if (std::fabs(a.distance - b.distance) > 1e-9) return a.distance < b.distance;
        return std::tie(a.split.tp, a.split.pp, a.split.sp, a.split.cp, a.split.ep) >
               std::tie(b.split.tp, b.split.pp, b.split.sp, b.split.cp, b.split.ep);
    });
    if (out.size() > max) out.resize(max);
    return out;
}

nlohmann::json to_json(const Split& s) {
    return {{"tp", s.tp}, {"pp", s.pp}, {"sp", s.sp}, {"cp", s.cp}, {"ep", s.ep}, {"dp", s.dp}};
}

nlohmann::json to_json(const NearestLayout& n) {
    nlohmann::json j = to_json(n.split);
    j["changed"] = n.changed;
    j["distance"] = std::round(n.distance * 1000) / 1000;
    return j;
}

}   // namespace paraplan
