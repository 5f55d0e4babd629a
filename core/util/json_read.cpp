#include "util/json_read.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>

namespace paraplan::json_read {

namespace {
void line_column(std::string_view text, std::size_t pos, int& line, int& column) {
    line = 1;
    column = 1;
    for (std::size_t i = 0; i < pos && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
}

std::string control_name(unsigned char c) {
    switch (c) {
    case '\n': return "a newline";
    case '\r': return "a carriage return";
    case '\t': return "a tab";
    case 0: return "a NUL byte";
    case 0x7f: return "a DEL character";
    default: {
        static const char* hex = "0123456789ABCDEF";
        return std::string("a control character (U+00") + hex[c >> 4] + hex[c & 15] + ")";
    }
    }
}
}   // namespace

void check_nesting(std::string_view text, int max_depth) {
    int depth = 0;
    bool in_string = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (in_string) {
            if (c == '\\') ++i;   // skip the escaped character
            else if (c == '"') in_string = false;
            continue;
        }
        if (c == '"') {
            in_string = true;
        } else if (c == '[' || c == '{') {
            if (++depth > max_depth) {
                int line = 0, column = 0;
                line_column(text, i, line, column);
                throw InputError("",
                                 "JSON nested more than " + std::to_string(max_depth) +
                                     " levels deep (arrays and objects inside each other); "
                                     "no Paraplan input needs that many, so the file is refused",
                                 line, column);
            }
        } else if (c == ']' || c == '}') {
            if (depth > 0) --depth;
        }
    }
}

std::optional<json> try_parse(std::string_view text, std::string* problem) {
    try {
        return parse(text);
    } catch (const InputError& e) {
        if (problem) *problem = e.what();
        return std::nullopt;
    }
}

const std::string& no_control_chars(const std::string& pointer, const std::string& value) {
    for (std::size_t i = 0; i < value.size(); ++i) {
        const auto c = static_cast<unsigned char>(value[i]);
        if (c < 0x20 || c == 0x7f)
            throw InputError(pointer, "contains " + control_name(c) + " at character " + std::to_string(i + 1) +
                                          "; control characters are refused because this value reaches a command "
                                          "line or a script, where a newline would start a new command");
    }
    return value;
}

namespace {

// The text's characters as nlohmann's parser reads them (an iterator pair: its
// iterator_input_adapter advances one character at a time), checking in at every MiB: it
// reports how far the parse is and stops it (Progress::step throws Cancelled) when asked.
class WatchedChars {
public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char*;
    using reference = const char&;

    static constexpr std::ptrdiff_t kEvery = std::ptrdiff_t(1) << 20;

    WatchedChars() = default;
    WatchedChars(const char* p, const char* begin, const char* end, const Progress* watch)
        : p_(p), begin_(begin), end_(end), watch_(watch), next_(watch ? std::min(p + kEvery, end) : end) {}

    reference operator*() const { return *p_; }
    WatchedChars& operator++() {
        if (++p_ == next_ && watch_) checkIn();
        return *this;
    }
    WatchedChars operator++(int) {
        WatchedChars old = *this;
        ++*this;
        return old;
    }
    bool operator==(const WatchedChars& o) const { return p_ == o.p_; }

private:
    void checkIn() {
        watch_->step(p_ - begin_, end_ - begin_);
        next_ = end_ - p_ > kEvery ? p_ + kEvery : end_;
    }

