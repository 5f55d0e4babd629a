// torch.distributed.device_mesh.init_device_mesh(shape, mesh_dim_names): the mesh is
// arange(world).view(shape), row-major, so the last dim varies fastest. Dim order
// comes from MeshRequest::order, outer -> inner ("pp-dp-cp-tp", "dp,tp",
// "dp_replicate-dp_shard:4-tp"); a dim's size is written after ':' or '=' or taken
// from the request's field of that name; one dim may be inferred (dp by default).
// Source: torch/distributed/device_mesh.py init_device_mesh (PyTorch v2.4); docs/topology.md.
#include "topology/group_checks.h"
#include "topology/mesh_builder.h"

#include <algorithm>
#include <cctype>

namespace paraplan::topology::detail {
namespace {

// The request's size for a dim name; 0 when the name is unknown, -1 to infer.
int size_for(const MeshRequest& r, const std::string& name) {
    if (name == "tp") return r.tp;
    if (name == "pp") return r.pp;
    if (name == "sp") return r.sp;
    if (name == "cp") return r.cp;
    if (name == "ep") return r.ep;
    if (name == "etp") return r.etp > 0 ? r.etp : r.tp;
    if (name == "dp_replicate") return r.dp_replicate;
    if (name == "dp_shard") return r.dp_shard > 0 ? r.dp_shard : -1;
    if (name == "dp") return r.dp > 0 ? r.dp : -1;
    return 0;
}

}   // namespace

void build_devicemesh(const MeshRequest& r, RankMap& m) {
    DeviceMeshDims dims = devicemesh_dims(r);
    if (dims.finding) {
        m.diagnostics.push_back(std::move(*dims.finding));
        return;
    }
    const std::vector<std::string>& names = dims.names;
    const std::vector<int>& sizes = dims.sizes;
    const Mesh mesh = make_mesh(sizes);
    m.axes = make_axes(names, sizes);
    add_coords(m, mesh, names);
    for (std::size_t i = 0; i < names.size(); ++i) m.groups[names[i]] = groups_along(mesh, {static_cast<int>(i)});
}

}   // namespace paraplan::topology::detail

namespace paraplan::topology {

DeviceMeshDims devicemesh_dims(const MeshRequest& r) {
    DeviceMeshDims out;
    const int W = r.world;
    // Paraplan's default: pp outermost, tp innermost, a separate sp axis beside cp where sp > 1.
    const std::string order = !r.order.empty() ? r.order
                              : r.sp > 1       ? std::string("pp-dp-sp-cp-tp")
                                               : std::string("pp-dp-cp-tp");
    std::vector<std::string> names;
    std::vector<int> sizes;
    std::string tok;
    auto flush = [&]() -> bool {
        if (tok.empty()) {
            out.finding = (detail::make_diag(Severity::Error, "devicemesh.dim_names_valid",
                                             "mesh dim order '" + order + "' has an empty dim name", "",
                                             {"/layout/order"}));
            return false;
        }
        std::string name = tok;
        int size = 0;
        const std::size_t sep = tok.find_first_of(":=");
        if (sep != std::string::npos) {
            name = tok.substr(0, sep);
            const std::string num = tok.substr(sep + 1);
            const bool digits = !num.empty() &&
                                (std::all_of(num.begin(), num.end(), [](unsigned char c) { return std::isdigit(c); }) ||
                                 num == "-1");
            if (!digits || num.size() > 9) {
                out.finding = (detail::make_diag(Severity::Error, "devicemesh.dim_names_valid",
                                                 "dim '" + tok + "': the size after '" + tok[sep] + "' is not a number",
                                                 "", {"/layout/order"}));
                return false;
            }
            size = std::stoi(num);
        } else {
            size = detail::size_for(r, name);
        }
        if (size == 0 || size < -1) {
            out.finding = (detail::make_diag(Severity::Error, "devicemesh.dim_size_known",
                                             "dim '" + name + "' has no size: write it as " + name + ":N", "",
                                             {"/layout/order"}));
            return false;
        }
        if (std::find(names.begin(), names.end(), name) != names.end()) {
            out.finding = (detail::make_diag(Severity::Error, "devicemesh.unique_dim_names",
                                             "mesh dim '" + name + "' appears twice in '" + order + "'",
                                             "Each mesh_dim_name must be unique.", {"/layout/order"}));
            return false;
        }
        names.push_back(name);
        sizes.push_back(size);
        tok.clear();
        return true;
    };
    for (char c : order) {
        if (c == '-' || c == ',' || c == ' ') {
            if (!flush()) return out;
        } else {
            tok += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        }
    }
    if (!flush()) return out;

    long long known = 1;
    int infer = -1;
    for (std::size_t i = 0; i < sizes.size(); ++i) {
        if (sizes[i] == -1) {
            if (infer >= 0) {
                out.finding = (detail::make_diag(Severity::Error, "devicemesh.dim_size_known",
                                                 "more than one mesh dim is left to infer ('" +
                                                     names[static_cast<std::size_t>(infer)] + "', '" + names[i] + "')",
                                                 "", {"/layout/order"}));
                return out;
            }
            infer = static_cast<int>(i);
        } else {
            known = std::min(known * sizes[i], 1LL << 40);
        }
    }
    // The dims' product against the world: the sizes that set it, and the order where one is written.
    std::vector<std::string> fields{"/layout/tp", "/layout/pp", "/layout/sp", "/layout/cp"};
    if (!r.order.empty()) fields.push_back("/layout/order");
    std::string product;
    for (std::size_t i = 0; i < names.size(); ++i)
        if (static_cast<int>(i) != infer) product += (product.empty() ? "" : " × ") + names[i];
    if (infer >= 0) {
        if (known > W || W % known != 0) {
            out.finding = detail::make_diag(Severity::Error, "devicemesh.world_divisible",
                                            "The mesh " + product + " = " + std::to_string(known) +
                                                " does not divide the world size " + std::to_string(W) + " (" +
                                                names[static_cast<std::size_t>(infer)] + " is inferred).",
                                            "RuntimeError: mesh shape product != world size", fields);
            return out;
        }
        sizes[static_cast<std::size_t>(infer)] = static_cast<int>(W / known);
        known = W;
    }
    if (known != W) {
        out.finding = detail::make_diag(
            Severity::Error, "devicemesh.world_divisible",
            "The mesh " + product + " = " + std::to_string(known) + " is not the world size " + std::to_string(W) + ".",
            known > W ? "RuntimeError: Mesh should not be bigger than default world size " + std::to_string(W) +
                            ", but found " + std::to_string(known) + " ranks!"
                      : std::string("RuntimeError: mesh shape product != world size"),
            fields);
        return out;
    }
    out.names = std::move(names);
    out.sizes = std::move(sizes);
    return out;
}

}   // namespace paraplan::topology
