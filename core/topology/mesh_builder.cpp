#include "topology/mesh_builder.h"

#include <algorithm>
#include <numeric>

namespace paraplan::topology::detail {

namespace {
// Row-major strides: rank = sum of coordinate x stride over the axes.
std::vector<long long> strides_of(const std::vector<int>& sizes) {
    std::vector<long long> st(sizes.size(), 1);
    for (std::size_t k = sizes.size(); k-- > 1;) st[k - 1] = st[k] * sizes[k];
    return st;
}

// The ranks at coordinate 0 on every axis but `axes`, which take every combination of
// their values in C order (the last of `axes` fastest): sum of coordinate x stride.
std::vector<int> offsets_over(const std::vector<int>& axes, const std::vector<int>& sizes,
                              const std::vector<long long>& strides) {
    std::vector<int> out{0};
    for (int a : axes) {   // outer axes first: each later axis varies faster
        const auto k = static_cast<std::size_t>(a);
        std::vector<int> next;
        next.reserve(out.size() * static_cast<std::size_t>(sizes[k]));
        for (int base : out)
            for (int v = 0; v < sizes[k]; ++v) next.push_back(base + static_cast<int>(v * strides[k]));
        out.swap(next);
    }
    return out;
}
}   // namespace

Mesh make_mesh(const std::vector<int>& sizes) {
    Mesh m;
    m.sizes = sizes;
    long long w = 1;
    for (int s : sizes) w *= s;
    m.world = static_cast<int>(w);
    const std::size_t n = sizes.size();
    m.coords.assign(static_cast<std::size_t>(m.world) * n, 0);
    if (n == 0 || m.world == 0) return m;
    // C order: axis k's coordinate of rank r is (r / stride_k) % size_k, which is runs of
    // stride_k equal values; filled run by run, axis by axis (no division per rank).
    const std::vector<long long> st = strides_of(sizes);
    for (std::size_t k = 0; k < n; ++k) {
        const auto run = static_cast<std::size_t>(st[k]);
        std::size_t r = 0;
        while (r < static_cast<std::size_t>(m.world))
            for (int v = 0; v < sizes[k]; ++v)
                for (std::size_t j = 0; j < run; ++j, ++r) m.coords[r * n + k] = v;
    }
    return m;
}

GroupSet groups_along(const Mesh& mesh, const std::vector<int>& vary) {
    const std::size_t n = mesh.sizes.size();
    std::vector<char> masked(n, 0);
    for (int a : vary) masked[static_cast<std::size_t>(a)] = 1;
    std::vector<int> in, out;   // the varied axes and the others, outer -> inner
    for (std::size_t k = 0; k < n; ++k) (masked[k] ? in : out).push_back(static_cast<int>(k));
    // Group id = the other axes' coordinates in C order, position = the varied axes'
    // coordinates in C order. Row-major strides make both orders agree with rank order, so
    // the groups come out sorted by first rank and ascending inside. Rank of (group g,
    // position i) = first[g] + offset[i]: the rank is a sum of coordinate x stride.
    const std::vector<long long> st = strides_of(mesh.sizes);
    const std::vector<int> offset = offsets_over(in, mesh.sizes, st);
    const std::vector<int> first = offsets_over(out, mesh.sizes, st);
    GroupSet g;
    g.group_size = static_cast<int>(offset.size());
    g.members.resize(static_cast<std::size_t>(mesh.world));
    g.group_index.resize(static_cast<std::size_t>(mesh.world));
    if (mesh.world == 0) return g;
    std::size_t i = 0;
    for (std::size_t gid = 0; gid < first.size(); ++gid)
        for (int off : offset) {
            const int r = first[gid] + off;
            g.members[i++] = r;
            g.group_index[static_cast<std::size_t>(r)] = static_cast<int>(gid);
        }
    return g;
}

GroupSet groups_along_subsets(const Mesh& mesh, int axis, const std::vector<std::vector<int>>& subsets) {
    const std::size_t n = mesh.sizes.size();
    const int axis_size = mesh.sizes[static_cast<std::size_t>(axis)];
    const int nsub = static_cast<int>(subsets.size());
    const int gsize = nsub > 0 ? static_cast<int>(subsets.front().size()) : 0;
    // index on the axis -> (subset, position); -1 when in no subset
    std::vector<int> which(static_cast<std::size_t>(axis_size), -1), where(static_cast<std::size_t>(axis_size), -1);
    for (int s = 0; s < nsub; ++s)
        for (int p = 0; p < gsize; ++p) {
            const int idx = subsets[static_cast<std::size_t>(s)][static_cast<std::size_t>(p)];
            which[static_cast<std::size_t>(idx)] = s;
            where[static_cast<std::size_t>(idx)] = p;
        }
    const int bases = mesh.world / axis_size;
    GroupSet g;
    g.group_size = gsize;
    g.members.assign(static_cast<std::size_t>(bases) * static_cast<std::size_t>(nsub) * static_cast<std::size_t>(gsize),
                     -1);
    g.group_index.assign(static_cast<std::size_t>(mesh.world), -1);
    for (int r = 0; r < mesh.world; ++r) {
        const int* c = mesh.coords.data() + static_cast<std::size_t>(r) * n;
        const int idx = c[axis];
        const int s = which[static_cast<std::size_t>(idx)];
        if (s < 0) continue;
        long long base = 0;
        for (std::size_t k = 0; k < n; ++k)
            if (static_cast<int>(k) != axis) base = base * mesh.sizes[k] + c[k];
        const long long gid = base * nsub + s;
        g.members[static_cast<std::size_t>(gid * gsize + where[static_cast<std::size_t>(idx)])] = r;
        g.group_index[static_cast<std::size_t>(r)] = static_cast<int>(gid);
    }
    normalize(g, mesh.world);
    return g;
}

void normalize(GroupSet& g, int world) {
    const int ng = g.num_groups();
    const auto gs = static_cast<std::size_t>(g.group_size);
    if (gs == 0) return;
    for (int i = 0; i < ng; ++i) {
        auto b = g.members.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * gs);
        if (!std::is_sorted(b, b + static_cast<std::ptrdiff_t>(gs))) std::sort(b, b + static_cast<std::ptrdiff_t>(gs));
    }
    bool sorted = true;
    for (int i = 1; i < ng && sorted; ++i)
        if (g.members[static_cast<std::size_t>(i) * gs] < g.members[static_cast<std::size_t>(i - 1) * gs])
            sorted = false;
    if (!sorted) {
        std::vector<int> order(static_cast<std::size_t>(ng));
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(), [&](int a, int b) {
            return g.members[static_cast<std::size_t>(a) * gs] < g.members[static_cast<std::size_t>(b) * gs];
        });
        std::vector<int> out(g.members.size());
        for (int i = 0; i < ng; ++i)
            std::copy_n(g.members.begin() + static_cast<std::ptrdiff_t>(
                                                static_cast<std::size_t>(order[static_cast<std::size_t>(i)]) * gs),
                        gs, out.begin() + static_cast<std::ptrdiff_t>(static_cast<std::size_t>(i) * gs));
        g.members.swap(out);
    }
    g.group_index.assign(static_cast<std::size_t>(world), -1);
    for (int i = 0; i < ng; ++i)
        for (std::size_t p = 0; p < gs; ++p) {
            const int r = g.members[static_cast<std::size_t>(i) * gs + p];
            if (r >= 0) g.group_index[static_cast<std::size_t>(r)] = i;
        }
}