    const char* p_ = nullptr;
    const char* begin_ = nullptr;
    const char* end_ = nullptr;
    const Progress* watch_ = nullptr;
    const char* next_ = nullptr;
};

json parse_watched(std::string_view text, const Progress* watch) {
    check_nesting(text);
    if (watch) watch->step(0, static_cast<long long>(text.size()));
    try {
        const char* b = text.data();
        const char* e = text.data() + text.size();
        if (!watch) return json::parse(b, e);
        return json::parse(WatchedChars(b, b, e, watch), WatchedChars(e, b, e, watch));
    } catch (const json::parse_error& e) {
        // Byte offset of the error -> 1-based line and column.
        std::size_t pos = e.byte == 0 ? 0 : e.byte - 1;
        if (pos > text.size()) pos = text.size();
        int line = 1, column = 1;
        line_column(text, pos, line, column);
        std::string what = e.what();
        // nlohmann's text: "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error while
        // parsing ..."
        auto p = what.find("syntax error");
        std::string msg = p != std::string::npos ? what.substr(p) : std::string("invalid JSON");
        throw InputError("", "JSON " + msg, line, column);
    } catch (const json::exception& e) {
        // e.g. out_of_range.406 "number overflow parsing '1e400'"
        std::string what = e.what();
        auto p = what.find("] ");
        throw InputError("", "invalid JSON: " + (p != std::string::npos ? what.substr(p + 2) : what));
    }
}

}   // namespace

json parse(std::string_view text) { return parse_watched(text, nullptr); }

json parse(std::string_view text, const Progress& watch) { return parse_watched(text, &watch); }

std::string describe(const json& v) {
    switch (v.type()) {
    case json::value_t::null: return "null";
    case json::value_t::object: return "an object";
    case json::value_t::array: return "an array";
    case json::value_t::discarded: return "nothing";
    default: {
        std::string s = v.dump();
        if (s.size() > 60) s = s.substr(0, 57) + "...";
        return s;
    }
    }
}

void fail(const std::string& pointer, const std::string& expected, const json& got) {
    throw InputError(pointer, "expected " + expected + ", got " + describe(got));
}

std::string pointer_token(std::string_view key) {
    std::string out;
    for (char c : key) {
        if (c == '~') out += "~0";
        else if (c == '/') out += "~1";
        else out += c;
    }
    return out;
}

Obj::Obj(const json& j, std::string pointer) : j_(j), ptr_(std::move(pointer)) {
    if (!j_.is_object()) fail(ptr_.empty() ? "/" : ptr_, "an object", j_);
}

bool Obj::has(std::string_view key) const { return get(key) != nullptr; }

const json* Obj::get(std::string_view key) const {
    auto it = j_.find(key);
    if (it == j_.end() || it->is_null()) return nullptr;
    return &*it;
}

namespace {
bool is_integral(const json& v) {
    if (v.is_number_integer()) return true;
    if (v.is_number_float()) {
        double d = v.get<double>();
        return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 2e9;
    }
    return false;
}
}   // namespace

int Obj::positive_int(std::string_view key) const {
    const json* v = get(key);
    if (!v) throw InputError(at(key), "required field is missing (expected a positive integer)");
    if (!is_integral(*v) || v->get<double>() < 1 || v->get<double>() > 2147483647.0)
        fail(at(key), "a positive integer", *v);
    return static_cast<int>(v->get<double>());
}

int Obj::positive_int(std::string_view key, int def) const { return has(key) ? positive_int(key) : def; }

int Obj::non_negative_int(std::string_view key, int def) const {
    const json* v = get(key);
    if (!v) return def;
    if (!is_integral(*v) || v->get<double>() < 0 || v->get<double>() > 2147483647.0)
        fail(at(key), "a non-negative integer", *v);
    return static_cast<int>(v->get<double>());
}

int Obj::integer(std::string_view key, int def) const {
    const json* v = get(key);
    if (!v) return def;
    if (!is_integral(*v)) fail(at(key), "an integer", *v);
    // is_integral() takes integers of any size (only floats are bounded): out of int's range
    // the cast below would be undefined.
    if (v->get<double>() < -2147483648.0 || v->get<double>() > 2147483647.0)
        fail(at(key), "an integer from -2147483648 to 2147483647", *v);
    return static_cast<int>(v->get<double>());
}

long long Obj::int64(std::string_view key, long long def) const {
    const json* v = get(key);
    if (!v) return def;
    if (v->is_number_integer()) return v->get<long long>();
    if (v->is_number_float()) {
        double d = v->get<double>();
        if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9e18) return static_cast<long long>(d);
    }
    fail(at(key), "an integer", *v);
}

double Obj::positive_number(std::string_view key) const {
    const json* v = get(key);
    if (!v) throw InputError(at(key), "required field is missing (expected a positive number)");
    if (!v->is_number() || !(v->get<double>() > 0) || !std::isfinite(v->get<double>()))
        fail(at(key), "a positive number", *v);
    return v->get<double>();
}

double Obj::positive_number(std::string_view key, double def) const { return has(key) ? positive_number(key) : def; }

double Obj::non_negative_number(std::string_view key, double def) const {
    const json* v = get(key);
    if (!v) return def;
    if (!v->is_number() || !(v->get<double>() >= 0) || !std::isfinite(v->get<double>()))
        fail(at(key), "a non-negative number", *v);
    return v->get<double>();
}

std::string Obj::string(std::string_view key) const {
    const json* v = get(key);
    if (!v) throw InputError(at(key), "required field is missing (expected a string)");
    if (!v->is_string()) fail(at(key), "a string", *v);
    return v->get<std::string>();
}

std::string Obj::string(std::string_view key, const std::string& def) const { return has(key) ? string(key) : def; }

std::string Obj::plain_string(std::string_view key, const std::string& def) const {
    return no_control_chars(at(key), string(key, def));
}

std::string Obj::one_of(std::string_view key, std::initializer_list<const char*> allowed,
                        const std::string& def) const {
    const json* v = get(key);
    if (!v) return def;
    std::string list;
    for (const char* a : allowed) {
        if (!list.empty()) list += ", ";
        list += std::string("\"") + a + "\"";
    }
    if (!v->is_string()) fail(at(key), "one of " + list, *v);
    const auto s = v->get<std::string>();
    for (const char* a : allowed)
        if (s == a) return s;
    fail(at(key), "one of " + list, *v);
}

bool Obj::boolean(std::string_view key, bool def) const {
    const json* v = get(key);
    if (!v) return def;
    if (!v->is_boolean()) fail(at(key), "true or false", *v);
    return v->get<bool>();
}

std::vector<int> Obj::int_list(std::string_view key) const {
    std::vector<int> out;
    const json* v = get(key);
    if (!v) return out;
    if (!v->is_array()) fail(at(key), "an array of integers", *v);
    for (std::size_t i = 0; i < v->size(); ++i) {
        const json& e = (*v)[i];
        if (!is_integral(e)) fail(at(key) + "/" + std::to_string(i), "an integer", e);
        out.push_back(static_cast<int>(e.get<double>()));
    }
    return out;
}

Obj Obj::object(std::string_view key) const {
    const json* v = get(key);
    if (!v) throw InputError(at(key), "required field is missing (expected an object)");
    return Obj(*v, at(key));
}

const json& Obj::array(std::string_view key) const {
    const json* v = get(key);
    if (!v) throw InputError(at(key), "required field is missing (expected an array)");
    if (!v->is_array()) fail(at(key), "an array", *v);
    return *v;
}

}   // namespace paraplan::json_read
