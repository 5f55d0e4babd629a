#include "topofile/nccl_topo_xml.h"
#include "topofile/linked_set.h"

#include "topofile/topo_text.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>
#include <tuple>

namespace paraplan::topofile {

namespace {

bool xml_name_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == ':';
}

class Parser {
public:
    explicit Parser(std::string_view t) : text_(t) {}

    XmlDocument run() {
        if (text_.size() > kMaxXmlBytes)
            fail(1, "the file is " + std::to_string(text_.size()) + " bytes, more than " +
                        std::to_string(kMaxXmlBytes) + " (a topology dump is kilobytes)");
        while (true) {
            skip_ws();
            if (pos_ >= text_.size()) break;
            if (text_[pos_] != '<')
                fail(line_,
                     "text outside a tag ('" + printable(text_.substr(pos_, 16)) +
                         "'): NCCL's topology XML holds elements and attributes only",
                     column());
            if (starts("<!--")) {
                comment();
            } else if (starts("<?")) {
                if (!doc_.elements.empty()) fail(line_, "'<?' after the first element", column());
                const std::size_t end = text_.find("?>", pos_);
                if (end == std::string_view::npos) fail(line_, "'<?' without '?>'", column());
                advance_to(end + 2);
            } else if (starts("<!")) {
                fail(line_, "'<!' (DOCTYPE, CDATA) is not part of NCCL's topology XML", column());
            } else if (starts("</")) {
                close_tag();
            } else {
                open_tag();
            }
        }
        if (!stack_.empty()) {
            const auto& e = doc_.elements[static_cast<std::size_t>(stack_.back())];
            fail(line_, "<" + e.name + "> opened on line " + std::to_string(e.line) + " is never closed", column());
        }
        if (doc_.elements.empty()) fail(line_, "no element: not an NCCL topology XML");
        return std::move(doc_);
    }

private:
    bool starts(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
    int column() const { return static_cast<int>(pos_ - line_start_) + 1; }

    void advance_to(std::size_t to) {
        for (; pos_ < to && pos_ < text_.size(); ++pos_)
            if (text_[pos_] == '\n') {
                ++line_;
                line_start_ = pos_ + 1;
            }
    }
    void skip_ws() {
        while (pos_ < text_.size() &&
               (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
            advance_to(pos_ + 1);
    }
    void comment() {
        const int line = line_, col = column();
        const std::size_t end = text_.find("-->", pos_ + 4);
        if (end == std::string_view::npos) fail(line, "comment '<!--' is never closed", col);
        advance_to(end + 3);
    }
    std::string name(const char* what) {
        const std::size_t start = pos_;
        while (pos_ < text_.size() && xml_name_char(text_[pos_])) ++pos_;
        if (pos_ == start)
            fail(line_, std::string("expected ") + what + ", got '" + printable(text_.substr(pos_, 1)) + "'", column());
        if (pos_ - start > kMaxXmlString)
            fail(line_, std::string(what) + " longer than " + std::to_string(kMaxXmlString) + " characters",
                 static_cast<int>(start - line_start_) + 1);
        return std::string(text_.substr(start, pos_ - start));
    }
    void expect(char c, const char* context) {
        if (pos_ >= text_.size()) fail(line_, std::string("the file ends ") + context, column());
        if (text_[pos_] != c)
            fail(line_,
                 std::string("expected '") + c + "' " + context + ", got '" + printable(text_.substr(pos_, 1)) + "'",
                 column());
        advance_to(pos_ + 1);
    }

    void close_tag() {
        advance_to(pos_ + 2);
        const int line = line_, col = column();
        const std::string n = name("an element name after '</'");
        skip_ws();
        expect('>', "to end the closing tag");
        if (stack_.empty()) fail(line, "</" + n + "> closes no open element", col);
        const auto& open = doc_.elements[static_cast<std::size_t>(stack_.back())];
        if (open.name != n)
            fail(line,
                 "</" + n + "> does not close <" + open.name + "> (opened on line " + std::to_string(open.line) + ")",
                 col);
        stack_.pop_back();
    }

    void open_tag() {
        const int line = line_, col = column();
        advance_to(pos_ + 1);
        if (stack_.empty() && !doc_.elements.empty()) fail(line, "a second root element", col);
        if (doc_.elements.size() >= kMaxXmlElements)
            fail(line, "more than " + std::to_string(kMaxXmlElements) + " elements", col);
        if (stack_.size() >= kMaxXmlDepth) fail(line, "elements nest deeper than " + std::to_string(kMaxXmlDepth), col);
        XmlElement e;
        e.name = name("an element name after '<'");
        e.line = line;
        e.parent = stack_.empty() ? -1 : stack_.back();
        bool self_closing = false;
        while (true) {
            const std::size_t before = pos_;
            skip_ws();
            if (pos_ >= text_.size()) fail(line, "<" + e.name + "> is cut off: the file ends inside the tag", col);
            if (text_[pos_] == '/') {
                advance_to(pos_ + 1);
                expect('>', "after '/'");
                self_closing = true;
                break;
            }
            if (text_[pos_] == '>') {
                advance_to(pos_ + 1);
                break;
            }
            if (pos_ == before) fail(line_, "expected a space before an attribute", column());
            const int acol = column();
            std::string key = name("an attribute name");
            skip_ws();
            expect('=', "after an attribute name");
            skip_ws();
            if (pos_ >= text_.size() || (text_[pos_] != '"' && text_[pos_] != '\''))
                fail(line_, "attribute " + key + ": expected a quoted value", column());
            const char quote = text_[pos_];
            const std::size_t end = text_.find(quote, pos_ + 1);
            if (end == std::string_view::npos)
                fail(line_, "attribute " + key + ": the value is never closed", column());
            if (end - pos_ - 1 > kMaxXmlString)
                fail(line_, "attribute " + key + ": value longer than " + std::to_string(kMaxXmlString) + " characters",
                     column());
            std::string value(text_.substr(pos_ + 1, end - pos_ - 1));
            advance_to(end + 1);
            for (const auto& [k, v] : e.attrs)
                if (k == key) fail(line, "<" + e.name + "> gives attribute " + key + " twice", acol);
            if (e.attrs.size() >= kMaxXmlAttrs)
                fail(line, "<" + e.name + "> has more than " + std::to_string(kMaxXmlAttrs) + " attributes", acol);
            e.attrs.emplace_back(std::move(key), std::move(value));
        }
        const int index = static_cast<int>(doc_.elements.size());
        if (e.parent >= 0) doc_.elements[static_cast<std::size_t>(e.parent)].children.push_back(index);
        doc_.elements.push_back(std::move(e));
        if (!self_closing) stack_.push_back(index);
    }

    std::string_view text_;
    std::size_t pos_ = 0, line_start_ = 0;
    int line_ = 1;
    XmlDocument doc_;
    std::vector<int> stack_;
};

// An integer attribute as NCCL reads it (strtol base 0: decimal or 0x hex), within [lo, hi].
long long int_attr(const XmlElement& e, const char* key, long long lo, long long hi, long long def, bool required) {
    const std::string* v = e.attr(key);
    if (!v) {
        if (required) fail(e.line, "<" + e.name + "> has no " + key + " attribute");
        return def;
    }
    const std::string s(trim(*v));
    char* end = nullptr;
    errno = 0;
    const long long n = s.empty() ? 0 : std::strtoll(s.c_str(), &end, 0);
    if (s.empty() || errno || !end || *end != '\0')
        fail(e.line, "<" + e.name + "> " + key + "=\"" + printable(*v) + "\" is not an integer");
    if (n < lo || n > hi)
        fail(e.line,
             "<" + e.name + "> " + key + "=" + s + " is outside " + std::to_string(lo) + ".." + std::to_string(hi));
    return n;
}

// PCI class codes NCCL reads (src/graph/topo.cc kvDictPciClass at v2.30.7-1): 0x0604 bridges
// (PCIe switches), 0x0680 NVSwitch (xml.h PCI_NVSWITCH_CLASS), 0x0302 / 0x0300 GPUs.
bool class_is(const std::string* cls, std::string_view prefix) { return cls && cls->rfind(prefix, 0) == 0; }

// A GPU by its PCI device id, with its GPU catalog id: from the PCI ID Repository's NVIDIA list
// (pci-ids.ucw.cz, vendor 10de; checked against Debian 12's pci.ids 0.0~2023.04.11), except 0x2335,
// which that list predates: it is what the H200 of tests/data/topology/h200-1gpu-vm reports.
struct KnownDevice {
    const char* device;
    const char* name;
    const char* catalog;
};
constexpr KnownDevice kDevices[] = {
    {"0x20b0", "A100 SXM4 40GB", "a100-40g"}, {"0x20b2", "A100 SXM4 80GB", "a100-80g"},
    {"0x2330", "H100 SXM5 80GB", "h100-sxm"}, {"0x2331", "H100 PCIe", "h100-pcie"},
    {"0x2335", "H200 SXM 141GB", "h200"},     {"0x2684", "GeForce RTX 4090", "rtx4090"},
};

// NVLink generation and nominal per-link bandwidth each way for a compute capability, as the
// systems catalog takes them from NVIDIA's datasheets (resources/catalog/systems.json: DGX A100
// 12 x 25 GB/s, DGX H100 18 x 25 GB/s, DGX B200 18 x 50 GB/s). NCCL's own model uses lower
// effective figures per link (src/graph/topo.h SM80/SM90/SM100_NVLINK_BW at v2.30.7-1), which
// network/fabric.cpp applies when it prices a collective.
std::pair<std::string, double> nvlink_of(int sm) {
    if (sm >= 80 && sm < 86) return {"nvlink3", 25.0};
    if (sm >= 90 && sm < 100) return {"nvlink4", 25.0};
    if (sm >= 100 && sm < 104) return {"nvlink5", 50.0};
    return {"", 0.0};
}

struct Gpu {
    int element = 0;
    int host = 0;
    int sm = 0;
    std::string busid;          // of its <pci> parent
    std::vector<int> bridges;   // <pci> bridge ancestors (element indices)
    int switch_links = 0, gpu_links = 0;
    std::vector<std::string> peers;   // busids of NVLink peers
    std::string link_speed, link_width;
    std::string device;
};

struct Net {
    int host = 0;
    double gbit = 0;
    std::vector<int> bridges;
};

std::string host_key(const XmlDocument& d, int e, int& cpu_out) {
    cpu_out = -1;
    for (int p = d.elements[static_cast<std::size_t>(e)].parent; p >= 0;
         p = d.elements[static_cast<std::size_t>(p)].parent) {
        const auto& a = d.elements[static_cast<std::size_t>(p)];
        if (a.name == "cpu") {
            cpu_out = p;
            const std::string* h = a.attr("host_hash");
            return h ? *h : std::string();
        }
    }
    return {};
}

std::vector<int> bridges_of(const XmlDocument& d, int e) {
    std::vector<int> out;
    for (int p = d.elements[static_cast<std::size_t>(e)].parent; p >= 0;
         p = d.elements[static_cast<std::size_t>(p)].parent) {
        const auto& a = d.elements[static_cast<std::size_t>(p)];
        if (a.name == "pci" && class_is(a.attr("class"), "0x0604")) out.push_back(p);
    }
    return out;
}

// "32.0 GT/s PCIe" -> 32.
double gts_of(const std::string& s) {
    char* end = nullptr;
    const double v = std::strtod(s.c_str(), &end);
    return (end && end != s.c_str() && v > 0 && v < 1000) ? v : 0;
}

}   // namespace

const std::string* XmlElement::attr(std::string_view key) const {
    for (const auto& [k, v] : attrs)
        if (k == key) return &v;
    return nullptr;
}

XmlDocument parse_topo_xml(std::string_view text) { return Parser(text).run(); }

ImportedTopology read_nccl_topo_xml(std::string_view text) {
    const XmlDocument d = parse_topo_xml(text);
    const auto& root = d.elements.front();
    if (root.name != "system")
        fail(root.line, "the root element is <" + root.name + ">, expected <system> (NCCL's topology dump)");
    (void)int_attr(root, "version", 0, 1000, 1, false);

    std::map<std::string, int> hosts;   // host_hash -> index, in order of appearance
    auto host_index = [&](int e) {
        int cpu = -1;
        const std::string key = host_key(d, e, cpu);
        if (cpu < 0)
            fail(d.elements[static_cast<std::size_t>(e)].line,
                 "<" + d.elements[static_cast<std::size_t>(e)].name + "> outside any <cpu>");
        return hosts.emplace(key, static_cast<int>(hosts.size())).first->second;
    };

    std::vector<Gpu> gpus;
    std::vector<Net> nets;
    std::set<std::tuple<int, std::string, long long>> seen_gpus;   // host, busid, mlopart
    for (std::size_t i = 0; i < d.elements.size(); ++i) {
        const auto& e = d.elements[i];
        const int idx = static_cast<int>(i);
        if (e.name == "gpu") {
            Gpu g;
            g.element = idx;
            g.host = host_index(idx);
            g.sm = static_cast<int>(int_attr(e, "sm", 10, 1000, 0, true));
            const long long mlopart = int_attr(e, "mlopart", -1, 64, -1, false);
            if (e.parent >= 0) {
                const auto& pci = d.elements[static_cast<std::size_t>(e.parent)];
                if (pci.name == "pci") {
                    if (const auto* b = pci.attr("busid")) g.busid = *b;
                    if (const auto* s = pci.attr("link_speed")) g.link_speed = *s;
                    if (const auto* w = pci.attr("link_width")) g.link_width = *w;
                    if (const auto* dev = pci.attr("device")) g.device = *dev;
                }
            }
            // Several ranks on one GPU appear as sibling <gpu> elements (topo.cc
            // ncclTopoXmlIsPrimaryGpuForDev): one GPU unless mlopart splits it.
            if (!seen_gpus.emplace(g.host, g.busid.empty() ? std::to_string(idx) : g.busid, mlopart).second) continue;
            g.bridges = bridges_of(d, idx);
            for (int c : e.children) {
                const auto& l = d.elements[static_cast<std::size_t>(c)];
                if (l.name != "nvlink") continue;
                const int count = static_cast<int>(int_attr(l, "count", 0, 1024, 0, true));
                const std::string* tclass = l.attr("tclass");
                // xml.cc ncclTopoGetXmlFromGpu: a target NCCL cannot see is taken as an NVSwitch.
                if (!tclass || class_is(tclass, "0x0680")) {
                    g.switch_links += count;
                } else if (class_is(tclass, "0x0302") || class_is(tclass, "0x0300")) {
                    g.gpu_links += count;
                    if (const auto* t = l.attr("target")) g.peers.push_back(*t);
                }   // else a link to the CPU (POWER9): not GPU to GPU
            }
            gpus.push_back(std::move(g));
        } else if (e.name == "net") {
            Net n;
            n.host = host_index(idx);
            // topo.cc ncclTopoAddNet: speed in Mbit/s; 0 or negative is taken as 10000.
            long long mbps = int_attr(e, "speed", -1, 100000000, 0, false);
            if (mbps <= 0) mbps = 10000;
            n.gbit = static_cast<double>(mbps) / 1000.0;
            n.bridges = bridges_of(d, idx);
            nets.push_back(std::move(n));
        }
    }
    if (gpus.empty()) fail(root.line, "no <gpu> element: the dump shows no GPU");

    ImportedTopology t;
    t.format = Format::NcclXml;
    t.nodes.resize(hosts.size());
    for (std::size_t h = 0; h < hosts.size(); ++h) t.nodes[h].name = "host" + std::to_string(h);
    for (const auto& g : gpus) {
        ImportedNode& n = t.nodes[static_cast<std::size_t>(g.host)];
        if (n.gpus++ > 0) continue;
        n.gpu_arch = "sm" + std::to_string(g.sm);
        for (const auto& k : kDevices)
            if (g.device == k.device) {
                n.gpu_name = k.name;
                n.gpu_catalog = k.catalog;
            }
    }
    for (const auto& net : nets) ++t.nodes[static_cast<std::size_t>(net.host)].nics;
    // Hosts without GPUs (a CPU-only <cpu> of another host) are dropped.
    t.nodes.erase(std::remove_if(t.nodes.begin(), t.nodes.end(), [](const ImportedNode& n) { return n.gpus == 0; }),
                  t.nodes.end());
    const int host0 = gpus.front().host;
    std::vector<const Gpu*> g0;
    for (const auto& g : gpus)
        if (g.host == host0) g0.push_back(&g);
    std::size_t differ = 0;
    for (const auto& n : t.nodes)
        if (n.gpus != t.nodes.front().gpus || n.gpu_arch != t.nodes.front().gpu_arch) ++differ;
    if (differ)
        t.notes.push_back(std::to_string(differ) + " of " + std::to_string(t.nodes.size()) +
                          " hosts differ from the first in GPU count or arch; the tiers follow the first");

    // The scale-up domain of the first host.
    ScaleUp& up = t.scale_up;
    const int sm = g0.front()->sm;
    bool any_switch = false, any_link = false;
    for (const auto* g : g0) {
        any_switch = any_switch || g->switch_links > 0;
        any_link = any_link || g->switch_links + g->gpu_links > 0;
    }
    if (any_link) {
        up.kind = network::TierKind::NvLink;
        std::tie(up.generation, up.link_gbps) = nvlink_of(sm);
        if (up.generation.empty())
            t.notes.push_back("NVLink of sm" + std::to_string(sm) +
                              ": generation and per-link bandwidth not known to Paraplan");
        std::vector<const Gpu*> domain;
        if (any_switch) {
            up.nvswitch = true;
            for (const auto* g : g0)
                if (g->switch_links > 0) domain.push_back(g);
        } else {
            // Direct links: the largest set of GPUs joined by NVLink (peers named by bus id).
            std::map<std::string, std::size_t> by_bus;
            for (std::size_t i = 0; i < g0.size(); ++i) by_bus.emplace(g0[i]->busid, i);
            std::vector<std::vector<std::size_t>> links(g0.size());
            for (std::size_t i = 0; i < g0.size(); ++i)
                for (const auto& p : g0[i]->peers)
                    if (const auto it = by_bus.find(p); it != by_bus.end()) links[i].push_back(it->second);
            for (const std::size_t i : largest_linked_set(links)) domain.push_back(g0[i]);
        }
        up.domain_gpus = static_cast<int>(domain.size());
        up.links_per_gpu = 1 << 20;
        for (const auto* g : domain) up.links_per_gpu = std::min(up.links_per_gpu, g->switch_links + g->gpu_links);
        if (domain.size() < g0.size())
            t.notes.push_back(std::to_string(g0.size() - domain.size()) + " of the first host's " +
                              std::to_string(g0.size()) + " GPUs have no NVLink into the domain");
    } else {
        // No NVLink: the node's GPUs meet over PCIe. link_speed as NCCL writes it ("32.0 GT/s PCIe");
        // nominal bandwidth GT/s x lanes / 8, as the catalog's pcie4 = 32 GB/s.
        up.kind = network::TierKind::Pcie;
        up.domain_gpus = static_cast<int>(g0.size());
        up.links_per_gpu = 1;
        const double gts = gts_of(g0.front()->link_speed);
        const int width = std::atoi(g0.front()->link_width.c_str());
        if (gts >= 64) up.generation = "pcie6";
        else if (gts >= 32) up.generation = "pcie5";
        else if (gts >= 16) up.generation = "pcie4";
        else if (gts >= 8) up.generation = "pcie3";
        if (gts > 0) {
            up.link_gbps = gts * (width > 0 && width <= 32 ? width : 16) / 8.0;
            if (width <= 0 || width > 32)
                t.notes.push_back("PCIe link_width=\"" + printable(g0.front()->link_width) +
                                  "\" in the dump (a virtual machine hides it); x16 assumed");
        } else {
            t.notes.push_back("no PCIe link_speed for the GPU: PCIe bandwidth unknown");
        }
    }

    // NICs of the first host.
    ScaleOut& out = t.scale_out;
    for (const auto& n : nets)
        if (n.host == host0) {
            ++out.nics_per_node;
            out.nic_gbit = std::max(out.nic_gbit, n.gbit);
        }
    out.nics_per_gpu = static_cast<double>(out.nics_per_node) / static_cast<double>(g0.size());
    std::set<int> nic_bridges;   // PCIe switches with a NIC of host0 below them
    for (const auto& n : nets)
        if (n.host == host0) nic_bridges.insert(n.bridges.begin(), n.bridges.end());
    for (const auto* g : g0)
        if (std::any_of(g->bridges.begin(), g->bridges.end(), [&](int b) { return nic_bridges.count(b) > 0; }))
            ++out.gpus_with_local_nic;
    if (out.nics_per_node == 0) t.notes.push_back("no <net> element: the dump shows no NIC");
    return t;
}

}   // namespace paraplan::topofile
