#include "rules/rule_kit.h"

#include "rules/apply_fix.h"
#include "rules/validate.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace paraplan::rules {

bool sp_axis_mode(const std::string& mode) { return mode == "all_to_all" || mode == "ring_attn"; }
bool sp_tp_mode(const std::string& mode) { return mode == "split_gather" || mode == "ring"; }

Sizes sizes(const Project& p) {
    const Layout& l = p.layout;
    Sizes s;
    s.world = p.world_size();
    s.tp = std::max(1, l.tp);
    s.pp = std::max(1, l.pp);
    s.cp = std::max(1, l.cp);
    s.ep = std::max(1, l.ep);
    const std::string& f = l.framework;
    if (f == "colossalai" || f == "colossalai-moe") {
        s.cp = 1;
        s.sp = sp_axis_mode(l.sp_mode) ? std::max(1, l.sp) : 1;
        s.model = s.tp * s.pp * s.sp;
    } else if (f == "colossalai-gemini") {
        s.pp = 1;
        s.cp = 1;
        s.model = s.tp;
    } else if (f == "colossalai-zero") {
        s.tp = s.pp = s.cp = 1;
        s.model = 1;
    } else if (f == "megatron" || f == "torchtitan") {
        s.model = s.tp * s.pp * s.cp;
    } else if (f == "deepspeed") {
        s.cp = 1;
        s.model = s.tp * s.pp;
    } else {   // devicemesh and unknown
        s.sp = std::max(1, l.sp);
        s.model = s.tp * s.pp * s.sp * s.cp;
    }
    s.dp = (s.world > 0 && s.model > 0 && s.world % s.model == 0) ? s.world / s.model : 0;
    if (f == "torchtitan" && s.dp > 0) {
        const int rep = std::max(1, l.dp_replicate);
        const int shard = l.dp_shard > 0 ? l.dp_shard : s.dp / rep;
        s.dp = (rep * shard * s.model == s.world) ? rep * shard : 0;
    }
    s.batch_dp = s.dp;
    const long long gbs = p.training.global_batch_size;
    const long long mbs = std::max(1, p.training.micro_batch_size);
    if (l.num_microbatches > 0) {
        s.microbatches = l.num_microbatches;
    } else if (s.batch_dp > 0 && gbs % (mbs * s.batch_dp) == 0) {
        s.microbatches = gbs / (mbs * s.batch_dp);
    }
    if (s.batch_dp > 0 && s.microbatches > 0) {
        const long long per_step = mbs * s.microbatches * s.batch_dp;
        s.grad_accum = gbs % per_step == 0 ? gbs / per_step : 0;
    }
    return s;
}

Diagnostic diag(Severity s, std::string rule, std::string message, std::string framework_error,
                std::vector<std::string> fields) {
    Diagnostic d;
    d.severity = s;
    d.rule = std::move(rule);
    d.message = std::move(message);
    d.framework_error = std::move(framework_error);
    d.fields = std::move(fields);
    return d;
}

bool fires(RuleFn fn, const Project& p, const std::string& rule) {
    // A fix may switch the framework: rules the new framework does not run are gone.
    const auto& active = rules_for(p.layout.framework);
    if (std::find(active.begin(), active.end(), fn) == active.end()) return false;
    Out out;
    fn(p, out);
    return std::any_of(out.begin(), out.end(),
                       [&](const Diagnostic& d) { return d.rule == rule && d.severity != Severity::Info; });
}

namespace {
// Fix search re-validates changed projects; nested searches are skipped.
thread_local int g_fix_depth = 0;

std::set<std::string> error_rules(const Project& p) {
    std::set<std::string> r;
    for (const auto& d : validate(p))
        if (d.severity == Severity::Error) r.insert(d.rule);
    return r;
}
}  // namespace

bool searching_fixes() { return g_fix_depth > 0; }

NoFixSearch::NoFixSearch() { ++g_fix_depth; }
NoFixSearch::~NoFixSearch() { --g_fix_depth; }

