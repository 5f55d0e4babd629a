#pragma once
// Typed reads from JSON with errors that name the JSON pointer and what was
// expected, e.g. `/layout/tp: expected a positive integer, got "two"`.
#include "util/input_error.h"
#include "util/progress.h"

#include <nlohmann/json.hpp>

#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::json_read {

using nlohmann::json;

// Deepest nesting of arrays and objects any JSON we read may have. nlohmann's
// copy, compare and dump recurse once per level, so a file nested 100,000 deep
// would overflow the stack; real files stay far below this (a project is ~6).
inline constexpr int kMaxJsonDepth = 256;

// Throws an InputError (with 1-based line and column of the bracket that goes too
// deep) when arrays/objects in `text` nest deeper than max_depth. A scan of the
// text only, without recursion; malformed text is left to the parser.
void check_nesting(std::string_view text, int max_depth = kMaxJsonDepth);

// Parses text; a syntax error becomes an InputError with 1-based line and column.
// Nesting deeper than kMaxJsonDepth is refused the same way (checked first).
json parse(std::string_view text);
// The same, reporting bytes parsed of the text's size through `watch` every MiB; throws
// Cancelled when watch.cancel is set.
json parse(std::string_view text, const Progress& watch);

// The same, for text that may be garbage: nullopt (and `problem` set to the reason)
// instead of throwing.
std::optional<json> try_parse(std::string_view text, std::string* problem = nullptr);

// The value, refused when it holds a control character (C0: newline, carriage
// return, tab, NUL...; or DEL): such values reach command lines and scripts,
// where a newline would start a new command. The error names the pointer.
const std::string& no_control_chars(const std::string& pointer, const std::string& value);

// A short rendering of a value for messages: `"two"`, `3.5`, `an object`, `null`.
std::string describe(const json& v);

[[noreturn]] void fail(const std::string& pointer, const std::string& expected, const json& got);

// Escapes a key for use in a JSON pointer (~ and /).
std::string pointer_token(std::string_view key);

// An object being read; every getter names `pointer/key` in its errors.
class Obj {
public:
    Obj(const json& j, std::string pointer);   // throws unless j is an object

    const json& raw() const { return j_; }
    const std::string& pointer() const { return ptr_; }
    std::string at(std::string_view key) const { return ptr_ + "/" + pointer_token(key); }
    bool has(std::string_view key) const;          // present and not null
    const json* get(std::string_view key) const;   // nullptr if absent or null

    int positive_int(std::string_view key) const;
    int positive_int(std::string_view key, int def) const;
    int non_negative_int(std::string_view key, int def) const;
    int integer(std::string_view key, int def) const;   // any integer (e.g. -1 for "infer")
    long long int64(std::string_view key, long long def) const;
    double positive_number(std::string_view key) const;
    double positive_number(std::string_view key, double def) const;
    double non_negative_number(std::string_view key, double def) const;
    std::string string(std::string_view key) const;
    std::string string(std::string_view key, const std::string& def) const;
    // string() refused when it holds a control character (see no_control_chars).
    std::string plain_string(std::string_view key, const std::string& def) const;
    std::string one_of(std::string_view key, std::initializer_list<const char*> allowed, const std::string& def) const;
    bool boolean(std::string_view key, bool def) const;
    std::vector<int> int_list(std::string_view key) const;   // empty if absent
    Obj object(std::string_view key) const;
    const json& array(std::string_view key) const;   // throws unless an array

private:
    const json& j_;
    std::string ptr_;
};

}   // namespace paraplan::json_read
