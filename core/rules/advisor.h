#pragma once
// Layout advisor: every valid (tp, pp, sp, cp, ep, dp) split of a world size for
// a framework under fixed constraints (divisibility and, given a model, the model
// rules of validate()), and for an invalid project the valid layouts nearest to it.
#include "project/project.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace paraplan {

struct Split {
    int tp = 1, pp = 1, sp = 1, cp = 1, ep = 1, dp = 1;
    bool operator==(const Split&) const = default;
};

struct AdvisorQuery {
    int world = 0;
    std::string framework = "colossalai";
    int gpus_per_node = 0;            // 0: one node with all GPUs
    std::optional<ModelSpec> model;   // model rules apply when given
    int seq_len = 4096;
    std::map<std::string, int> fixed;   // "tp" -> 4: only that value
    std::map<std::string, int> max;     // "tp" -> 8: at most
};

// Which axes a framework splits over (others stay 1): subset of tp pp sp cp ep.
std::vector<std::string> advisor_axes(const std::string& framework);

// The project the advisor validates for a split (public for tests).
Project advisor_project(const AdvisorQuery& q, const Split& s);

// All valid splits, sorted by (tp, pp, sp, cp, ep).
std::vector<Split> enumerate_splits(const AdvisorQuery& q);

struct NearestLayout {
    Split split;
    int changed = 0;       // knobs that differ from the project
    double distance = 0;   // changed + sum |log2(new / old)|
};

// Valid splits nearest to the project's own layout (other settings kept): a split
// counts as valid when it breaks no rule about the parallel sizes and adds no error
// the project did not already have.
std::vector<NearestLayout> nearest_layouts(const Project& p, std::size_t max = 5);

Split split_of(const Project& p);
nlohmann::json to_json(const Split& s);
nlohmann::json to_json(const NearestLayout& n);

}   // namespace paraplan
