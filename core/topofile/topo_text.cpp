#include "topofile/topo_text.h"

#include "util/input_error.h"

namespace paraplan::topofile {

void fail(int line, const std::string& why, int column) { throw InputError("", why, line, column); }

std::string printable(std::string_view s) {
    std::string o;
    for (char c : s.substr(0, 80)) {
        const auto u = static_cast<unsigned char>(c);
        o += (u < 0x20 || u > 0x7e) ? '?' : c;
    }
    if (s.size() > 80) o += "...";
    return o;
}

std::string_view trim(std::string_view s) {
    const auto ws = [](char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\n'; };
    while (!s.empty() && ws(s.front())) s.remove_prefix(1);
    while (!s.empty() && ws(s.back())) s.remove_suffix(1);
    return s;
}

std::vector<std::string_view> split_ws(std::string_view s) {
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
        const std::size_t start = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
        if (i > start) out.push_back(s.substr(start, i - start));
    }
    return out;
}

std::vector<std::string_view> split_lines(std::string_view text, std::size_t max_lines, std::size_t max_chars) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view l = text.substr(start, nl - start);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        const int number = static_cast<int>(out.size()) + 1;
        if (out.size() >= max_lines) fail(number, "more than " + std::to_string(max_lines) + " lines");
        if (l.size() > max_chars) fail(number, "line longer than " + std::to_string(max_chars) + " characters");
        if (const auto nul = l.find('\0'); nul != std::string_view::npos)
            fail(number, "NUL byte in a text file", static_cast<int>(nul) + 1);
        out.push_back(l);
        start = nl + 1;
    }
    return out;
}

}   // namespace paraplan::topofile
