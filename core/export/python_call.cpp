#include "export/python_call.h"

#include "util/input_error.h"
#include "util/json_read.h"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace paraplan::pycall {

using nlohmann::json;

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Skips a string literal starting at s[i] (a quote, maybe after a prefix); returns
// the index after it (the end of the text, or of the line, when it is not closed; *closed
// then false).
std::size_t skip_string(std::string_view s, std::size_t i, bool* closed = nullptr) {
    if (closed) *closed = true;
    const char q = s[i];
    const bool triple = i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q;
    i += triple ? 3 : 1;
    while (i < s.size()) {
        if (s[i] == '\\') {
            i += 2;
            continue;
        }
        if (s[i] == q) {
            if (!triple) return i + 1;
            if (i + 2 < s.size() && s[i + 1] == q && s[i + 2] == q) return i + 3;
        }
        if (s[i] == '\n' && !triple) break;
        ++i;
    }
    if (closed) *closed = false;
    return std::min(i, s.size());
}

std::optional<json> parse_string(std::string_view e) {
    std::size_t i = 0;
    bool raw = false;
    while (i < e.size() && std::isalpha(static_cast<unsigned char>(e[i]))) {
        const char c = static_cast<char>(std::tolower(static_cast<unsigned char>(e[i])));
        if (c == 'r') raw = true;
        else if (c != 'u') return std::nullopt;   // f-strings and bytes are not literals we read
        ++i;
    }
    if (i >= e.size() || (e[i] != '"' && e[i] != '\'')) return std::nullopt;
    bool closed = false;
    if (skip_string(e, i, &closed) != e.size() || !closed) return std::nullopt;
    const char q = e[i];
    const bool triple = e.size() - i >= 6 && e[i + 1] == q && e[i + 2] == q;
    std::string_view body = e.substr(i + (triple ? 3 : 1), e.size() - i - (triple ? 6 : 2));
    std::string out;
    for (std::size_t k = 0; k < body.size(); ++k) {
        if (body[k] == '\\' && !raw && k + 1 < body.size()) {
            const char n = body[++k];
            out += n == 'n' ? '\n' : n == 't' ? '\t' : n;
        } else {
            out += body[k];
        }
    }
    return out;
}

// Splits on top-level commas (outside brackets and strings).
std::vector<std::string_view> split_top(std::string_view s) {
    std::vector<std::string_view> parts;
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t i = 0; i < s.size();) {
        const char c = s[i];
        if (c == '"' || c == '\'') {
            i = skip_string(s, i);
            continue;
        }
        if (c == '#') {
            while (i < s.size() && s[i] != '\n') ++i;
            continue;
        }
        if (c == '(' || c == '[' || c == '{') ++depth;
        else if (c == ')' || c == ']' || c == '}') --depth;
        else if (c == ',' && depth == 0) {
            parts.push_back(s.substr(start, i - start));
            start = i + 1;
        }
        ++i;
    }
    parts.push_back(s.substr(start));
    return parts;
}

std::string strip_comments(std::string_view s) {
    std::string out;
    for (std::size_t i = 0; i < s.size();) {
        if (s[i] == '"' || s[i] == '\'') {
            const std::size_t j = skip_string(s, i);
            out.append(s.substr(i, j - i));
            i = j;
        } else if (s[i] == '#') {
            while (i < s.size() && s[i] != '\n') ++i;
        } else {
            out += s[i++];
        }
    }
    return out;
}

}   // namespace

static std::optional<json> literal_at(std::string_view expr, int depth);

std::optional<json> literal(std::string_view expr) { return literal_at(expr, 0); }

