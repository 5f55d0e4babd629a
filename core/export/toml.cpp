#include "export/toml.h"

#include "util/input_error.h"
#include "util/json_read.h"
#include "util/utf8.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>
#include <string>

namespace paraplan::toml {

using nlohmann::json;

namespace {

class Parser {
public:
    explicit Parser(std::string_view t) : s_(t) {}

    json run() {
        json root = json::object();
        json* table = &root;
        while (true) {
            skip_ws_comments_newlines();
            if (eof()) break;
            if (peek() == '[') {
                const bool array_table = peek(1) == '[';
                pos_ += array_table ? 2 : 1;
                skip_ws();
                std::vector<std::string> path = key_path();
                skip_ws();
                expect(']');
                if (array_table) expect(']');
                end_of_line();
                table = &root;
                for (std::size_t i = 0; i < path.size(); ++i) {
                    json& next = (*table)[path[i]];
                    const bool last = i + 1 == path.size();
                    if (last && array_table) {
                        if (next.is_null()) next = json::array();
                        if (!next.is_array()) fail("'" + path[i] + "' is already defined as a value");
                        next.push_back(json::object());
                        table = &next.back();
                    } else {
                        if (next.is_null()) next = json::object();
                        if (next.is_array() && !next.empty() && next.back().is_object()) {
                            table = &next.back();
                            continue;
                        }
                        if (!next.is_object()) fail("'" + path[i] + "' is already defined as a value");
                        table = &next;
                    }
                }
                continue;
            }
            key_value(*table);
            end_of_line();
        }
        return root;
    }

private:
    std::string_view s_;
    std::size_t pos_ = 0;
    int depth_ = 0;   // arrays and inline tables open around the current value

    // Bounds recursion (value -> array/inline_table -> value) like json_read's limit.
    struct Nest {
        Parser& p;
        int levels;
        explicit Nest(Parser& parser, int n = 1) : p(parser), levels(n) {
            p.depth_ += levels;
            if (p.depth_ > json_read::kMaxJsonDepth)
                p.fail("tables and arrays nested more than " + std::to_string(json_read::kMaxJsonDepth) +
                       " levels deep");
        }
        ~Nest() { p.depth_ -= levels; }
        Nest(const Nest&) = delete;
        Nest& operator=(const Nest&) = delete;
    };

    bool eof() const { return pos_ >= s_.size(); }
    char peek(std::size_t k = 0) const { return pos_ + k < s_.size() ? s_[pos_ + k] : '\0'; }

    [[noreturn]] void fail(const std::string& msg) const {
        int line = 1, col = 1;
        for (std::size_t i = 0; i < pos_ && i < s_.size(); ++i) {
            if (s_[i] == '\n') {
                ++line;
                col = 1;
            } else {
                ++col;
            }
        }
        throw InputError("", "TOML line " + std::to_string(line) + ", column " + std::to_string(col) + ": " + msg, line,
                         col);
    }
    void expect(char c) {
        if (peek() != c) fail(std::string("expected '") + c + "'" + (eof() ? " before the end of the file" : ""));
        ++pos_;
    }
    void skip_ws() {
        while (!eof() && (peek() == ' ' || peek() == '\t')) ++pos_;
    }
    void skip_comment() {
        if (peek() == '#')
            while (!eof() && peek() != '\n') ++pos_;
    }
    void skip_ws_comments_newlines() {
        while (!eof()) {
            skip_ws();
            skip_comment();
            if (peek() == '\n' || peek() == '\r') ++pos_;
            else break;
        }
    }
    void end_of_line() {
        skip_ws();
        skip_comment();
        if (peek() == '\r') ++pos_;
        if (!eof() && peek() != '\n') fail("expected the end of the line after a value");
    }

