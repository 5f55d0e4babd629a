#pragma once
// A small TOML reader for job configs (the subset torchtitan's files use): tables
// [a.b], dotted and bare/quoted keys, key = string (basic, literal, multi-line),
// integer (sign, _, 0x/0o/0b), float, bool, arrays (nested, multi-line) and inline
// tables. Dates are not supported. Errors throw InputError with the line and column.
#include <nlohmann/json.hpp>

#include <string_view>

namespace paraplan::toml {

nlohmann::json parse(std::string_view text);

}   // namespace paraplan::toml
