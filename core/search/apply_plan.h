#pragma once
// Applying a planner result to a project: the entry's whole layout (the planner builds it
// over the project's own, see to_layout in planner.cpp) and its microbatch size.
#include "project/project.h"
#include "search/planner.h"

#include <string>

namespace paraplan::search {

void apply_entry(const PlanEntry& e, Project& p);

// A short name for the change ("megatron: tp 8 · pp 4 · dp 2 · 1f1b · mbs 1"), for undo steps.
std::string describe(const PlanEntry& e);

}   // namespace paraplan::search
