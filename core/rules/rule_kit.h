#pragma once
// Shared pieces of the rule files: derived sizes of a layout, a Diagnostic
// builder and fix search (candidate changes kept only when re-running the rule on
// the changed project makes that rule pass).
#include "project/derived_sizes.h"
#include "project/project.h"
#include "util/diagnostic.h"
#include "util/divisors.h"

#include <string>
#include <vector>

namespace paraplan::rules {

using Out = std::vector<Diagnostic>;
using RuleFn = void (*)(const Project&, Out&);

// Sizes as the layout's framework derives them (project/derived_sizes.h).
using Sizes = DerivedSizes;
Sizes sizes(const Project& p);

// Colossal's effective sp axis for a mode: all_to_all, ring_attn; split_gather, ring reuse the
// TP group (project/layout_enums.h).
using paraplan::sp_axis_mode;
using paraplan::sp_tp_mode;

Diagnostic diag(Severity s, std::string rule, std::string message, std::string framework_error,
                std::vector<std::string> fields);

// Does running `fn` on p emit `rule` (any severity but Info)?
bool fires(RuleFn fn, const Project& p, const std::string& rule);

// True while a fix search re-validates a changed project.
bool searching_fixes();

// While alive, validate() skips fix searches (bulk validation: advisor, search).
class NoFixSearch {
public:
    NoFixSearch();
    ~NoFixSearch();
    NoFixSearch(const NoFixSearch&) = delete;
    NoFixSearch& operator=(const NoFixSearch&) = delete;
};

// Keeps the candidates that make `rule` pass, those that break no other rule
// first, in candidate order, at most `max`.
void add_fixes(Diagnostic& d, RuleFn fn, const Project& p, const std::vector<Fix>& candidates, std::size_t max = 4);

// A fix that sets one integer field (and, when layout.dp is explicit, updates it
// to the value the changed layout derives).
Fix set_int(const Project& p, const std::string& field, int value, const std::string& label = "");
Fix set_value(const std::string& field, const nlohmann::json& value, const std::string& label);

// Candidate integer values for a field, nearest to `current` first (by ratio, then smaller).
std::vector<int> nearest_first(int current, std::vector<int> values);
using paraplan::divisors;                            // util/divisors.h
std::vector<int> world_divisors(const Project& p);   // divisors of the world size (at least {1})
std::vector<int> range_values(int lo, int hi);

// One-knob candidates: every value of every field, merged nearest first.
std::vector<Fix> knob_candidates(const Project& p, const std::vector<std::string>& fields,
                                 const std::vector<int>& values);

// The fixes every batch and sequence rule offers, in this order and with these labels:
// the global batch rounded down (when > 0) and up to a multiple of `per`.
std::vector<Fix> global_batch_fixes(long long gbs, long long per);
// Every divisor of the global batch as micro_batch_size, nearest to the current one first.
std::vector<Fix> micro_batch_fixes(long long mbs, long long gbs);
// The sequence padded up to, then (when > 0) cut down to, a multiple of `multiple`.
std::vector<Fix> seq_len_fixes(long long seq, long long multiple);

// The rules of a framework id, in the order the framework checks them.
const std::vector<RuleFn>& rules_for(const std::string& framework);

std::string short_field(const std::string& pointer);   // "/layout/tp" -> "tp"
std::string str(long long v);
std::string join(const std::vector<int>& v, const std::string& sep = ", ");

}   // namespace paraplan::rules
