#include "topofile/smi_topo_matrix.h"
#include "topofile/linked_set.h"

#include "topofile/topo_text.h"

#include <algorithm>
#include <cctype>

namespace paraplan::topofile {

namespace {

// Drops ANSI escape sequences (ESC '[' params letter), as nvidia-smi underlines the header.
std::string strip_ansi(std::string_view l) {
    std::string o;
    o.reserve(l.size());
    for (std::size_t i = 0; i < l.size(); ++i) {
        if (l[i] == '\x1b') {
            if (i + 1 < l.size() && l[i + 1] == '[') {
                i += 2;
                while (i < l.size() && !std::isalpha(static_cast<unsigned char>(l[i]))) ++i;
            }
            continue;
        }
        o += l[i];
    }
    return o;
}

bool digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool device_name(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
    });
}

// The header's trailing labels are words, not devices: "CPU Affinity", "NUMA Affinity",
// "GPU NUMA ID".
bool label_word(std::string_view s) { return s == "CPU" || s == "NUMA" || s == "GPU" || s == "Affinity"; }

bool parse_cell(std::string_view s, SmiCell& c) {
    if (s == "X") c.link = SmiLink::Self;
    else if (s == "SYS" || s == "SOC") c.link = SmiLink::Sys;
    else if (s == "NODE") c.link = SmiLink::Node;
    else if (s == "PHB") c.link = SmiLink::Phb;
    else if (s == "PXB") c.link = SmiLink::Pxb;
    else if (s == "PIX") c.link = SmiLink::Pix;
    else if (s.size() > 2 && s.size() <= 6 && s.substr(0, 2) == "NV" && digits(s.substr(2))) {
        c.link = SmiLink::NvLink;
        c.nvlinks = std::stoi(std::string(s.substr(2)));
        if (c.nvlinks < 1 || c.nvlinks > 1024) return false;
    } else {
        return false;
    }
    return true;
}

// 1-based column of token `tok` (a view into `line`).
int column_of(const std::string& line, std::string_view tok) { return static_cast<int>(tok.data() - line.data()) + 1; }

}   // namespace

bool SmiMatrix::is_gpu(std::size_t i) const {
    return i < devices.size() && devices[i].size() > 3 && devices[i].substr(0, 3) == "GPU" &&
           digits(std::string_view(devices[i]).substr(3));
}

SmiMatrix parse_smi_topo(std::string_view text) {
    const auto raw = split_lines(text, kMaxSmiLines, kMaxSmiLineChars);
    SmiMatrix m;
    std::size_t li = 0;
    // The header: the first line whose first word is GPU0.
    std::vector<std::string> lines;
    lines.reserve(raw.size());
    for (auto l : raw) lines.push_back(strip_ansi(l));
    for (; li < lines.size(); ++li) {
        const auto toks = split_ws(lines[li]);
        if (toks.empty()) continue;
        if (toks.front() != "GPU0")
            fail(static_cast<int>(li) + 1, "expected the matrix header starting with GPU0, got '" +
                                               printable(trim(lines[li])) + "' (not nvidia-smi topo -m output)");
        for (const auto& t : toks) {
            if (label_word(t)) break;
            if (!device_name(t))
                fail(static_cast<int>(li) + 1, "'" + printable(t) + "' is not a device name", column_of(lines[li], t));
            if (m.devices.size() >= kMaxSmiDevices)
                fail(static_cast<int>(li) + 1, "more than " + std::to_string(kMaxSmiDevices) + " devices");
            if (std::find(m.devices.begin(), m.devices.end(), t) != m.devices.end())
                fail(static_cast<int>(li) + 1, "device " + std::string(t) + " appears twice in the header",
                     column_of(lines[li], t));
            m.devices.emplace_back(t);
        }
        ++li;
        break;
    }
    if (m.devices.empty())
        fail(static_cast<int>(lines.size()) + 1, "no matrix header (GPU0 ...): not nvidia-smi topo -m output");
    const std::size_t n = m.devices.size();
    // One row per device, in the header's order.
    for (std::size_t r = 0; r < n; ++li) {
        if (li >= lines.size())
            fail(static_cast<int>(li),
                 "the matrix ends after " + std::to_string(r) + " of " + std::to_string(n) + " rows");
        const auto toks = split_ws(lines[li]);
        const int line = static_cast<int>(li) + 1;
        if (toks.empty()) continue;
        if (toks.front() != m.devices[r])
            fail(line, "expected the row of " + m.devices[r] + ", got '" + printable(toks.front()) + "'",
                 column_of(lines[li], toks.front()));
        if (toks.size() < n + 1)
            fail(line, "row " + m.devices[r] + " has " + std::to_string(toks.size() - 1) + " cells, expected " +
                           std::to_string(n));
        std::vector<SmiCell> row(n);
        for (std::size_t c = 0; c < n; ++c) {
            const auto tok = toks[c + 1];
            if (!parse_cell(tok, row[c]))
                fail(line, "'" + printable(tok) + "' is not in the legend (X, SYS, NODE, PHB, PXB, PIX, NV#)",
                     column_of(lines[li], tok));
            if ((row[c].link == SmiLink::Self) != (c == r))
                fail(line, c == r ? "the diagonal must be X" : "X off the diagonal", column_of(lines[li], tok));
        }
        m.cells.push_back(std::move(row));
        m.cpu_affinity.push_back(toks.size() > n + 1 ? std::string(toks[n + 1]) : std::string());
        ++r;
    }
    // The NIC Legend: "  NIC0: mlx5_0".
    m.nic_names.assign(n, "");
    for (; li < lines.size(); ++li) {
        const auto toks = split_ws(lines[li]);
        if (toks.size() != 2 || toks[0].size() < 2 || toks[0].back() != ':') continue;
        const std::string dev(toks[0].substr(0, toks[0].size() - 1));
        const auto it = std::find(m.devices.begin(), m.devices.end(), dev);
        if (it != m.devices.end() && device_name(toks[1]))
            m.nic_names[static_cast<std::size_t>(it - m.devices.begin())] = std::string(toks[1]);
    }
    return m;
}

