#include "util/resources.h"

#include <algorithm>

namespace paraplan::resources {

std::optional<std::string_view> find(std::string_view path) {
    for (const auto& e : detail::entries())
        if (path == e.path) return e.data;
    return std::nullopt;
}

std::vector<std::string> list(std::string_view prefix) {
    std::vector<std::string> out;
    for (const auto& e : detail::entries()) {
        std::string_view p = e.path;
        if (p.substr(0, prefix.size()) == prefix) out.emplace_back(p);
    }
    std::sort(out.begin(), out.end());
    return out;
}

}   // namespace paraplan::resources
