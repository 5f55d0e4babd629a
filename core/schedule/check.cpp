#include "schedule/check.h"

#include "schedule/simulate.h"

#include <string>

namespace paraplan::schedule {
namespace {

paraplan::Diagnostic invalid(std::string message) {
    paraplan::Diagnostic d;
    d.severity = paraplan::Severity::Error;
    d.rule = "schedule.invalid";
    d.message = std::move(message);
    return d;
}

std::string where(int stage, int chunk, int mb) {
    return "stage " + std::to_string(stage) + ", chunk " + std::to_string(chunk) + ", microbatch " + std::to_string(mb);
}

}   // namespace

std::vector<paraplan::Diagnostic> check_structure(const Schedule& sch) {
    std::vector<paraplan::Diagnostic> ds;
    const int m = sch.microbatches, v = sch.chunks;
    if (static_cast<int>(sch.stages.size()) != sch.pp || m < 1 || v < 1) {
        ds.push_back(invalid("The schedule's shape does not match pp = " + std::to_string(sch.pp) + "."));
        return ds;
    }
    const std::size_t cells = static_cast<std::size_t>(m) * static_cast<std::size_t>(v);
    constexpr int kNone = -1;
    for (int s = 0; s < sch.pp; ++s) {
        // Position of each op kind per (chunk, microbatch); -2 marks a duplicate.
        std::vector<int> f(cells, kNone), b(cells, kNone), w(cells, kNone);
        std::vector<char> full(cells, 0);
        const auto& ops = sch.stages[static_cast<std::size_t>(s)];
        for (std::size_t i = 0; i < ops.size(); ++i) {
            const Action& a = ops[i];
            if (a.microbatch < 0 || a.microbatch >= m || a.chunk < 0 || a.chunk >= v) {
                ds.push_back(invalid("Stage " + std::to_string(s) + " op " + std::to_string(i) +
                                     " refers to microbatch " + std::to_string(a.microbatch) + ", chunk " +
                                     std::to_string(a.chunk) + ", outside the schedule."));
                return ds;
            }
            const std::size_t k = static_cast<std::size_t>(a.chunk) * static_cast<std::size_t>(m) +
                                  static_cast<std::size_t>(a.microbatch);
            std::vector<int>& slot = a.kind == OpKind::Forward ? f : a.kind == OpKind::BackwardWeight ? w : b;
            if (slot[k] != kNone) {
                ds.push_back(invalid(std::string("Two ") + pytorch_letter(a.kind) + " ops for " +
                                     where(s, a.chunk, a.microbatch) + "."));
                return ds;
            }
            slot[k] = static_cast<int>(i);
            if (a.kind == OpKind::FullBackward) full[k] = 1;
        }
        for (int c = 0; c < v; ++c)
            for (int mb = 0; mb < m; ++mb) {
                const std::size_t k = static_cast<std::size_t>(c) * static_cast<std::size_t>(m) +
                                      static_cast<std::size_t>(mb);
                const std::string at = where(s, c, mb);
                if (f[k] == kNone) ds.push_back(invalid("No forward for " + at + "."));
                if (b[k] == kNone) ds.push_back(invalid("No backward for " + at + "."));
                if (full[k] && w[k] != kNone) ds.push_back(invalid("A full backward and a separate W for " + at + "."));
                if (!full[k] && b[k] != kNone && w[k] == kNone)
                    ds.push_back(invalid("Backward for inputs without its weight pass for " + at + "."));
                if (f[k] != kNone && b[k] != kNone && b[k] < f[k])
                    ds.push_back(invalid("Running backward for " + at + " without first running forward."));
                if (w[k] != kNone && (b[k] == kNone || w[k] < b[k]))
                    ds.push_back(invalid("Running the weight pass for " + at + " before its input backward."));
                if (ds.size() > 16) return ds;
            }
    }
    return ds;
}

std::vector<paraplan::Diagnostic> check_schedule(const Schedule& sch) {
    auto ds = check_structure(sch);
    if (has_errors(ds)) return ds;
    SimConfig unit;
    unit.cost = {1, 1, 1};
    auto sim = simulate(sch, unit);
    for (auto& d : sim.diagnostics) ds.push_back(std::move(d));
    return ds;
}

}   // namespace paraplan::schedule
