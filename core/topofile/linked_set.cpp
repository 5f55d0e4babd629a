#include "topofile/linked_set.h"

namespace paraplan::topofile {

std::vector<std::size_t> largest_linked_set(const std::vector<std::vector<std::size_t>>& links) {
    const std::size_t n = links.size();
    std::vector<int> comp(n, -1);
    std::vector<std::size_t> best;
    for (std::size_t s = 0; s < n; ++s) {
        if (comp[s] >= 0) continue;
        std::vector<std::size_t> todo{s}, members;
        comp[s] = static_cast<int>(s);
        while (!todo.empty()) {
            const std::size_t k = todo.back();
            todo.pop_back();
            members.push_back(k);
            for (const std::size_t o : links[k])
                if (o < n && comp[o] < 0) {
                    comp[o] = static_cast<int>(s);
                    todo.push_back(o);
                }
        }
        if (members.size() > best.size()) best = std::move(members);
    }
    std::vector<std::size_t> out;
    if (!best.empty())
        for (std::size_t i = 0; i < n; ++i)
            if (comp[i] == comp[best.front()]) out.push_back(i);
    return out;
}

}   // namespace paraplan::topofile