ImportedTopology read_smi_topo_matrix(std::string_view text) {
    const SmiMatrix m = parse_smi_topo(text);
    ImportedTopology t;
    t.format = Format::SmiTopo;
    std::vector<std::size_t> gpus, nics;
    for (std::size_t i = 0; i < m.devices.size(); ++i) (m.is_gpu(i) ? gpus : nics).push_back(i);
    if (gpus.empty()) fail(1, "the matrix names no GPU");
    ImportedNode node;
    node.name = "node0";
    node.gpus = static_cast<int>(gpus.size());
    node.nics = static_cast<int>(nics.size());
    t.nodes.push_back(node);

    // NVLink: with NVSwitches every pair shows the GPU's whole link count (NV18 on a DGX H100), so
    // the per-pair counts add up to more than one GPU has (18 at most through NVLink5); with
    // direct links (DGX-1's hybrid cube mesh: NV1 / NV2) they add up to the GPU's links.
    constexpr int kMaxLinksPerGpu = 18;
    std::vector<int> sum(gpus.size(), 0), widest(gpus.size(), 0);
    for (std::size_t a = 0; a < gpus.size(); ++a)
        for (std::size_t b = 0; b < gpus.size(); ++b) {
            const auto& c = m.cells[gpus[a]][gpus[b]];
            if (c.link != SmiLink::NvLink) continue;
            sum[a] += c.nvlinks;
            widest[a] = std::max(widest[a], c.nvlinks);
        }
    // The largest set of GPUs joined by NVLink.
    std::vector<std::vector<std::size_t>> links(gpus.size());
    for (std::size_t a = 0; a < gpus.size(); ++a)
        for (std::size_t b = 0; b < gpus.size(); ++b)
            if (m.cells[gpus[a]][gpus[b]].link == SmiLink::NvLink) links[a].push_back(b);
    const std::vector<std::size_t> best = largest_linked_set(links);
    ScaleUp& up = t.scale_up;
    if (best.size() > 1) {
        up.kind = network::TierKind::NvLink;
        up.domain_gpus = static_cast<int>(best.size());
        bool switched = false;
        for (auto k : best) switched = switched || sum[k] > kMaxLinksPerGpu;
        up.nvswitch = switched;
        up.links_per_gpu = 1 << 20;
        for (auto k : best) up.links_per_gpu = std::min(up.links_per_gpu, switched ? widest[k] : sum[k]);
        t.notes.push_back("nvidia-smi topo -m gives no NVLink generation or speed: per-link bandwidth unknown");
        if (best.size() < gpus.size())
            t.notes.push_back(std::to_string(gpus.size() - best.size()) + " of " + std::to_string(gpus.size()) +
                              " GPUs are outside the largest NVLink domain");
    } else {
        up.kind = network::TierKind::Pcie;
        up.domain_gpus = static_cast<int>(gpus.size());
        up.links_per_gpu = 1;
        t.notes.push_back("no NVLink: the GPUs meet over PCIe, whose generation and width the matrix does not give");
    }

    ScaleOut& out = t.scale_out;
    out.nics_per_node = static_cast<int>(nics.size());
    out.nics_per_gpu = static_cast<double>(nics.size()) / static_cast<double>(gpus.size());
    for (auto g : gpus)
        for (auto nic : nics) {
            const auto l = m.cells[g][nic].link;
            if (l == SmiLink::Pix || l == SmiLink::Pxb) {
                ++out.gpus_with_local_nic;
                break;
            }
        }
    if (!nics.empty()) t.notes.push_back("nvidia-smi topo -m gives no NIC speed");
    return t;
}

}   // namespace paraplan::topofile