// Lists nested deeper than JSON's bound are not read as literals (kept as source):
// the recursion below stays shallow whatever the file holds.
static std::optional<json> literal_at(std::string_view expr, int depth) {
    if (depth > json_read::kMaxJsonDepth) return std::nullopt;
    const std::string cleaned = strip_comments(expr);
    std::string_view e = trim(cleaned);
    if (e.empty()) return std::nullopt;
    if (e == "True") return true;
    if (e == "False") return false;
    if (e == "None") return json(nullptr);
    if (e.front() == '[' || e.front() == '(') {
        const char close = e.front() == '[' ? ']' : ')';
        if (e.back() != close) return std::nullopt;
        json a = json::array();
        std::string_view inner = trim(e.substr(1, e.size() - 2));
        if (inner.empty()) return a;
        auto parts = split_top(inner);
        if (!parts.empty() && trim(parts.back()).empty()) parts.pop_back();   // trailing comma
        for (auto part : parts) {
            auto v = literal_at(part, depth + 1);
            if (!v) return std::nullopt;
            a.push_back(*v);
        }
        return a;
    }
    if (auto s = parse_string(e)) return s;
    // Numbers: int (with _), float, negative.
    std::string num;
    for (char c : e)
        if (c != '_') num += c;
    if (num.empty()) return std::nullopt;
    {
        long long v = 0;
        const char* b = num.data();
        const char* end = num.data() + num.size();
        auto [p, ec] = std::from_chars(b, end, v);
        if (ec == std::errc() && p == end) return v;
    }
    if (num.find_first_of("0123456789") != std::string::npos &&
        num.find_first_not_of("0123456789.eE+-") == std::string::npos) {
        try {
            std::size_t used = 0;
            const double d = std::stod(num, &used);
            if (used == num.size()) return d;
        } catch (const std::exception&) {}
    }
    return std::nullopt;
}

std::optional<Call> find_call(std::string_view src, const std::vector<std::string>& names) {
    for (std::size_t i = 0; i < src.size();) {
        const char c = src[i];
        if (c == '"' || c == '\'') {
            i = skip_string(src, i);
            continue;
        }
        if (c == '#') {
            while (i < src.size() && src[i] != '\n') ++i;
            continue;
        }
        if (!ident_char(c) || (i > 0 && ident_char(src[i - 1]))) {
            ++i;
            continue;
        }
        std::size_t j = i;
        while (j < src.size() && ident_char(src[j])) ++j;
        const std::string word(src.substr(i, j - i));
        std::size_t k = j;
        while (k < src.size() && (src[k] == ' ' || src[k] == '\t')) ++k;
        bool match = false;
        for (const auto& n : names) match = match || n == word;
        const bool is_def = i >= 6 && (src.substr(i - 6, 6) == "class " || (i >= 4 && src.substr(i - 4, 4) == "def "));
        if (!match || k >= src.size() || src[k] != '(' || is_def) {
            i = j;
            continue;
        }
        // Balanced parentheses from k.
        int depth = 0;
        std::size_t m = k;
        for (; m < src.size(); ++m) {
            const char d = src[m];
            if (d == '"' || d == '\'') {
                m = skip_string(src, m) - 1;
                continue;
            }
            if (d == '#') {
                while (m < src.size() && src[m] != '\n') ++m;
                continue;
            }
            if (d == '(' || d == '[' || d == '{') ++depth;
            if (d == ')' || d == ']' || d == '}') {
                if (--depth == 0) break;
            }
        }
        Call call;
        call.callee = word;
        call.line = 1;
        for (std::size_t q = 0; q < i; ++q) call.line += src[q] == '\n';
        if (m >= src.size())
            throw InputError("", "line " + std::to_string(call.line) + ": the call " + word + "( is not closed");
        const std::string body = strip_comments(src.substr(k + 1, m - k - 1));
        for (auto part : split_top(body)) {
            std::string_view a = trim(part);
            if (a.empty()) continue;
            Argument arg;
            // key=value (not ==)
            std::size_t eq = 0;
            while (eq < a.size() && ident_char(a[eq])) ++eq;
            std::size_t after = eq;
            while (after < a.size() && a[after] == ' ') ++after;
            if (eq > 0 && after < a.size() && a[after] == '=' && (after + 1 >= a.size() || a[after + 1] != '=')) {
                arg.key = std::string(a.substr(0, eq));
                a = trim(a.substr(after + 1));
            }
            arg.source = std::string(a);
            arg.literal = literal(a);
            call.args.push_back(std::move(arg));
        }
        return call;
    }
    return std::nullopt;
}

}   // namespace paraplan::pycall
