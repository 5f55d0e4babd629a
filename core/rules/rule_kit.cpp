#include "rules/rule_kit.h"

#include "rules/apply_fix.h"
#include "rules/validate.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace paraplan::rules {

Sizes sizes(const Project& p) { return derived_sizes(p.layout, p.training, p.world_size()); }

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
}   // namespace

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
        // A copy per candidate: the cluster's nodes and rank order are shared with p until the
        // fix writes them (copy-on-write), so this costs the layout and training, not 16,384 nodes.
        Project q = p;
        try {
            apply_fix(q, c);
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
        // dp with the new value: from the layout, training and world size (a layout or training
        // field leaves the cluster as it is, so it is not copied; a node's GPUs change the world).
        int dp = 0;
        if (field.rfind("/cluster/", 0) == 0) {
            Project q = p;
            set_field(q, field, value);
            q.layout.dp = 0;
            dp = sizes(q).dp;
        } else {
            Project q;
            q.layout = p.layout;
            q.training = p.training;
            set_field(q, field, value);
            q.layout.dp = 0;
            dp = derived_sizes(q.layout, q.training, p.world_size()).dp;
        }
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

std::vector<int> world_divisors(const Project& p) { return divisors(std::max(1, p.world_size())); }

std::vector<Fix> global_batch_fixes(long long gbs, long long per) {
    std::vector<Fix> c;
    const long long down = gbs / per * per, up = down + per;
    if (down > 0) c.push_back(set_value("/training/global_batch_size", down, "Set global_batch_size to " + str(down)));
    c.push_back(set_value("/training/global_batch_size", up, "Set global_batch_size to " + str(up)));
    return c;
}

std::vector<Fix> micro_batch_fixes(long long mbs, long long gbs) {
    std::vector<Fix> c;
    for (int m : nearest_first(static_cast<int>(mbs), divisors(static_cast<int>(std::min<long long>(gbs, 1 << 20)))))
        c.push_back(set_value("/training/micro_batch_size", m, "Set micro_batch_size to " + str(m)));
    return c;
}

std::vector<Fix> seq_len_fixes(long long seq, long long multiple) {
    const long long down = seq / multiple * multiple;
    std::vector<Fix> c{
        set_value("/training/seq_len", down + multiple, "Pad the sequence length to " + str(down + multiple))};
    if (down > 0) c.push_back(set_value("/training/seq_len", down, "Cut the sequence length to " + str(down)));
    return c;
}

std::vector<int> range_values(int lo, int hi) {
    std::vector<int> v;
    for (int i = lo; i <= hi; ++i) v.push_back(i);
    return v;
}

std::vector<Fix> knob_candidates(const Project& p, const std::vector<std::string>& fields,
                                 const std::vector<int>& values) {
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

}   // namespace paraplan::rules
