#pragma once
// Error lookup: a pasted framework / PyTorch / NCCL / CUDA error message is
// matched (regexes over its distinctive part; numbers may vary) to the rule behind
// it, explained in plain words and, given the project, the fixes for that project.
#include "project/project.h"
#include "util/diagnostic.h"

#include <string>
#include <vector>

namespace paraplan {

struct ErrorExplanation {
    bool matched = false;
    std::string rule;                      // rule id ("colossalai.world_divisible", "nccl.watchdog_timeout", ...)
    std::string framework;                 // colossalai, megatron, torchtitan, deepspeed, pytorch, nccl, cuda
    std::string explanation;               // plain words, with the numbers from the message where it has them
    std::string matched_text;              // the part of the input that matched
    std::vector<Fix> fixes;                // for the project (empty without one)
    std::vector<Diagnostic> diagnostics;   // the project's findings for this rule (or its errors)
};

// project may be null.
// Only the last kExplainBytes of a longer text are searched (from a line start): a failed run
// ends with its error, and the patterns' regex search grows faster than the text.
inline constexpr std::size_t kExplainBytes = 1u << 20;
ErrorExplanation explain_error(const std::string& text, const Project* project = nullptr);

nlohmann::json to_json(const ErrorExplanation& e);

// Number of known error patterns (for tests and `--help`).
std::size_t known_error_patterns();

}   // namespace paraplan
