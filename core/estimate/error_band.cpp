#include "estimate/error_band.h"

#include "util/input_error.h"
#include "util/json_read.h"
#include "util/resources.h"

#include <algorithm>
#include <array>
#include <utility>

namespace paraplan::estimate {

RunKind run_kind(const Config& c, bool moe, const std::string& arch) {
    // An FP4 run is its own kind: no measured FP4 run is held out, so its band comes from the wider groupings.
    const char* precision = c.fp4 != Fp4Recipe::none ? "fp4" : c.fp8 ? "fp8" : "bf16";
    return {moe ? "moe" : "dense", precision, c.framework, arch};
}

namespace {

// RunKind's fields in the order the groupings keep them: a grouping shares the first k of these
// (k = 4 down to 0), so the architecture is dropped first and the family last.
constexpr std::array<std::pair<const char*, std::string RunKind::*>, 4> kFields{{{"family", &RunKind::family},
                                                                                 {"precision", &RunKind::precision},
                                                                                 {"framework", &RunKind::framework},
                                                                                 {"arch", &RunKind::arch}}};

bool alike(const RunKind& a, const RunKind& b, std::size_t shared) {
    for (std::size_t i = 0; i < shared; ++i)
        if (a.*kFields[i].second != b.*kFields[i].second) return false;
    return true;
}

}   // namespace

StepBand step_band(double step_s, const RunKind& kind, std::span<const HeldOutError> runs) {
    StepBand b;
    b.low_s = b.high_s = step_s;
    b.kind = kind;
    b.runs = static_cast<int>(runs.size());
    for (std::size_t shared = kFields.size() + 1; shared-- > 0;) {
        double lo = 0, hi = 0;
        int n = 0;
        for (const auto& r : runs) {
            if (!alike(kind, r.kind, shared)) continue;
            lo = n ? std::min(lo, r.error) : r.error;
            hi = n ? std::max(hi, r.error) : r.error;
            ++n;
        }
        if (n < kMinBandRuns) continue;
        // error = predicted / actual - 1, so the actual step is predicted / (1 + error): the run
        // that came out most too slow bounds it from below.
        b.low_error = lo;
        b.high_error = hi;
        b.low_s = step_s / (1 + hi);
        b.high_s = step_s / (1 + lo);
        b.runs = n;
        for (std::size_t i = 0; i < shared; ++i) b.alike.emplace_back(kFields[i].first);
        b.coverage = double(n - 1) / (n + 1);
        return b;
    }
    return b;
}

std::string alike_text(const StepBand& b) {
    std::string out;
    for (std::size_t i = 0; i < b.alike.size() && i < kFields.size(); ++i)
        out += (out.empty() ? "" : ", ") + b.kind.*kFields[i].second;
    return out.empty() ? "any kind" : out;
}

std::vector<HeldOutError> parse_held_out_errors(std::string_view text) {
    using namespace json_read;
    const json j = parse(text);
    const Obj top(j, "");
    std::vector<HeldOutError> out;
    const json& rows = top.array("runs");
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const std::string at = "/runs/" + std::to_string(i);
        const Obj r(rows[i], at);
        HeldOutError e;
        e.name = r.string("name");
        e.kind = {r.string("family"), r.string("precision"), r.string("framework"), r.string("arch")};
        if (e.kind.family != "dense" && e.kind.family != "moe")
            throw InputError(r.at("family"), "expected \"dense\" or \"moe\"");
        if (e.kind.precision != "bf16" && e.kind.precision != "fp8")
            throw InputError(r.at("precision"), "expected \"bf16\" or \"fp8\"");
        const json* err = r.get("error");
        if (!err || !err->is_number() || !(err->get<double>() > -1))
            throw InputError(r.at("error"), "expected a step error above -1 (predicted / published - 1)");
        e.error = err->get<double>();
        out.push_back(std::move(e));
    }
    return out;
}

const std::vector<HeldOutError>& held_out_errors() {
    static const std::vector<HeldOutError> runs = [] {
        const auto text = resources::find("catalog/held_out_errors.json");
        if (!text) throw InputError("", "built-in resource catalog/held_out_errors.json is missing from the library");
        return parse_held_out_errors(*text);
    }();
    return runs;
}

}   // namespace paraplan::estimate
