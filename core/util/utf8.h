#pragma once
// Checks that text is UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above
// U+10FFFF). TOML files must be UTF-8 (toml.io, "Spec"), and so is Python 3 source by
// default (PEP 3120); JSON output (nlohmann's dump) throws on anything else, so the readers
// of such text refuse it up front with the place of the first bad byte.
#include <cstddef>
#include <optional>
#include <string_view>

namespace paraplan::utf8 {

// The offset of the first byte that does not start or continue a valid sequence, or nullopt.
std::optional<std::size_t> first_invalid(std::string_view text);

// Throws InputError("not UTF-8 text: byte 0xNN", line, column) at the first invalid byte.
void check(std::string_view text);

}   // namespace paraplan::utf8
