#include "topofile/imported_topology.h"

#include "topofile/nccl_topo_xml.h"
#include "topofile/smi_topo_matrix.h"
#include "topofile/topo_text.h"

#include <algorithm>
#include <cctype>

namespace paraplan::topofile {

namespace {

std::string lower(std::string_view s) {
    std::string o(s);
    for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return o;
}

// A tier name by the level of a Slurm switch tree.
std::string level_name(int level) {
    if (level == 0) return "leaf";
    if (level == 1) return "spine";
    if (level == 2) return "core";
    return "level" + std::to_string(level);
}

network::Tier switch_tier(std::string name, int gpus) {
    network::Tier t;
    t.name = std::move(name);
    t.kind = network::TierKind::Switch;
    t.gpus = gpus;
    t.oversubscription = 1;
    return t;
}

}   // namespace

const char* format_name(Format f) {
    switch (f) {
    case Format::NcclXml: return "nccl-xml";
    case Format::SmiTopo: return "smi-topo";
    case Format::SlurmTopology: return "slurm-topology";
    }
    return "?";
}

std::optional<Format> format_from_name(std::string_view name) {
    for (auto f : {Format::NcclXml, Format::SmiTopo, Format::SlurmTopology})
        if (name == format_name(f)) return f;
    return std::nullopt;
}

std::optional<Format> guess_format(std::string_view text) {
    std::size_t start = 0;
    for (int n = 0; n < 1000 && start < text.size(); ++n) {
        std::size_t nl = text.find('\n', start);
        if (nl == std::string_view::npos) nl = text.size();
        std::string_view l = trim(text.substr(start, nl - start));
        start = nl + 1;
        // nvidia-smi underlines its header with ANSI escapes: skip them at the start.
        while (l.size() >= 2 && l[0] == '\x1b' && l[1] == '[') {
            std::size_t k = 2;
            while (k < l.size() && !std::isalpha(static_cast<unsigned char>(l[k]))) ++k;
            l = trim(l.substr(std::min(k + 1, l.size())));
        }
        if (l.empty() || l.front() == '#') continue;
        if (l.front() == '<') return Format::NcclXml;
        const auto toks = split_ws(l);
        if (!toks.empty() && toks.front() == "GPU0") return Format::SmiTopo;
        const std::string key = lower(l.substr(0, l.find('=')));
        if (l.find('=') != std::string_view::npos && (key == "switchname" || key == "blockname" || key == "blocksizes"))
            return Format::SlurmTopology;
        return std::nullopt;
    }
    return std::nullopt;
}

int ImportedTopology::gpus_per_node() const { return nodes.empty() ? 0 : nodes.front().gpus; }

ImportedTopology import_topology(std::string_view text, std::optional<Format> format) {
    if (!format) format = guess_format(text);
    if (!format)
        fail(1,
             "cannot tell the format: expected NCCL's topology XML (<system>), nvidia-smi topo -m (GPU0 ...) or a "
             "Slurm topology.conf (SwitchName=/BlockName=)");
    switch (*format) {
    case Format::NcclXml: return read_nccl_topo_xml(text);
    case Format::SmiTopo: return read_smi_topo_matrix(text);
    case Format::SlurmTopology: return from_slurm(read_slurm_topology_conf(text));
    }
    fail(1, "unknown format");
}

ImportedTopology from_slurm(SlurmTopology s) {
    ImportedTopology t;
    t.format = Format::SlurmTopology;
    for (auto& n : s.all_nodes()) {
        ImportedNode node;
        node.name = std::move(n);
        t.nodes.push_back(std::move(node));
    }
    t.notes.push_back("topology.conf names nodes only: GPUs, NVLink and NICs per node are not in it");
    if (s.plugin == SlurmTopology::Plugin::Tree) {
        bool speeds = false;
        for (const auto& sw : s.switches) speeds = speeds || sw.link_speed > 0;
        if (speeds) t.notes.push_back("LinkSpeed is in arbitrary units (topology.conf(5)): not used as a bandwidth");
    }
    t.slurm = std::move(s);
    return t;
}

network::Tier scale_up_tier(const ScaleUp& up) {
    network::Tier u;
    u.kind = up.kind;
    u.name = up.kind == network::TierKind::NvLink ? "nvlink" : "pcie";
    u.generation = up.generation;
    u.domain_gpus = up.domain_gpus;
    u.links_per_gpu = up.links_per_gpu;
    u.link_gbps = up.link_gbps;
    return u;
}

network::Tier scale_out_tier(const ScaleOut& out) {
    network::Tier o;
    o.name = "network";
    o.kind = network::TierKind::ScaleOut;
    o.nics_per_gpu = out.nics_per_gpu;
    o.nic_gbit = out.nic_gbit;
    o.rails = out.nics_per_node;   // one rail per NIC of a node, as the systems catalog counts them
    return o;
}

std::vector<network::Tier> to_tiers(const ImportedTopology& t, const TierHints& hints) {
    std::vector<network::Tier> tiers;
    if (t.scale_up.domain_gpus > 0) tiers.push_back(scale_up_tier(t.scale_up));
    if (t.scale_out.nics_per_node > 0) tiers.push_back(scale_out_tier(t.scale_out));
    const int gpn = hints.gpus_per_node > 0 ? hints.gpus_per_node : t.gpus_per_node();
    if (!t.slurm || gpn <= 0) return tiers;
    const SlurmTopology& s = *t.slurm;
    const std::size_t all = s.all_nodes().size();
    if (s.plugin == SlurmTopology::Plugin::Tree) {
        const auto levels = s.switch_levels();
        const auto under = s.nodes_under();
        const int top = levels.empty() ? -1 : *std::max_element(levels.begin(), levels.end());
        for (int l = 0; l <= top; ++l) {
            std::size_t most = 0, count = 0;
            for (std::size_t i = 0; i < s.switches.size(); ++i)
                if (levels[i] == l) {
                    most = std::max(most, under[i]);
                    ++count;
                }
            // One switch at the top joining every node is the whole fabric (gpus 0).
            const bool whole = l == top && count == 1 && most == all;
            tiers.push_back(switch_tier(level_name(l), whole ? 0 : static_cast<int>(most) * gpn));
        }
    } else {
        const int base = s.base_block_nodes();
        tiers.push_back(switch_tier("block", base * gpn));
        for (std::size_t i = 1; i < s.block_sizes.size(); ++i)
            if (s.block_sizes[i] > base)
                tiers.push_back(switch_tier("block" + std::to_string(s.block_sizes[i]), s.block_sizes[i] * gpn));
    }
    return tiers;
}

nlohmann::json to_json(const ImportedTopology& t) {
    nlohmann::json nodes = nlohmann::json::array();
    for (const auto& n : t.nodes) {
        nlohmann::json j{{"name", n.name}, {"gpus", n.gpus}, {"nics", n.nics}};
        if (!n.gpu_arch.empty()) j["gpu_arch"] = n.gpu_arch;
        if (!n.gpu_name.empty()) j["gpu_name"] = n.gpu_name;
        if (!n.gpu_catalog.empty()) j["gpu_catalog"] = n.gpu_catalog;
        nodes.push_back(std::move(j));
    }
    nlohmann::json j{{"format", format_name(t.format)},
                     {"nodes", nodes},
                     {"scale_up",
                      {{"kind", network::tier_kind_name(t.scale_up.kind)},
                       {"generation", t.scale_up.generation},
                       {"domain_gpus", t.scale_up.domain_gpus},
                       {"links_per_gpu", t.scale_up.links_per_gpu},
                       {"link_gbps", t.scale_up.link_gbps},
                       {"nvswitch", t.scale_up.nvswitch}}},
                     {"scale_out",
                      {{"nics_per_node", t.scale_out.nics_per_node},
                       {"nics_per_gpu", t.scale_out.nics_per_gpu},
                       {"nic_gbit", t.scale_out.nic_gbit},
                       {"gpus_with_local_nic", t.scale_out.gpus_with_local_nic}}},
                     {"notes", t.notes}};
    if (t.slurm) {
        const SlurmTopology& s = *t.slurm;
        nlohmann::json sl{{"plugin", s.plugin == SlurmTopology::Plugin::Tree ? "tree" : "block"}};
        if (s.plugin == SlurmTopology::Plugin::Tree) {
            const auto levels = s.switch_levels();
            const auto under = s.nodes_under();
            nlohmann::json sw = nlohmann::json::array();
            for (std::size_t i = 0; i < s.switches.size(); ++i) {
                const auto& x = s.switches[i];
                nlohmann::json e{{"name", x.name}, {"level", levels[i]}, {"nodes_under", under[i]}};
                if (!x.switches.empty()) e["switches"] = compress_hostlist(x.switches);
                if (!x.nodes.empty()) e["nodes"] = compress_hostlist(x.nodes);
                if (x.link_speed > 0) e["link_speed"] = x.link_speed;
                sw.push_back(std::move(e));
            }
            sl["switches"] = std::move(sw);
        } else {
            nlohmann::json bl = nlohmann::json::array();
            for (const auto& b : s.blocks)
                bl.push_back({{"name", b.name}, {"nodes", compress_hostlist(b.nodes)}, {"node_count", b.nodes.size()}});
            sl["blocks"] = std::move(bl);
            sl["block_sizes"] = s.block_sizes;
            sl["base_block_nodes"] = s.base_block_nodes();
        }
        j["slurm"] = std::move(sl);
    }
    return j;
}

}   // namespace paraplan::topofile
