#pragma once
// Shared pieces of the rule files: derived sizes of a layout, a Diagnostic
// builder and fix search (candidate changes kept only when re-running the rule on
// the changed project makes that rule pass).
#include "project/project.h"
#include "util/diagnostic.h"

#include <string>
#include <vector>

namespace paraplan::rules {

using Out = std::vector<Diagnostic>;
using RuleFn = void (*)(const Project&, Out&);

// Sizes as the layout's framework derives them.
struct Sizes {
    int world = 0;
    int tp = 1, pp = 1, cp = 1, ep = 1;
    int sp = 1;              // size of a separate sequence-parallel axis (ColossalAI all_to_all / ring_attn)
    int model = 1;           // product of the model-parallel axes that divide the world
    int dp = 0;              // data-parallel size derived from the world (0 when it does not divide)
    int batch_dp = 0;        // replicas reading distinct samples (ColossalAI: dp without sp)
    long long microbatches = 0;   // per optimizer step per replica (layout value or derived)
    long long grad_accum = 0;     // optimizer-step batch / (micro * microbatches * batch_dp); 0 if inexact
};
Sizes sizes(const Project& p);

// Colossal's effective sp axis for a mode.
bool sp_axis_mode(const std::string& mode);     // all_to_all, ring_attn
bool sp_tp_mode(const std::string& mode);       // split_gather, ring (reuse the TP group)

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
std::vector<int> divisors(int n);
std::vector<int> range_values(int lo, int hi);

// One-knob candidates: every value of every field, merged nearest first.
std::vector<Fix> knob_candidates(const Project& p, const std::vector<std::string>& fields, const std::vector<int>& values);

// The rules of a framework id, in the order the framework checks them.
const std::vector<RuleFn>& rules_for(const std::string& framework);

std::string short_field(const std::string& pointer);   // "/layout/tp" -> "tp"
std::string str(long long v);
std::string join(const std::vector<int>& v, const std::string& sep = ", ");

}  // namespace paraplan::rules
