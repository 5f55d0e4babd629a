#include "util/edit_distance.h"

#include <algorithm>

namespace paraplan {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diag = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diag = up;
        }
    }
    return row[b.size()];
}

std::string nearest_within(std::string_view typed, const std::vector<std::string_view>& names, std::size_t max_edits) {
    constexpr std::size_t kLongest = 64;
    std::string near;
    if (typed.size() > kLongest) return near;
    std::size_t best = max_edits + 1;
    for (const std::string_view name : names) {
        if (name.empty() || name.size() > kLongest) continue;
        if (const std::size_t d = edit_distance(typed, name); d < best) {
            best = d;
            near = std::string(name);
        }
    }
    return near;
}

}   // namespace paraplan
