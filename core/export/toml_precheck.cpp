#include "export/toml_precheck.h"

#include "util/input_error.h"

#include <cctype>
#include <string>
#include <vector>

namespace paraplan::toml {

namespace {

class PreCheck {
public:
    PreCheck(std::string_view text, int max_depth) : s_(text), max_(max_depth) {}

    void run() {
        if (s_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = line_start_ = 3;   // a byte order mark (toml++ skips it)
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '\n') {
                next_line();
                continue;
            }
            if (c == '#') {
                while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
                continue;
            }
            const bool quote = c == '"' || c == '\'';
            if (!in_key_ && (quote ? !string_may_start(prev_) : bare_value_char(c))) {
                bare_value();
                continue;
            }
            if (quote && string_may_start(prev_)) {
                key_started_ = true;
                skip_string(c);
                prev_ = c;
                continue;
            }
            if (static_cast<unsigned char>(c) >= 0x80) not_ascii();
            // toml++ 3.3 asks for a value there, against its value parser's precondition (an
            // assertion in debug builds; github.com/marzer/tomlplusplus parser.inl parse_array).
            if (c == '}' && !in_key_ && !frames_.empty() && !frames_.back().table && (prev_ == '[' || prev_ == ','))
                fail("TOML syntax error while parsing array: expected a value or ']', saw '}'");
            if (c != ' ' && c != '\t' && c != '\r') prev_ = c;
            if (in_key_) key_char(c);
            else value_char(c);
            ++pos_;
        }
    }

private:
    struct Frame {
        bool table;   // an inline table (keys follow '{' and ','), else an array
        int levels;   // 1, plus the extra parts of the dotted key whose value it is
    };

    std::string_view s_;
    int max_;
    std::size_t pos_ = 0;
    int line_ = 1;
    std::size_t line_start_ = 0;
    std::vector<Frame> frames_;
    int header_levels_ = 0;   // of the last [table] or [[array of tables]] header
    int open_levels_ = 0;     // sum of frames_' levels
    bool in_key_ = true;      // reading a key (or a header), else a value
    bool key_started_ = false;
    int key_dots_ = 0;
    int pending_ = 0;   // the dotted key's extra parts, for a bracket that opens its value
    // The last character outside strings and comments other than whitespace; '\n' at the start of
    // a statement. A quote opens a string only where TOML lets one begin: toml++ reads a quote
    // anywhere else as part of a malformed value, whose characters it tests (see not_ascii).
    char prev_ = '\n';

    // A value that is neither string, array nor inline table (a number, boolean, date or time;
    // or garbage) runs to the first of these, and toml++ 3.3 tests each of its characters for
    // whitespace (is_value_terminator), which is undefined for many non-ASCII ones: a bracket or
    // quote inside such a value opens nothing.
    static bool value_ends(char c) {
        return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == ']' || c == '}' || c == ',' || c == '#';
    }
    static bool bare_value_char(char c) { return !value_ends(c) && c != '[' && c != '{'; }
    void bare_value() {
        for (; pos_ < s_.size() && !value_ends(s_[pos_]); ++pos_)
            if (static_cast<unsigned char>(s_[pos_]) >= 0x80) not_ascii();
        prev_ = s_[pos_ - 1];
        pending_ = 0;
    }

    static bool string_may_start(char prev) {
        return prev == '\n' || prev == '=' || prev == '[' || prev == ',' || prev == '{' || prev == '.';
    }

    [[noreturn]] void fail(const std::string& why) const {
        // Columns count code points (UTF-8 lead bytes), as toml++'s source positions do.
        int col = 1;
        for (std::size_t i = line_start_; i < pos_; ++i)
            if ((static_cast<unsigned char>(s_[i]) & 0xC0) != 0x80) ++col;
        throw InputError("", why, line_, col);
    }
    void check(int depth) const {
        if (depth > max_) fail("TOML tables and arrays nested more than " + std::to_string(max_) + " levels deep");
    }

    void next_line() {
        ++pos_;
        ++line_;
        line_start_ = pos_;
        if (frames_.empty()) {   // a new statement (arrays may span lines)
            start_key();
            prev_ = '\n';
        }
    }
    void start_key() {
        in_key_ = true;
        key_started_ = false;
        key_dots_ = 0;
    }

