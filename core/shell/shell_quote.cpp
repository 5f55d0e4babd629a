#include "shell/shell_quote.h"

namespace paraplan::runtime {

namespace {
bool plain_char(char c) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
    switch (c) {
    case '_':
    case '@':
    case '%':
    case '+':
    case '=':
    case ':':
    case ',':
    case '.':
    case '/':
    case '-': return true;
    default: return false;
    }
}
}   // namespace

std::string sh_quote(std::string_view word) {
    bool plain = !word.empty();
    for (char c : word) plain = plain && plain_char(c);
    // A leading '=' or '-' is harmless to the shell; '~' is not plain (tilde expansion).
    if (plain) return std::string(word);
    std::string out = "'";
    for (char c : word) {
        if (c == '\'') out += "'\\''";
        else out += c;
    }
    out += '\'';
    return out;
}

std::string sh_join(const std::vector<std::string>& argv) {
    std::string out;
    for (const auto& a : argv) {
        if (!out.empty()) out += ' ';
        out += sh_quote(a);
    }
    return out;
}

bool is_env_name(std::string_view name) {
    if (name.empty()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool alpha = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
        if (!(alpha || (i > 0 && c >= '0' && c <= '9'))) return false;
    }
    return true;
}

}   // namespace paraplan::runtime
