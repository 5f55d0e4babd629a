#include "lessons/question.h"

#include "topology/build_rank_map.h"

#include <algorithm>
#include <cmath>

namespace paraplan::lessons {

std::string format_ranks(std::span<const int> ranks) {
    std::vector<int> r(ranks.begin(), ranks.end());
    std::sort(r.begin(), r.end());
    const auto list = [&](std::size_t from, std::size_t to) {
        std::string s;
        for (std::size_t i = from; i < to; ++i) s += (s.empty() ? "" : ", ") + std::to_string(r[i]);
        return s;
    };
    if (r.size() <= 8) return "{" + list(0, r.size()) + "}";
    const int step = r[1] - r[0];
    bool even = true;
    for (std::size_t i = 1; i < r.size() && even; ++i) even = r[i] - r[i - 1] == step;
    const std::string n = std::to_string(r.size()) + " GPUs";
    if (even)
        return "{" + list(0, 3) + ", …, " + std::to_string(r.back()) + "} (" + n +
               (step == 1 ? ", in a row)" : ", " + std::to_string(step) + " apart)");
    return "{" + list(0, 4) + ", …, " + list(r.size() - 2, r.size()) + "} (" + n + ")";
}

Trend measured_trend(double before, double after) {
    const double tol = 1e-9 * std::max(std::abs(before), std::abs(after));
    return after > before + tol ? Trend::Increases : after < before - tol ? Trend::Decreases : Trend::Same;
}

namespace {

const char* const kTrendChoices[] = {"goes up", "goes down", "stays the same"};
int trend_index(Trend t) { return t == Trend::Increases ? 0 : t == Trend::Decreases ? 1 : 2; }

// The rank sets a group question offers, the true group first (unsorted yet): the groups of other
// kinds that hold the rank, the block and the stride of the group's size that hold it, and the
// same kind's group before the change. Each shown once, as format_ranks writes it.
std::vector<std::string> group_candidates(const topology::RankMap& before, const topology::RankMap& after,
                                          const std::string& kind, int rank) {
    const auto truth = after.group_of(kind, rank);
    std::vector<std::string> out{format_ranks(truth)};
    const auto add = [&](std::span<const int> g) {
        if (g.empty()) return;
        const std::string f = format_ranks(g);
        if (std::find(out.begin(), out.end(), f) == out.end()) out.push_back(f);
    };
    const int size = int(truth.size()), world = after.world_size;
    for (const auto& [k, set] : after.groups)
        if (k != kind && set.group_size == size) add(after.group_of(k, rank));
    if (before.valid()) add(before.group_of(kind, rank));
    // `size` ranks `step` apart, aligned, holding the rank: the block (1), the widest stride, and the
    // strides of the map's other group sizes (how far apart another axis would put them).
    const auto spaced = [&](int step) {
        if (step < 1 || step * size > world) return;
        std::vector<int> g;
        const int base = rank / (step * size) * (step * size) + rank % step;
        for (int i = 0; i < size; ++i) g.push_back(base + i * step);
        if (g.back() < world) add(g);
    };
    spaced(1);
    spaced(world / size);
    for (const auto& [k, set] : after.groups) spaced(set.group_size);
    return out;
}

// The framework's groups for the project's cluster, as compare::make_entry builds them (an empty,
// invalid map where the layout cannot be built); no estimate, which a group question does not read.
topology::RankMap rank_map(const Project& p) {
    try {
        return topology::build_rank_map(topology::from_project(p), &p.cluster);
    } catch (const std::exception&) {
        return {};
    }
}

}   // namespace

Question question(const Step& s, const Project& before) {
    Question q;
    q.ask = s.ask;
    switch (s.ask) {
    case Ask::Trend: {
        q.choices.assign(std::begin(kTrendChoices), std::end(kTrendChoices));
        if (const Expectation* h = headline(s)) {
            q.graded_on = h->path;
            for (const auto& f : s.figures)
                if (f.path == h->path) q.graded_on = f.label;
        }
        return q;
    }
    case Ask::Accepted:
        q.choices = {"Yes: it starts", "No: it refuses the layout"};
        q.graded_on = "the " + before.layout.framework + " rules in the Diagnostics (accepted: no error)";
        return q;
    case Ask::Group: break;
    }
    const topology::RankMap b = rank_map(before), a = rank_map(apply_step(before, s));
    q.graded_on = "the " + a.framework + " rank map's " + s.group_kind + " groups";
    if (!a.valid() || s.group_rank >= a.world_size || a.group_of(s.group_kind, s.group_rank).empty()) return q;
    std::vector<std::string> c = group_candidates(b, a, s.group_kind, s.group_rank);
    if (c.size() < 2) return q;   // nothing to choose between: a group of every GPU, or of one
    const std::string truth = c.front();
    c.resize(std::min<std::size_t>(c.size(), 4));
    std::sort(c.begin(), c.end());
    q.answer = int(std::find(c.begin(), c.end(), truth) - c.begin());
    q.choices = std::move(c);
    return q;
}

int grade(const Step& s, const Question& q, const StepOutcome& o) {
    switch (q.ask) {
    case Ask::Group: return q.answer;
    case Ask::Accepted: return o.errors_after == 0 ? 0 : 1;
    case Ask::Trend: break;
    }
    const Expectation* h = headline(s);
    if (!h) return -1;
    for (std::size_t i = 0; i < s.figures.size() && i < o.before.size(); ++i)
        if (s.figures[i].path == h->path && o.before[i] && o.after[i])
            return trend_index(measured_trend(*o.before[i], *o.after[i]));
    return -1;
}

}   // namespace paraplan::lessons
