#pragma once
// Helpers shared by the tst_topology_* tests.
#include "topology/build_rank_map.h"

#include <QtTest/QtTest>

#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace topo_test {

using Groups = std::vector<std::vector<int>>;

inline std::string str(const Groups& g) {
    std::ostringstream o;
    for (const auto& grp : g) {
        o << '{';
        for (std::size_t i = 0; i < grp.size(); ++i) o << (i ? "," : "") << grp[i];
        o << '}';
    }
    return o.str();
}

// Expands a list of groups given as "first rank + stride" patterns is error-prone;
// tests write the groups out in full and compare with this.
inline bool same(const paraplan::topology::RankMap& m, const char* kind, const Groups& want, std::string& why) {
    if (!m.has_group(kind)) {
        why = std::string("no group kind ") + kind;
        return false;
    }
    const Groups got = m.group_list(kind);
    if (got == want) return true;
    why = std::string(kind) + ": got " + str(got) + " want " + str(want);
    return false;
}

inline std::string rules(const paraplan::topology::RankMap& m) {
    std::string s;
    for (const auto& d : m.diagnostics) s += d.rule + " ";
    return s;
}

inline bool has_rule(const paraplan::topology::RankMap& m, const std::string& rule) {
    for (const auto& d : m.diagnostics)
        if (d.rule == rule) return true;
    return false;
}

}   // namespace topo_test

#define CHECK_GROUPS(map, kind, ...)                                    \
    do {                                                                \
        std::string why_;                                               \
        const bool ok_ = topo_test::same(map, kind, __VA_ARGS__, why_); \
        QVERIFY2(ok_, why_.c_str());                                    \
    } while (0)

#define CHECK_VALID(map) QVERIFY2((map).valid(), topo_test::rules(map).c_str())
