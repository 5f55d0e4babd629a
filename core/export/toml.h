#pragma once
// TOML job configs (torchtitan's) read with toml++ (Debian's libtomlplusplus-dev, TOML 1.0) into
// JSON: tables become objects, arrays arrays, integers int64, floats double (inf and nan too),
// booleans and strings themselves, and dates and times their TOML text ("1979-05-27T07:32:00Z").
// Errors throw InputError with the line and column: text over kMaxInputBytes, text that is not
// UTF-8, nesting deeper than json_read::kMaxJsonDepth and the few constructs toml++ 3.3 mishandles
// (export/toml_precheck.h), and toml++'s syntax errors ("TOML syntax error while parsing array:
// encountered end-of-file"; "duplicate key 'a' (cannot redefine existing integer 'a')").
#include <nlohmann/json.hpp>

#include <string_view>

namespace paraplan::toml {

nlohmann::json parse(std::string_view text);

}   // namespace paraplan::toml
