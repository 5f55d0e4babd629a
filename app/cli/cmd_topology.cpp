// paraplan-cli topology import FILE: a real topology file (NCCL's topology dump, nvidia-smi
// topo -m, Slurm's topology.conf) read into what Paraplan knows of a cluster and its network tiers.
#include "cli/command.h"
#include "network/system.h"
#include "project/project.h"
#include "topofile/cluster_topology.h"
#include "topofile/imported_topology.h"
#include "util/input_error.h"
#include "util/read_file.h"

#include <cstdio>

namespace paraplan::cli {
namespace {

std::string tier_line(const network::Tier& t) {
    char buf[256];
    if (t.scale_up())
        std::snprintf(buf, sizeof buf, "%-8s %s %d GPUs, %d link(s) x %.4g GB/s%s", t.name.c_str(),
                      t.generation.empty() ? "?" : t.generation.c_str(), t.domain_gpus, t.links_per_gpu, t.link_gbps,
                      t.link_gbps > 0 ? "" : " (unknown)");
    else if (t.kind == network::TierKind::ScaleOut)
        std::snprintf(buf, sizeof buf, "%-8s %.4g NIC(s) per GPU at %.4g Gbit/s%s, %d rail(s)", t.name.c_str(),
                      t.nics_per_gpu, t.nic_gbit, t.nic_gbit > 0 ? "" : " (unknown)", t.rails);
    else
        std::snprintf(buf, sizeof buf, "%-8s switch joining %s", t.name.c_str(),
                      t.gpus > 0 ? (std::to_string(t.gpus) + " GPUs").c_str() : "the whole fabric");
    return buf;
}

// --project IN -o OUT: the file's network into the project's cluster (topofile/cluster_topology.h),
// written as a new project file; nothing else of the project changes.
int load_into_project(const Args& a, const std::string& file, const topofile::ImportedTopology& t) {
    const std::string in = *a.get("project");
    const auto out = a.get("o");
    if (!out) throw UsageError("--project needs -o OUT, the project file to write");
    if (a.has("job-nodes") || a.has("gpus-per-node"))
        throw UsageError(
            "--project takes the nodes and their GPUs from the project: drop --job-nodes, "
            "--group-nodes and --gpus-per-node");
    Project p = load_project(in);
    topofile::ClusterImport r;
    try {
        r = topofile::import_into_cluster(p.cluster, t);
    } catch (const InputError& e) {
        // The refusal names the project field; the file is what did not fit it.
        throw InputError(e.pointer(), file + " does not fit the project: " + e.message(), 0, 0, in);
    }
    p.cluster = std::move(r.cluster);
    save_project(p, *out);
    if (a.flag("json")) {
        network::System sys;
        sys.tiers = p.cluster.network.tiers;
        print_json(nlohmann::json{
            {"file", file},
            {"format", topofile::format_name(t.format)},
            {"project", in},
            {"written_to", *out},
            {"tiers", network::to_json(sys)["tiers"]},
            {"slurm_topology", p.cluster.network.slurm_topology.has_value()},
            {"notes",
             r.notes}}.dump(2));
        return kOk;
    }
    std::printf("%s: %s into %s\n", file.c_str(), topofile::format_name(t.format), in.c_str());
    std::printf("tiers (GPU outwards):\n");
    for (const auto& tier : p.cluster.network.tiers) std::printf("  %s\n", tier_line(tier).c_str());
    if (p.cluster.network.slurm_topology) std::printf("cluster.network.slurm_topology: set from the file\n");
    for (const auto& n : r.notes) std::printf("note: %s\n", n.c_str());
    std::fprintf(stderr, "wrote %s\n", out->c_str());
    return kOk;
}

int run_import(const Args& a) {
    const std::string file = a.positional_at(1, "FILE");
    std::optional<topofile::Format> format;
    if (a.has("format")) {
        format = topofile::format_from_name(*a.get("format"));
        if (!format) throw UsageError("--format must be nccl-xml, smi-topo or slurm-topology");
    }
    const int gpn = a.get_int("gpus-per-node", 0);
    if (gpn < 0 || gpn > 4096) throw UsageError("--gpus-per-node must be 1..4096");
    const bool want_placement = a.has("job-nodes") || a.has("group-nodes");
    const int job_nodes = a.get_int("job-nodes", 0), group_nodes = a.get_int("group-nodes", 0);
    if (want_placement && (job_nodes <= 0 || group_nodes <= 0))
        throw UsageError("--job-nodes N and --group-nodes G go together, both positive");

    const std::string text = read_input_file(file, "topology file");
    topofile::ImportedTopology t;
    try {
        t = topofile::import_topology(text, format);
    } catch (const InputError& e) {
        throw InputError(e.pointer(), e.message(), e.line(), e.column(), file);
    }
    if (want_placement && !t.slurm) throw UsageError("--job-nodes/--group-nodes need a Slurm topology.conf");
    if (a.has("project")) return load_into_project(a, file, t);
    const auto tiers = topofile::to_tiers(t, {gpn});
    std::vector<std::string> notes = t.notes;
    if (t.slurm && t.gpus_per_node() == 0 && gpn == 0)
        notes.push_back("no switch tiers without GPUs per node: give --gpus-per-node N");
    topofile::Placement placement;
    if (want_placement) placement = topofile::placement_options(*t.slurm, job_nodes, group_nodes);

    if (a.flag("json")) {
        network::System sys;
        sys.tiers = tiers;
        nlohmann::json out{{"file", file},
                           {"format", topofile::format_name(t.format)},
                           {"imported", topofile::to_json(t)},
                           {"tiers", network::to_json(sys)["tiers"]},
                           {"notes", notes}};
        if (want_placement)
            out["placement"] = {{"job_nodes", job_nodes},
                                {"group_nodes", group_nodes},
                                {"ok", placement.ok},
                                {"sbatch_args", placement.sbatch_args},
                                {"guaranteed", placement.guaranteed},
                                {"reason", placement.reason}};
        print_json(out.dump(2));
        return want_placement && !placement.ok ? kFindings : kOk;
    }
    std::printf("%s: %s\n", file.c_str(), topofile::format_name(t.format));
    int gpus = 0;
    for (const auto& n : t.nodes) gpus += n.gpus;
    std::printf("nodes: %zu", t.nodes.size());
    if (gpus > 0) std::printf(", %d GPU(s)", gpus);
    if (!t.nodes.empty() && !t.nodes.front().gpu_arch.empty())
        std::printf(" (%s%s%s)", t.nodes.front().gpu_arch.c_str(), t.nodes.front().gpu_name.empty() ? "" : ", ",
                    t.nodes.front().gpu_name.c_str());
    std::printf("\n");
    if (t.slurm) {
        if (t.slurm->plugin == topofile::SlurmTopology::Plugin::Tree)
            std::printf("topology/tree: %zu switches, %zu leaves\n", t.slurm->switches.size(),
                        t.slurm->leaves().size());
        else
            std::printf("topology/block: %zu blocks, base block %d nodes\n", t.slurm->blocks.size(),
                        t.slurm->base_block_nodes());
    }
    std::printf("tiers (GPU outwards):\n");
    if (tiers.empty()) std::printf("  (none)\n");
    for (const auto& tier : tiers) std::printf("  %s\n", tier_line(tier).c_str());
    for (const auto& n : notes) std::printf("note: %s\n", n.c_str());
    if (want_placement) {
        if (placement.ok) {
            std::string args;
            for (const auto& s : placement.sbatch_args) args += (args.empty() ? "" : " ") + s;
            std::printf("sbatch %s%s\n", args.c_str(), placement.guaranteed ? "" : " (bounds the job, not each group)");
        } else {
            std::printf("no placement: %s\n", placement.reason.c_str());
        }
        if (placement.ok && !placement.reason.empty()) std::printf("note: %s\n", placement.reason.c_str());
        return placement.ok ? kOk : kFindings;
    }
    return kOk;
}

int run_topology(const Args& a) {
    const std::string what = a.positional_at(0, "what to do (import)");
    if (what == "import") return run_import(a);
    throw UsageError("unknown topology action '" + what + "' (expected import)");
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "topology",
    .summary = "read a real topology file (NCCL topology XML, nvidia-smi topo -m, Slurm topology.conf) into network "
               "tiers",
    .synopsis = {"import FILE [--format F] [--gpus-per-node N]\n"
                 "       [--job-nodes N --group-nodes G] [--json]",
                 "import FILE [--format F] --project IN -o OUT [--json]"},
    .description = "  FILE  the file NCCL wrote to NCCL_TOPO_DUMP_FILE, the output of `nvidia-smi topo -m`,\n"
                   "        or a Slurm topology.conf (topology/tree or topology/block)\n\n"
                   "A figure the file does not give (NVLink speed in topo -m, NIC speed, latencies) stays 0 and\n"
                   "a note says so. Errors name the file, line and column.\n",
    .options = {{"format", "F", "nccl-xml, smi-topo or slurm-topology (default: guessed from the content)"},
                {"gpus-per-node", "N",
                 "GPUs of each node, for the switch tiers of a topology.conf (which names\n"
                 "nodes only)"},
                {"job-nodes", "N",
                 "with --group-nodes, topology.conf only: the sbatch option that keeps each group\n"
                 "of G nodes of an N-node job inside one leaf switch (sbatch's switches option, tree)\n"
                 "or one block (its segment option, block); exit 1 when no option can"},
                {"group-nodes", "G", "see --job-nodes"},
                {"project", "IN",
                 "with -o: load the file into project IN and write it to OUT: the file's tiers\n"
                 "replace those it describes in cluster.network.tiers (NVLink/PCIe and\n"
                 "NICs from NCCL's dump or topo -m; switch tiers and\n"
                 "cluster.network.slurm_topology from a topology.conf), nothing else\n"
                 "changes; refused (exit 2) when the file does not fit the cluster\n"
                 "(GPU count or type, fewer Slurm nodes than the cluster has)"},
                {"o", "OUT", "with --project: the project file to write", true},
                {"json", "",
                 "{\"file\", \"format\", \"imported\": {format, nodes, scale_up, scale_out,\n"
                 "slurm?, notes}, \"tiers\": [as in catalog systems], \"notes\",\n"
                 "\"placement\"?: {job_nodes, group_nodes, ok, sbatch_args, guaranteed,\n"
                 "reason}}; with --project: {\"file\", \"format\", \"project\",\n"
                 "\"written_to\", \"tiers\", \"slurm_topology\": bool, \"notes\"}"}},
    .run = run_topology});

}   // namespace paraplan::cli