void add_coords(RankMap& m, const Mesh& mesh, const std::vector<std::string>& names) {
    std::vector<int> take;   // axis indices to add
    for (std::size_t a = 0; a < names.size(); ++a) {
        if (names[a].empty()) continue;
        if (std::find(m.coord_names.begin(), m.coord_names.end(), names[a]) != m.coord_names.end()) continue;
        take.push_back(static_cast<int>(a));
    }
    if (take.empty()) return;
    const std::size_t old_n = m.coord_names.size();
    const std::size_t new_n = old_n + take.size();
    const std::size_t mn = mesh.sizes.size();
    std::vector<int> flat(static_cast<std::size_t>(mesh.world) * new_n);
    for (int r = 0; r < mesh.world; ++r) {
        const auto rr = static_cast<std::size_t>(r);
        for (std::size_t k = 0; k < old_n; ++k) flat[rr * new_n + k] = m.coords_flat[rr * old_n + k];
        for (std::size_t t = 0; t < take.size(); ++t)
            flat[rr * new_n + old_n + t] = mesh.coords[rr * mn + static_cast<std::size_t>(take[t])];
    }
    for (int a : take) m.coord_names.push_back(names[static_cast<std::size_t>(a)]);
    m.coords_flat.swap(flat);
}

std::vector<Axis> make_axes(const std::vector<std::string>& names, const std::vector<int>& sizes) {
    std::vector<Axis> out;
    for (std::size_t i = 0; i < names.size(); ++i) out.push_back({names[i], sizes[i], {}});
    return out;
}

Diagnostic make_diag(Severity s, std::string rule, std::string message, std::string framework_error,
                     std::vector<std::string> fields) {
    Diagnostic d;
    d.severity = s;
    d.rule = std::move(rule);
    d.message = std::move(message);
    d.framework_error = std::move(framework_error);
    d.fields = std::move(fields);
    return d;
}

}   // namespace paraplan::topology::detail
