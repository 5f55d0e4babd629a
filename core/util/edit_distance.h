#pragma once
// How far a typed name is from a known one, for "did you mean" hints (the CLI's options and
// commands, a project file's keys).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan {

// Edits (insert, delete, substitute) from a to b.
std::size_t edit_distance(std::string_view a, std::string_view b);

// Of `names`, the one nearest `typed` within `max_edits` edits (the first of equals), or "".
// Names longer than 64 characters are never compared (a hint is for a typo, and the cost grows
// with the product of the lengths).
std::string nearest_within(std::string_view typed, const std::vector<std::string_view>& names,
                           std::size_t max_edits = 2);

}   // namespace paraplan
