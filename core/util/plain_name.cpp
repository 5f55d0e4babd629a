#include "util/plain_name.h"

#include <cctype>

namespace paraplan {

bool is_plain_name(std::string_view s, PlainName rule) {
    if (s.empty() || s.size() > rule.max_size || s.front() == '-') return false;
    if (!rule.leading_dot && s.front() == '.') return false;
    for (unsigned char c : s)
        if (!(std::isalnum(c) || c == '.' || c == '_' || c == '-' || (rule.colon && c == ':'))) return false;
    return true;
}

}   // namespace paraplan
