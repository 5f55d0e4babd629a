#pragma once
// What TOML text must pass before toml++ 3.3 (Debian 12's) parses it. Each rule keeps away input
// toml++ 3.3 mishandles; none refuses valid TOML 1.0 but the last one's rare case:
// - Nesting depth. toml++ limits arrays and inline tables to TOML_MAX_NESTED_VALUES (256) levels
//   but not dotted keys or table headers: `a.a.a... = 1` with 100,000 parts builds 100,000 nested
//   tables, and their recursive destruction (and our recursive conversion to JSON) overflows the
//   stack.
// - A table header that starts with no key (`[.a]`, `[[[1]]]`, `[]`), and a '}' where an array
//   wants a value (`[}]`): toml++ calls its key or value parser against that parser's stated
//   precondition, an assertion in debug builds and an assumption the compiler may optimise on in
//   release ones (header: fixed upstream after 3.3, github.com/marzer/tomlplusplus pull 301).
// - A non-ASCII character outside strings and comments (never valid there: bare keys and
//   values are ASCII), or right after a backslash in a multi-line basic string, or first after
//   a line-ending backslash there (valid TOML, refused): toml++ tests such characters for
//   Unicode whitespace, and for many of them (U+00A1 to U+0499 among others) that test reaches
//   code marked unreachable, undefined behaviour (github.com/marzer/tomlplusplus issues 190 and
//   295, fixed after 3.3).
#include <string_view>

namespace paraplan::toml {

// Throws InputError with the 1-based line and column (counted in code points, as toml++'s are)
// of the place: "TOML tables and arrays nested more than N levels deep" at the key part or
// bracket that goes too deep, when a value would sit more than max_depth levels down (the parts
// of its table header, the extra parts of its dotted keys, the arrays and inline tables around
// it); "TOML syntax error ..." for the other rules. A linear scan that skips strings and
// comments, without recursion; other malformed text is left to toml++. (An array-of-tables
// header can add a level per part, so what passes nests at most 2 * max_depth.)
void precheck(std::string_view text, int max_depth);

}   // namespace paraplan::toml
