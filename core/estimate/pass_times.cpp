#include "estimate/pass_times.h"

#include "estimate/estimate.h"

#include <algorithm>
#include <cmath>

namespace paraplan::estimate {

const char* to_string(PassTimesMode m) {
    switch (m) {
    case PassTimesMode::Equal: return "equal";
    case PassTimesMode::Estimate: return "estimate";
    case PassTimesMode::Custom: return "custom";
    }
    return "equal";
}

std::optional<PassTimesMode> parse_pass_times_mode(std::string_view s) {
    for (PassTimesMode m : {PassTimesMode::Equal, PassTimesMode::Estimate, PassTimesMode::Custom})
        if (s == to_string(m)) return m;
    return std::nullopt;
}

PassTimes passes_of(const StageCost& c) {
    const double w = std::clamp(c.w, 0.0, std::max(0.0, c.b));
    return {c.f, std::max(0.0, c.b) - w, w};
}

std::optional<PassTimes> estimate_pass_times_s(const Estimate& e) {
    const auto& st = e.time.stages;
    if (st.empty()) return std::nullopt;
    const int i = std::clamp(e.time.bottleneck_stage, 0, int(st.size()) - 1);
    return passes_of(st[std::size_t(i)].cost());
}

namespace {
double clamp_time(double v) { return std::isfinite(v) ? std::clamp(v, kMinPassTime, kMaxPassTime) : 1.0; }
}   // namespace

ResolvedPassTimes resolve_pass_times(const PassTimesChoice& c, const Estimate* e) {
    ResolvedPassTimes r;
    r.mode = c.mode;
    if (c.mode == PassTimesMode::Custom) {
        r.times = {clamp_time(c.custom.forward), clamp_time(c.custom.backward_input),
                   clamp_time(c.custom.backward_weight)};
    } else if (c.mode == PassTimesMode::Estimate) {
        const std::optional<PassTimes> s = e ? estimate_pass_times_s(*e) : std::nullopt;
        if (!s || !(s->forward > 0)) {
            r.mode = PassTimesMode::Equal;
            r.note = "no estimate to take the pass times from: drawn with F = B = W";
            return r;
        }
        r.forward_s = s->forward;
        r.times = {1.0, s->backward_input / s->forward, s->backward_weight / s->forward};   // relative to F
    }
    return r;
}

double bubble_1f1b(int p, const PassTimes& t) { return (p - 1) * (t.forward + t.backward_input + t.backward_weight); }

double bubble_zbh1(int p, const PassTimes& t) { return (p - 1) * (t.forward + t.backward_input - t.backward_weight); }

}   // namespace paraplan::estimate