void add_fixes(Diagnostic& d, RuleFn fn, const Project& p, const std::vector<Fix>& candidates, std::size_t max) {
    if (g_fix_depth > 0) return;
    ++g_fix_depth;
    struct Guard {
        ~Guard() { --g_fix_depth; }
    } guard;
    const auto before = error_rules(p);
    std::set<std::string> seen;
    std::vector<Fix> clean, other;
    std::size_t examined = 0;
    for (const auto& c : candidates) {
        if (clean.size() >= max || examined >= 400) break;
        if (!seen.insert(to_json(c)["changes"].dump()).second) continue;
        ++examined;
        Project q;
        try {
            q = with_fix(p, c);
        } catch (const std::exception&) {
            continue;
        }
        if (fires(fn, q, d.rule)) continue;
        // Prefer fixes that break no rule the project passed before.
        bool adds_error = false;
        for (const auto& r : error_rules(q))
            if (!before.count(r)) adds_error = true;
        (adds_error ? other : clean).push_back(c);
    }
    for (auto& f : clean) d.fixes.push_back(std::move(f));
    for (auto& f : other)
        if (d.fixes.size() < max) d.fixes.push_back(std::move(f));
}

std::string short_field(const std::string& pointer) {
    const auto pos = pointer.rfind('/');
    return pos == std::string::npos ? pointer : pointer.substr(pos + 1);
}

std::string str(long long v) { return std::to_string(v); }

std::string join(const std::vector<int>& v, const std::string& sep) {
    std::string s;
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? sep : "") + std::to_string(v[i]);
    return s;
}

Fix set_value(const std::string& field, const nlohmann::json& value, const std::string& label) {
    return Fix{label.empty() ? "Set " + short_field(field) + " to " + value.dump() : label, {{field, value}}};
}

Fix set_int(const Project& p, const std::string& field, int value, const std::string& label) {
    Fix f{label.empty() ? "Set " + short_field(field) + " to " + std::to_string(value) : label, {{field, value}}};
    if (p.layout.dp > 0 && field != "/layout/dp") {
        Project q = p;
        set_field(q, field, value);
        q.layout.dp = 0;
        const int dp = sizes(q).dp;
        if (dp > 0 && dp != p.layout.dp) {
            f.changes.push_back({"/layout/dp", dp});
            f.label += " (dp " + std::to_string(dp) + ")";
        }
    }
    return f;
}

std::vector<int> nearest_first(int current, std::vector<int> values) {
    const double c = std::max(1, current);
    std::stable_sort(values.begin(), values.end(), [&](int a, int b) {
        const double da = std::fabs(std::log(std::max(1, a) / c)), db = std::fabs(std::log(std::max(1, b) / c));
        if (std::fabs(da - db) > 1e-9) return da < db;
        return a < b;
    });
    values.erase(std::remove(values.begin(), values.end(), current), values.end());
    return values;
}

std::vector<int> divisors(int n) {
    std::vector<int> d;
    for (int i = 1; i <= n; ++i)
        if (n % i == 0) d.push_back(i);
    return d;
}

std::vector<int> range_values(int lo, int hi) {
    std::vector<int> v;
    for (int i = lo; i <= hi; ++i) v.push_back(i);
    return v;
}

std::vector<Fix> knob_candidates(const Project& p, const std::vector<std::string>& fields, const std::vector<int>& values) {
    struct Cand {
        double dist;
        int order;
        Fix fix;
    };
    std::vector<Cand> all;
    int order = 0;
    for (const auto& field : fields) {
        const auto cur = get_field(p, field);
        const int current = cur.is_number_integer() ? cur.get<int>() : 1;
        for (int v : nearest_first(current, values)) {
            const double dist = std::fabs(std::log(std::max(1, v) / static_cast<double>(std::max(1, current))));
            all.push_back({dist, order++, set_int(p, field, v)});
        }
    }
    std::stable_sort(all.begin(), all.end(), [](const Cand& a, const Cand& b) { return a.dist < b.dist; });
    std::vector<Fix> out;
    for (auto& c : all) out.push_back(std::move(c.fix));
    return out;
}

}  // namespace paraplan::rules
