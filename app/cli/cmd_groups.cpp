// paraplan-cli groups: the rank map and process groups a framework builds.
#include "cli/command.h"
#include "project/framework.h"
#include "project/layout.h"
#include "project/limits.h"
#include "project/project.h"
#include "topology/build_rank_map.h"

#include <algorithm>
#include <iomanip>
#include <iostream>

namespace paraplan::cli {
namespace {

using topology::MeshRequest;
using topology::RankMap;

const std::vector<std::string> kOptions = {"project",    "framework",
                                           "world",      "gpus-per-node",
                                           "tp",         "pp",
                                           "sp",         "sp-mode",
                                           "cp",         "ep",
                                           "etp",        "dp",
                                           "dp-shard",   "dp-replicate",
                                           "extra-dp",   "order",
                                           "dp-outside", "inner-ring-size",
                                           "tp-mode",    "tp-depth"};

void print_table(const RankMap& m) {
    std::cout << m.framework << ", world " << m.world_size << ", " << m.num_nodes << " node"
              << (m.num_nodes == 1 ? "" : "s") << "\nmesh (outer -> inner):";
    for (const auto& a : m.axes) std::cout << ' ' << a.name << '=' << a.size;
    if (!m.expert_axes.empty()) {
        std::cout << "\nexpert mesh:";
        for (const auto& a : m.expert_axes) std::cout << ' ' << a.name << '=' << a.size;
    }
    std::cout << "\n\n  rank  node  local";
    for (const auto& n : m.coord_names) std::cout << std::setw(std::max<int>(6, static_cast<int>(n.size()) + 1)) << n;
    std::cout << '\n';
    const int shown = std::min(m.world_size, 256);
    for (int r = 0; r < shown; ++r) {
        const auto& s = m.placement[static_cast<std::size_t>(r)];
        std::cout << std::setw(6) << r << std::setw(6) << s.node << std::setw(7) << s.local_rank;
        const auto c = m.coords(r);
        for (std::size_t i = 0; i < m.coord_names.size(); ++i)
            std::cout << std::setw(std::max<int>(6, static_cast<int>(m.coord_names[i].size()) + 1)) << c[i];
        std::cout << '\n';
    }
    if (shown < m.world_size) std::cout << "  ... " << (m.world_size - shown) << " more ranks (use --json)\n";
    std::cout << "\ngroup kind          size  groups  crossing nodes  max nodes  first groups\n";
    for (const auto& s : m.summaries()) {
        std::cout << "  " << std::left << std::setw(18) << s.kind << std::right << std::setw(4) << s.group_size
                  << std::setw(8) << s.num_groups << std::setw(16) << s.groups_crossing_nodes << std::setw(11)
                  << s.max_nodes_spanned << "  ";
        const auto* gs = m.group_set(s.kind);
        for (int g = 0; g < std::min(gs->num_groups(), 4); ++g) {
            std::cout << '[';
            const auto grp = gs->group(g);
            for (std::size_t i = 0; i < grp.size() && i < 8; ++i) std::cout << (i ? "," : "") << grp[i];
            if (grp.size() > 8) std::cout << ",...";
            std::cout << ']';
        }
        if (gs->num_groups() > 4) std::cout << " ...";
        std::cout << '\n';
    }
    for (const auto& d : m.diagnostics)
        std::cout << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
}

int run_groups(const Args& a) {
    for (const auto& [key, value] : a.options)
        if (std::find(kOptions.begin(), kOptions.end(), key) == kOptions.end())
            throw UsageError("unknown option --" + key + " (see paraplan-cli groups --help)");
    MeshRequest req;
    Project project;
    const bool has_project = a.has("project");
    if (has_project) {
        project = load_project(*a.get("project"));
        req = topology::from_project(project);
    }
    req.framework = a.get("framework", req.framework);
    if (!find_traits(req.framework)) throw UsageError("--framework: unknown framework '" + req.framework + "'");
    if (!has_project && !a.has("world")) throw UsageError("--world N (or --project FILE) is required");
    req.world = a.get_int("world", req.world, 1, kMaxWorldSize);
    req.gpus_per_node = a.get_int("gpus-per-node", req.gpus_per_node, 1, kMaxGpusPerNode);
    req.tp = a.get_int("tp", req.tp);
    req.pp = a.get_int("pp", req.pp);
    req.sp = a.get_int("sp", req.sp);
    req.sp_mode = a.get_enum("sp-mode", req.sp_mode);
    req.cp = a.get_int("cp", req.cp);
    req.ep = a.get_int("ep", req.ep);
    req.etp = a.get_int("etp", req.etp);
    req.dp = a.get_int("dp", req.dp);
    req.dp_shard = a.get_int("dp-shard", req.dp_shard);
    req.dp_replicate = a.get_int("dp-replicate", req.dp_replicate);
    req.extra_dp = a.get_int("extra-dp", req.extra_dp);
    req.order = a.get("order", req.order);
    req.dp_outside = a.get_bool("dp-outside", req.dp_outside);
    req.inner_ring_size = a.get_int("inner-ring-size", req.inner_ring_size);
    req.tp_mode = a.get_enum("tp-mode", req.tp_mode);
    req.tp_depth = a.get_int("tp-depth", req.tp_depth);
    // The project's cluster places the ranks unless the flags change its shape.
    const bool use_cluster = has_project && !a.has("world") && !a.has("gpus-per-node");
    const RankMap m = topology::build_rank_map(req, use_cluster ? &project.cluster : nullptr);
    if (a.flag("json")) {
        print_json(topology::to_json(m).dump(m.world_size > 4096 ? -1 : 2));
    } else if (m.valid()) {
        print_table(m);
    } else {
        for (const auto& d : m.diagnostics) {
            std::cout << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
            if (!d.framework_error.empty()) std::cout << "    framework says: " << d.framework_error << '\n';
        }
    }
    return m.valid() ? kOk : kFindings;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "groups",
    .summary = "show which rank gets which coordinates and process groups",
    .synopsis = {"[--project FILE] --framework F --world N [options] [--json]"},
    .description = "Computes the mesh and every process group the framework builds, and where each\n"
                   "rank runs. With --project the project's cluster and layout are the defaults and\n"
                   "flags override them. Exit 0 for a valid layout, 1 for an impossible one\n"
                   "({\"valid\": false, \"diagnostics\": [...]}), 2 for bad usage.\n",
    .options = {{"project", "FILE", "the project whose cluster and layout are the defaults"},
                {"framework", "F",
                 "colossalai colossalai-moe colossalai-gemini colossalai-zero\n"
                 "megatron torchtitan deepspeed devicemesh"},
                {"world", "N", "number of ranks"},
                {"gpus-per-node", "G", "uniform nodes of G GPUs (default 8, or the project's cluster)"},
                {"tp", "N", "tensor-parallel size"},
                {"pp", "N", "pipeline-parallel size"},
                {"sp", "N", "sequence-parallel size"},
                {"cp", "N", "context-parallel size"},
                {"ep", "N", "expert-parallel size"},
                {"etp", "N", "expert tensor-parallel size (0 = same as tp)"},
                {"sp-mode", "M", "none split_gather ring all_to_all ring_attn (ColossalAI)"},
                {"dp", "N", "expected data parallel size (0 = derive)"},
                {"dp-shard", "N", "torchtitan dp_shard degree (-1 = infer)"},
                {"dp-replicate", "N", "torchtitan dp_replicate degree"},
                {"extra-dp", "N", "ColossalAI Gemini / LowLevelZero extra_dp_size"},
                {"order", "STR", "Megatron order (tp-cp-ep-dp-pp) or DeviceMesh dims (pp-dp-cp-tp)"},
                {"dp-outside", "BOOL", "ColossalAI dp_outside / moe_dp_outside (default true)"},
                {"inner-ring-size", "N", "ColossalAI ring_attn double ring"},
                {"tp-mode", "M", "ColossalAI legacy tensor mode: 1d 2d 2.5d 3d"},
                {"tp-depth", "D", "ColossalAI legacy 2.5d tensor depth"},
                {"json", "", "print {framework, world_size, axes, ranks, groups, group_spans}"}},
    .run = run_groups});

}   // namespace paraplan::cli