    std::string bare_or_quoted_key() {
        if (peek() == '"') return basic_string();
        if (peek() == '\'') return literal_string();
        std::string k;
        while (!eof() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-'))
            k += s_[pos_++];
        if (k.empty()) fail("expected a key");
        return k;
    }
    std::vector<std::string> key_path() {
        std::vector<std::string> path = {bare_or_quoted_key()};
        skip_ws();
        while (peek() == '.') {
            ++pos_;
            skip_ws();
            path.push_back(bare_or_quoted_key());
            if (path.size() > static_cast<std::size_t>(json_read::kMaxJsonDepth))
                fail("a dotted key with more than " + std::to_string(json_read::kMaxJsonDepth) + " parts");
            skip_ws();
        }
        return path;
    }
    void key_value(json& table) {
        std::vector<std::string> path = key_path();
        Nest dotted(*this, static_cast<int>(path.size()) - 1);   // a.b.c = v nests v two tables deeper
        skip_ws();
        expect('=');
        skip_ws();
        json* t = &table;
        for (std::size_t i = 0; i + 1 < path.size(); ++i) {
            json& next = (*t)[path[i]];
            if (next.is_null()) next = json::object();
            if (!next.is_object()) fail("'" + path[i] + "' is already defined as a value");
            t = &next;
        }
        if (t->contains(path.back())) fail("duplicate key '" + path.back() + "'");
        (*t)[path.back()] = value();
    }

    std::string basic_string() {
        expect('"');
        const bool multi = peek() == '"' && peek(1) == '"';
        if (multi) {
            pos_ += 2;
            if (peek() == '\n') ++pos_;
        }
        std::string out;
        while (true) {
            if (eof()) fail("unterminated string");
            char c = s_[pos_++];
            if (c == '"') {
                if (!multi) return out;
                if (peek() == '"' && peek(1) == '"') {
                    pos_ += 2;
                    return out;
                }
                out += c;
                continue;
            }
            if (c == '\n' && !multi) fail("newline inside a string");
            if (c == '\\') {
                if (eof()) fail("unterminated escape");
                char e = s_[pos_++];
                switch (e) {
                case 'n': out += '\n'; break;
                case 't': out += '\t'; break;
                case 'r': out += '\r'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case '"': out += '"'; break;
                case '\\': out += '\\'; break;
                case 'u':
                case 'U': {
                    const int n = e == 'u' ? 4 : 8;
                    if (pos_ + static_cast<std::size_t>(n) > s_.size()) fail("short \\u escape");
                    unsigned long cp = 0;
                    for (const char h : s_.substr(pos_, static_cast<std::size_t>(n))) {
                        if (!std::isxdigit(static_cast<unsigned char>(h))) fail("\\u escape with a non-hex digit");
                        cp = cp * 16 +
                             static_cast<unsigned long>(std::isdigit(static_cast<unsigned char>(h))
                                                            ? h - '0'
                                                            : std::tolower(static_cast<unsigned char>(h)) - 'a' + 10);
                    }
                    // A Unicode scalar value (toml.io, "String"): no surrogate, nothing above U+10FFFF.
                    if ((cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
                        fail("\\u escape that is not a Unicode scalar value");
                    pos_ += static_cast<std::size_t>(n);
                    if (cp < 0x80) out += static_cast<char>(cp);
                    else if (cp < 0x800) {
                        out += static_cast<char>(0xC0 | (cp >> 6));
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                    } else if (cp < 0x10000) {
                        out += static_cast<char>(0xE0 | (cp >> 12));
                        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                    } else {
                        out += static_cast<char>(0xF0 | (cp >> 18));
                        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
                        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                        out += static_cast<char>(0x80 | (cp & 0x3F));
                    }
                    break;
                }
                case '\n':
                    if (!multi) fail("bad escape");
                    while (!eof() && std::isspace(static_cast<unsigned char>(peek()))) ++pos_;
                    break;
                default: fail(std::string("unknown escape \\") + e);
                }
                continue;
            }
            out += c;
        }
    }
    std::string literal_string() {
        expect('\'');
        const bool multi = peek() == '\'' && peek(1) == '\'';
        if (multi) {
            pos_ += 2;
            if (peek() == '\n') ++pos_;
        }
        std::string out;
        while (true) {
            if (eof()) fail("unterminated string");
            char c = s_[pos_++];
            if (c == '\'') {
                if (!multi) return out;
                if (peek() == '\'' && peek(1) == '\'') {
                    pos_ += 2;
                    return out;
                }
            }
            if (c == '\n' && !multi) fail("newline inside a string");
            out += c;
        }
    }

    json array() {
        expect('[');
        json a = json::array();
        while (true) {
            skip_ws_comments_newlines();
            if (peek() == ']') {
                ++pos_;
                return a;
            }
            a.push_back(value());
            skip_ws_comments_newlines();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            skip_ws_comments_newlines();
            expect(']');
            return a;
        }
    }
    json inline_table() {
        expect('{');
        json t = json::object();
        skip_ws();
        if (peek() == '}') {
            ++pos_;
            return t;
        }
        while (true) {
            skip_ws();
            key_value(t);
            skip_ws();
            if (peek() == ',') {
                ++pos_;
                continue;
            }
            expect('}');
            return t;
        }
    }

    json number_or_bool() {
        std::string tok;
        while (!eof() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '+' ||
                          peek() == '-' || peek() == '.'))
            tok += s_[pos_++];
        if (tok == "true") return true;
        if (tok == "false") return false;
        if (tok.empty()) fail("expected a value");
        std::string t = tok;
        if (t == "inf" || t == "+inf") return std::numeric_limits<double>::infinity();
        if (t == "-inf") return -std::numeric_limits<double>::infinity();
        if (t == "nan" || t == "+nan" || t == "-nan") return std::numeric_limits<double>::quiet_NaN();
        std::string clean;
        for (std::size_t i = 0; i < t.size(); ++i) {
            if (t[i] == '_') {
                if (i == 0 || i + 1 == t.size() || !std::isalnum(static_cast<unsigned char>(t[i - 1])) ||
                    !std::isalnum(static_cast<unsigned char>(t[i + 1])))
                    fail("misplaced '_' in number '" + tok + "'");
                continue;
            }
            clean += t[i];
        }
        int base = 10;
        std::string digits = clean;
        if (clean.size() > 2 && clean[0] == '0' && (clean[1] == 'x' || clean[1] == 'o' || clean[1] == 'b')) {
            base = clean[1] == 'x' ? 16 : clean[1] == 'o' ? 8 : 2;
            digits = clean.substr(2);
        }
        const bool is_float = base == 10 && clean.find_first_of(".eE") != std::string::npos;
        if (!is_float) {
            long long v = 0;
            std::string_view d = digits;
            if (!d.empty() && d[0] == '+') d.remove_prefix(1);
            auto [p, ec] = std::from_chars(d.data(), d.data() + d.size(), v, base);
            if (ec != std::errc() || p != d.data() + d.size()) fail("not a number: '" + tok + "'");
            return v;
        }
        try {
            std::size_t used = 0;
            double v = std::stod(clean, &used);
            if (used != clean.size()) fail("not a number: '" + tok + "'");
            return v;
        } catch (const std::invalid_argument&) {
            fail("not a number: '" + tok + "'");
        } catch (const std::out_of_range&) {
            fail("number out of range: '" + tok + "'");
        }
    }

    json value() {
        switch (peek()) {
        case '"': return basic_string();
        case '\'': return literal_string();
        case '[': {
            Nest n(*this);
            return array();
        }
        case '{': {
            Nest n(*this);
            return inline_table();
        }
        default: return number_or_bool();
        }
    }
};

}   // namespace

json parse(std::string_view text) {
    utf8::check(text);   // a TOML document is UTF-8 (toml.io, "Spec")
    return Parser(text).run();
}

}   // namespace paraplan::toml
