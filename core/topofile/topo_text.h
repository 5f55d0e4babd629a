#pragma once
// Small text helpers the topology readers share: bounded line splitting, whitespace tokens,
// and the one way they report bad input (an InputError naming the line).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::topofile {

// Throws InputError("", why, line, column): "line N, column C: why".
[[noreturn]] void fail(int line, const std::string& why, int column = 1);

// `s` with control characters and bytes above 0x7e shown as '?', at most 80 characters, for
// quoting input back in a message.
std::string printable(std::string_view s);

std::string_view trim(std::string_view s);
std::vector<std::string_view> split_ws(std::string_view s);   // on spaces and tabs

// The lines of `text` ("\r\n" or "\n"); fails (naming the line) past max_lines lines or a line
// longer than max_chars, and on a NUL byte.
std::vector<std::string_view> split_lines(std::string_view text, std::size_t max_lines, std::size_t max_chars);

}   // namespace paraplan::topofile
