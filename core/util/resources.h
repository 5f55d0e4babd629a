#pragma once
// Files from resources/ (catalogs, example projects, the probe worker) compiled into
// the library by cmake/ParaplanEmbed.cmake.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::resources {

struct Entry {
    const char* path;   // relative to resources/, e.g. "catalog/gpus.json"
    std::string_view data;
};

// The embedded file at `path`, or nullopt.
std::optional<std::string_view> find(std::string_view path);
// Paths of embedded files that start with `prefix`, sorted.
std::vector<std::string> list(std::string_view prefix);

namespace detail {
const std::vector<Entry>& entries();
}

}   // namespace paraplan::resources