    // Basic or literal string, single- or multi-line (toml.io, "String"); an unterminated
    // one runs to the end of its line (single) or of the text (multi).
    void skip_string(char quote) {
        const bool multi = pos_ + 2 < s_.size() && s_[pos_ + 1] == quote && s_[pos_ + 2] == quote;
        pos_ += multi ? 3 : 1;
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '\n') {
                if (!multi) return;
                ++pos_;
                ++line_;
                line_start_ = pos_;
                continue;
            }
            if (c == '\\' && quote == '"') {
                if (multi) escape_in_multi_line();
                else pos_ += pos_ + 1 < s_.size() && s_[pos_ + 1] != '\n' ? 2 : 1;
                continue;
            }
            ++pos_;
            if (c != quote) continue;
            if (!multi) return;
            if (pos_ + 1 < s_.size() && s_[pos_] == quote && s_[pos_ + 1] == quote) {
                pos_ += 2;
                while (pos_ < s_.size() && s_[pos_] == quote) ++pos_;   // """a""""" ends with two quotes kept
                return;
            }
        }
    }

    // Outside strings and comments TOML is ASCII (toml.io, "Keys": bare keys are A-Za-z0-9_-), and
    // toml++ 3.3's whitespace test is undefined for many other characters (see escape_in_multi_line).
    [[noreturn]] void not_ascii() const {
        fail("TOML syntax error: unexpected character '" + std::string(s_.substr(pos_, utf8_length())) +
             "' outside a string or comment");
    }

    // Bytes in the UTF-8 sequence at pos_ (the text was checked to be UTF-8).
    std::size_t utf8_length() const {
        const auto b = static_cast<unsigned char>(s_[pos_]);
        return b < 0x80 ? 1 : b < 0xE0 ? 2 : b < 0xF0 ? 3 : 4;
    }

    // After a backslash in a multi-line basic string toml++ 3.3 asks whether the next character,
    // and after a line-ending backslash the first one it does not skip, is Unicode whitespace;
    // for many non-ASCII characters (U+00A1 to U+0499 among them) that test runs into code its
    // author marked unreachable: undefined behaviour (github.com/marzer/tomlplusplus issues 190
    // and 295, fixed after 3.3). Such text is refused here instead.
    void escape_in_multi_line() {
        ++pos_;   // the backslash
        std::size_t at = pos_;
        while (at < s_.size() && (s_[at] == ' ' || s_[at] == '\t' || s_[at] == '\r' || s_[at] == '\n')) ++at;
        const bool line_ending = at > pos_;
        for (; pos_ < at; ++pos_) {
            if (s_[pos_] != '\n') continue;
            ++line_;
            line_start_ = pos_ + 1;
        }
        if (pos_ < s_.size() && static_cast<unsigned char>(s_[pos_]) >= 0x80)
            fail(line_ending ? "TOML syntax error while parsing string: a non-ASCII character first after a "
                               "line-ending backslash, which toml++ 3.3 cannot read safely (escape it as \\uXXXX)"
                             : "TOML syntax error while parsing string: unknown escape sequence '\\" +
                                   std::string(s_.substr(pos_, utf8_length())) + "'");
        if (!line_ending && pos_ < s_.size()) ++pos_;   // the escaped character
    }

    void header() {
        const bool array_table = pos_ + 1 < s_.size() && s_[pos_ + 1] == '[';
        pos_ += array_table ? 2 : 1;
        header_levels_ = array_table ? 2 : 1;
        while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
        // A key starts bare (A-Za-z0-9_-) or quoted (toml.io, "Keys").
        const char first = pos_ < s_.size() ? s_[pos_] : '\n';
        if (!std::isalnum(static_cast<unsigned char>(first)) && first != '_' && first != '-' && first != '"' &&
            first != '\'')
            fail("TOML syntax error while parsing table header: expected a key, saw " +
                 (first == '\n' || first == '\r' ? std::string("the end of the line")
                                                 : "'" + std::string(1, first) + "'"));
        char prev = '[';
        while (pos_ < s_.size() && s_[pos_] != ']' && s_[pos_] != '\n') {
            const char c = s_[pos_];
            if ((c == '"' || c == '\'') && (prev == '[' || prev == '.')) {
                skip_string(c);
                prev = c;
                continue;
            }
            if (c == '.') check(++header_levels_);
            if (static_cast<unsigned char>(c) >= 0x80) not_ascii();
            if (c != ' ' && c != '\t') prev = c;
            ++pos_;
        }
        key_started_ = true;   // the rest of the line is not a key
        --pos_;                // run() steps past the ']' (or back onto the '\n')
    }

    void key_char(char c) {
        if (c == '[' && !key_started_ && frames_.empty()) {
            header();
            return;
        }
        if (c == '.') {
            check(header_levels_ + open_levels_ + ++key_dots_);
        } else if (c == '=') {
            in_key_ = false;
            pending_ = key_dots_;
        } else if (c == '}' && !frames_.empty()) {   // {} or a dangling comma
            close();
        } else if (c != ' ' && c != '\t' && c != '\r') {
            key_started_ = true;
        }
    }

    void value_char(char c) {
        if (c == '[' || c == '{') {
            frames_.push_back({c == '{', 1 + pending_});
            open_levels_ += frames_.back().levels;
            pending_ = 0;
            check(header_levels_ + open_levels_);
            if (c == '{') start_key();
            return;
        }
        if (c != ' ' && c != '\t') pending_ = 0;
        if (c == ']' || c == '}') close();
        else if (c == ',' && !frames_.empty() && frames_.back().table) start_key();
    }

    void close() {
        if (frames_.empty()) return;
        open_levels_ -= frames_.back().levels;
        frames_.pop_back();
        in_key_ = false;
    }
};

}   // namespace

void precheck(std::string_view text, int max_depth) { PreCheck(text, max_depth).run(); }

}   // namespace paraplan::toml
