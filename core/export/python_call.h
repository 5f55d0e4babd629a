#pragma once
// Reads the arguments of a call such as HybridParallelPlugin(tp_size=2, ...) out of
// Python source without running it: finds the call, splits its top-level arguments
// and turns literals (int, float, string, True/False/None, lists of literals) into
// JSON. Anything else is kept as source text for the caller to name as unread.
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::pycall {

struct Argument {
    std::string key;                         // "" for a positional argument
    std::string source;                      // the expression as written
    std::optional<nlohmann::json> literal;   // set when the expression is a literal
};

struct Call {
    std::string callee;
    std::vector<Argument> args;
    int line = 0;
};

// The first call of any of `names` (a bare name or an attribute ending in it).
std::optional<Call> find_call(std::string_view source, const std::vector<std::string>& names);
// Parses one literal expression; nullopt when it is not a literal.
std::optional<nlohmann::json> literal(std::string_view expr);

}   // namespace paraplan::pycall
