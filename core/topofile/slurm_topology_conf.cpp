#include "topofile/slurm_topology_conf.h"

#include "topofile/topo_text.h"
#include "util/input_error.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

namespace paraplan::topofile {

namespace {

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-'; }

void check_name(const std::string& n, int line, const char* what) {
    if (n.empty()) fail(line, std::string("an empty ") + what + " name");
    if (n.size() > kMaxSlurmNameChars)
        fail(line, std::string(what) + " name '" + n.substr(0, 32) + "...' is longer than " +
                       std::to_string(kMaxSlurmNameChars) + " characters");
    for (char c : n)
        if (!name_char(c))
            fail(line,
                 std::string(what) + " name '" + printable(n) + "' may hold only letters, digits, '.', '_' and '-'");
}

// One bracket of a hostlist: "0-3,12,18-20" as (value, width) ranges, Slurm's rule for the width:
// the low bound's digit count ("[08-10]" is 08 09 10, "[8-10]" is 8 9 10).
struct Range {
    unsigned long long lo = 0, hi = 0;
    std::size_t width = 0;
};

unsigned long long parse_digits(std::string_view s, int line, std::string_view expr) {
    if (s.empty() || s.size() > 18 || !std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; }))
        fail(line, "'" + printable(expr) + "': a range bound must be 1 to 18 digits, got '" + printable(s) + "'");
    unsigned long long v = 0;
    for (char c : s) v = v * 10 + static_cast<unsigned long long>(c - '0');
    return v;
}

std::vector<Range> parse_ranges(std::string_view body, int line, std::string_view expr) {
    std::vector<Range> out;
    std::size_t start = 0;
    while (start <= body.size()) {
        std::size_t comma = body.find(',', start);
        if (comma == std::string_view::npos) comma = body.size();
        const std::string_view item = body.substr(start, comma - start);
        const std::size_t dash = item.find('-');
        Range r;
        const std::string_view lo = dash == std::string_view::npos ? item : item.substr(0, dash);
        r.lo = parse_digits(lo, line, expr);
        r.width = lo.size();
        r.hi = dash == std::string_view::npos ? r.lo : parse_digits(item.substr(dash + 1), line, expr);
        if (r.hi < r.lo) fail(line, "'" + printable(expr) + "': range " + printable(item) + " runs backwards");
        out.push_back(r);
        start = comma + 1;
    }
    return out;
}

std::string pad(unsigned long long v, std::size_t width) {
    std::string s = std::to_string(v);
    if (s.size() < width) s.insert(0, width - s.size(), '0');
    return s;
}

// One comma-free item of an expression: literal parts and bracket ranges, expanded as their
// product ("r[1-2]n[1-2]" is r1n1 r1n2 r2n1 r2n2).
void expand_item(std::string_view item, int line, std::string_view expr, std::vector<std::string>& out) {
    std::vector<std::string> acc{""};
    std::size_t i = 0;
    while (i < item.size()) {
        const std::size_t open = item.find('[', i);
        const std::string_view lit = item.substr(i, open == std::string_view::npos ? item.size() - i : open - i);
        if (lit.find(']') != std::string_view::npos) fail(line, "'" + printable(expr) + "': ']' without '['");
        for (auto& a : acc) a += lit;
        if (open == std::string_view::npos) break;
        const std::size_t close = item.find(']', open);
        if (close == std::string_view::npos) fail(line, "'" + printable(expr) + "': '[' without ']'");
        const auto ranges = parse_ranges(item.substr(open + 1, close - open - 1), line, expr);
        unsigned long long count = 0;
        for (const auto& r : ranges) {
            count += r.hi - r.lo + 1;
            if (count > kMaxSlurmNames) break;
        }
        if (count > kMaxSlurmNames || acc.size() * count + out.size() > kMaxSlurmNames)
            fail(line, "'" + printable(expr.substr(0, 64)) + "' names more than " + std::to_string(kMaxSlurmNames) +
                           " hosts");
        std::vector<std::string> next;
        next.reserve(acc.size() * count);
        for (const auto& a : acc)
            for (const auto& r : ranges)
                for (unsigned long long v = r.lo;; ++v) {
                    next.push_back(a + pad(v, r.width));
                    if (v == r.hi) break;
                }
        acc = std::move(next);
        i = close + 1;
    }
    for (auto& a : acc) out.push_back(std::move(a));
}

// The trailing digits of a name: ("node", "07") for "node07"; digits empty if none.
std::pair<std::string_view, std::string_view> split_number(std::string_view n) {
    std::size_t k = n.size();
    while (k > 0 && n[k - 1] >= '0' && n[k - 1] <= '9') --k;
    return {n.substr(0, k), n.substr(k)};
}

struct Line {
    int number = 0;
    std::vector<std::pair<std::string, std::string>> kv;   // key lower-cased
};

std::string lower(std::string_view s) {
    std::string o(s);
    for (auto& c : o) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return o;
}

std::vector<Line> tokenize(std::string_view text) {
    std::vector<Line> out;
    const auto lines = split_lines(text, kMaxSlurmLines, kMaxSlurmLineChars);
    std::string joined;
    int joined_from = 0;
    for (std::size_t li = 0; li < lines.size(); ++li) {
        std::string_view l = lines[li];
        if (const auto hash = l.find('#'); hash != std::string_view::npos) l = l.substr(0, hash);
        if (joined.empty()) joined_from = static_cast<int>(li) + 1;
        // A backslash at the end of a line continues it on the next (Slurm's config parser).
        const std::string_view trimmed = trim(l);
        if (!trimmed.empty() && trimmed.back() == '\\' && li + 1 < lines.size()) {
            joined.append(trimmed.substr(0, trimmed.size() - 1));
            joined += ' ';
            if (joined.size() > kMaxSlurmLineChars) fail(joined_from, "continued line is too long");
            continue;
        }
        joined.append(l);
        Line line;
        line.number = joined_from;
        for (const auto& tok : split_ws(joined)) {
            const auto eq = tok.find('=');
            if (eq == std::string_view::npos || eq == 0)
                fail(line.number, "expected Key=Value, got '" + printable(tok.substr(0, 64)) + "'");
            std::string_view v = tok.substr(eq + 1);
            if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
            line.kv.emplace_back(lower(tok.substr(0, eq)), std::string(v));
        }
        joined.clear();
        if (!line.kv.empty()) out.push_back(std::move(line));
    }
    return out;
}

long long parse_count(const std::string& v, int line, const char* key, long long max) {
    if (v.empty() || v.size() > 12 || !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; }))
        fail(line, std::string(key) + " must be a non-negative integer, got '" + printable(v.substr(0, 32)) + "'");
    const long long n = std::stoll(v);
    if (n > max) fail(line, std::string(key) + "=" + v + " is more than " + std::to_string(max));
    return n;
}

void add_names(std::vector<std::string>& to, const std::string& expr, int line, std::size_t& total, const char* what) {
    auto names = expand_hostlist(expr, line);
    total += names.size();
    if (total > kMaxSlurmNames)
        fail(line, "the file names more than " + std::to_string(kMaxSlurmNames) + " nodes and switches");
    for (const auto& n : names) check_name(n, line, what);
    to.insert(to.end(), names.begin(), names.end());
}

void check_tree(const SlurmTopology& t, const std::vector<int>& lines) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < t.switches.size(); ++i) {
        const auto [it, fresh] = index.emplace(t.switches[i].name, i);
        if (!fresh)
            fail(lines[i], "switch " + t.switches[i].name + " is defined twice (first on line " +
                               std::to_string(lines[it->second]) + ")");
    }
    for (std::size_t i = 0; i < t.switches.size(); ++i)
        for (const auto& c : t.switches[i].switches)
            if (!index.count(c))
                fail(lines[i],
                     "switch " + t.switches[i].name + " has child switch " + c + ", which no SwitchName line defines");
    // Every switch reaches leaves without a cycle (switch_record.c: "Switch configuration is not a
    // tree"); an iterative depth-first walk, colours 0 new, 1 on the path, 2 done.
    std::vector<int> colour(t.switches.size(), 0);
    for (std::size_t root = 0; root < t.switches.size(); ++root) {
        if (colour[root]) continue;
        std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
        colour[root] = 1;
        while (!stack.empty()) {
            auto& [s, next] = stack.back();
            if (next < t.switches[s].switches.size()) {
                const std::size_t c = index.at(t.switches[s].switches[next++]);
                if (colour[c] == 1)
                    fail(lines[s],
                         "the switches are not a tree: " + t.switches[s].name + " leads back to " + t.switches[c].name);
                if (colour[c] == 0) {
                    colour[c] = 1;
                    stack.emplace_back(c, 0);
                }
            } else {
                colour[s] = 2;
                stack.pop_back();
            }
        }
    }
}

void check_blocks(const SlurmTopology& t, const std::vector<int>& lines, int sizes_line) {
    std::map<std::string, std::size_t> names, node_block;
    for (std::size_t i = 0; i < t.blocks.size(); ++i) {
        const auto [it, fresh] = names.emplace(t.blocks[i].name, i);
        if (!fresh)
            fail(lines[i], "block " + t.blocks[i].name + " is defined twice (first on line " +
                               std::to_string(lines[it->second]) + ")");
        for (const auto& n : t.blocks[i].nodes) {
            const auto [nit, nfresh] = node_block.emplace(n, i);
            if (!nfresh)
                fail(lines[i], "node " + n + " is in block " + t.blocks[nit->second].name + " and " + t.blocks[i].name);
        }
    }
    // BlockSizes (block_record.c): the first is the base block's node count; each must be that
    // times a power of two, at most 2^15.
    if (!t.block_sizes.empty()) {
        const int base = t.block_sizes.front();
        for (int s : t.block_sizes) {
            if (s <= 0 || s % base)
                fail(sizes_line, "BlockSizes: " + std::to_string(s) + " is not a multiple of the base block size " +
                                     std::to_string(base));
            const int ratio = s / base;
            if ((ratio & (ratio - 1)) != 0 || ratio > (1 << 15))
                fail(sizes_line, "BlockSizes: " + std::to_string(s) + " is not the base size " + std::to_string(base) +
                                     " times a power of two (at most 2^15)");
        }
    }
    if (t.base_block_nodes() <= 0)
        fail(sizes_line ? sizes_line : (lines.empty() ? 1 : lines.front()),
             "the blocks hold no nodes and BlockSizes is not set");
}

}   // namespace

std::vector<std::string> expand_hostlist(std::string_view expr, int line) {
    std::vector<std::string> out;
    if (expr.size() > kMaxSlurmLineChars) fail(line, "hostlist expression is too long");
    std::size_t start = 0, depth = 0;
    for (std::size_t i = 0; i <= expr.size(); ++i) {
        if (i < expr.size()) {
            if (expr[i] == '[') {
                if (++depth > 1) fail(line, "'" + printable(expr.substr(0, 64)) + "': nested '['");
            } else if (expr[i] == ']') {
                if (depth == 0) fail(line, "'" + printable(expr.substr(0, 64)) + "': ']' without '['");
                --depth;
            }
        }
        if (i == expr.size() || (expr[i] == ',' && depth == 0)) {
            const auto item = expr.substr(start, i - start);
            if (!item.empty()) expand_item(item, line, expr, out);
            start = i + 1;
        }
    }
    if (depth) fail(line, "'" + printable(expr.substr(0, 64)) + "': '[' without ']'");
    return out;
}

std::string compress_hostlist(const std::vector<std::string>& names) {
    std::string out;
    std::size_t i = 0;
    while (i < names.size()) {
        const auto [prefix, digits] = split_number(names[i]);
        // The run of names with this prefix and a number, split into ranges that read back as
        // the same strings.
        std::size_t j = i;
        std::vector<std::pair<std::string, std::string>> ranges;   // lo, hi digit strings
        while (j < names.size()) {
            const auto [p, d] = split_number(names[j]);
            if (p != prefix || d.empty() || d.size() > 18) break;
            const unsigned long long v = std::stoull(std::string(d));
            if (!ranges.empty()) {
                const auto& last = ranges.back();
                const unsigned long long hi = std::stoull(last.second);
                if (v == hi + 1 && pad(v, last.first.size()) == d) {
                    ranges.back().second = std::string(d);
                    ++j;
                    continue;
                }
            }
            ranges.emplace_back(std::string(d), std::string(d));
            ++j;
        }
        if (!out.empty()) out += ',';
        if (j - i < 2) {
            out += names[i];
            i += 1;
            continue;
        }
        out += std::string(prefix) + '[';
        for (std::size_t r = 0; r < ranges.size(); ++r) {
            if (r) out += ',';
            out += ranges[r].first;
            if (ranges[r].second != ranges[r].first) out += '-' + ranges[r].second;
        }
        out += ']';
        i = j;
    }
    return out;
}

std::vector<const SlurmSwitch*> SlurmTopology::leaves() const {
    std::vector<const SlurmSwitch*> out;
    for (const auto& s : switches)
        if (!s.nodes.empty()) out.push_back(&s);
    return out;
}

int SlurmTopology::base_block_nodes() const {
    if (!block_sizes.empty()) return block_sizes.front();
    for (const auto& b : blocks)
        if (!b.nodes.empty()) return static_cast<int>(b.nodes.size());
    return 0;
}

namespace {

// Children before parents (an iterative depth-first post-order), each switch once; child names
// that no line defines are skipped (the reader refuses them; a struct built by hand may hold them).
std::vector<std::size_t> children_first(const std::vector<SlurmSwitch>& switches,
                                        std::vector<std::vector<std::size_t>>& kids) {
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < switches.size(); ++i) index.emplace(switches[i].name, i);
    kids.assign(switches.size(), {});
    for (std::size_t i = 0; i < switches.size(); ++i)
        for (const auto& c : switches[i].switches)
            if (const auto it = index.find(c); it != index.end()) kids[i].push_back(it->second);
    std::vector<std::size_t> order;
    std::vector<int> state(switches.size(), 0);
    for (std::size_t root = 0; root < switches.size(); ++root) {
        if (state[root]) continue;
        std::vector<std::pair<std::size_t, std::size_t>> stack{{root, 0}};
        state[root] = 1;
        while (!stack.empty()) {
            auto& [s, next] = stack.back();
            if (next < kids[s].size()) {
                const std::size_t c = kids[s][next++];
                if (state[c] == 0) {
                    state[c] = 1;
                    stack.emplace_back(c, 0);
                }
            } else {
                order.push_back(s);
                stack.pop_back();
            }
        }
    }
    return order;
}

}   // namespace

std::vector<int> SlurmTopology::switch_levels() const {
    std::vector<std::vector<std::size_t>> kids;
    std::vector<int> level(switches.size(), 0);
    for (auto s : children_first(switches, kids))
        for (auto c : kids[s]) level[s] = std::max(level[s], level[c] + 1);
    return level;
}

std::vector<std::size_t> SlurmTopology::nodes_under() const {
    std::vector<std::vector<std::size_t>> kids;
    std::vector<std::vector<std::size_t>> leaves_below(switches.size());
    std::vector<std::size_t> out(switches.size(), 0);
    for (auto s : children_first(switches, kids)) {
        auto& mine = leaves_below[s];
        if (!switches[s].nodes.empty()) mine.push_back(s);
        for (auto c : kids[s]) mine.insert(mine.end(), leaves_below[c].begin(), leaves_below[c].end());
        std::sort(mine.begin(), mine.end());
        mine.erase(std::unique(mine.begin(), mine.end()), mine.end());
        for (auto l : mine) out[s] += switches[l].nodes.size();
    }
    return out;
}

std::vector<std::string> SlurmTopology::all_nodes() const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    auto add = [&](const std::vector<std::string>& v) {
        for (const auto& n : v)
            if (seen.insert(n).second) out.push_back(n);
    };
    for (const auto& s : switches) add(s.nodes);
    for (const auto& b : blocks) add(b.nodes);
    return out;
}

SlurmTopology read_slurm_topology_conf(std::string_view text) {
    SlurmTopology t;
    std::vector<int> switch_lines, block_lines;
    int sizes_line = 0, first_tree = 0, first_block = 0;
    std::size_t total = 0;
    for (const auto& line : tokenize(text)) {
        const std::string& key = line.kv.front().first;
        const std::string& value = line.kv.front().second;
        if (key == "switchname") {
            if (!first_tree) first_tree = line.number;
            if (t.switches.size() >= kMaxSlurmSwitches)
                fail(line.number, "more than " + std::to_string(kMaxSlurmSwitches) + " switches");
            SlurmSwitch s;
            s.name = value;
            check_name(s.name, line.number, "switch");
            bool has_switches = false, has_nodes = false, has_speed = false;
            for (std::size_t k = 1; k < line.kv.size(); ++k) {
                const auto& [kk, v] = line.kv[k];
                if (kk == "switches" && !has_switches) {
                    has_switches = true;
                    add_names(s.switches, v, line.number, total, "switch");
                } else if (kk == "nodes" && !has_nodes) {
                    has_nodes = true;
                    add_names(s.nodes, v, line.number, total, "node");
                } else if (kk == "linkspeed" && !has_speed) {
                    has_speed = true;
                    s.link_speed = parse_count(v, line.number, "LinkSpeed", 4294967295LL);
                } else if (kk == "switches" || kk == "nodes" || kk == "linkspeed") {
                    fail(line.number, "switch " + s.name + " gives " + kk + " twice");
                } else {
                    fail(line.number, "unknown key '" + printable(kk) +
                                          "' on a SwitchName line (expected Switches, Nodes or LinkSpeed)");
                }
            }
            // switch_record.c rejects this: "switch %s has both child switches and nodes".
            if (has_switches && has_nodes) fail(line.number, "switch " + s.name + " has both child switches and nodes");
            t.switches.push_back(std::move(s));
            switch_lines.push_back(line.number);
        } else if (key == "blockname") {
            if (!first_block) first_block = line.number;
            if (t.blocks.size() >= kMaxSlurmSwitches)
                fail(line.number, "more than " + std::to_string(kMaxSlurmSwitches) + " blocks");
            SlurmBlock b;
            b.name = value;
            check_name(b.name, line.number, "block");
            for (std::size_t k = 1; k < line.kv.size(); ++k) {
                const auto& [kk, v] = line.kv[k];
                if (kk != "nodes" || !b.nodes.empty())
                    fail(line.number, "unexpected key '" + printable(kk) + "' on a BlockName line (expected Nodes)");
                add_names(b.nodes, v, line.number, total, "node");
            }
            t.blocks.push_back(std::move(b));
            block_lines.push_back(line.number);
        } else if (key == "blocksizes") {
            if (!first_block) first_block = line.number;
            if (sizes_line)
                fail(line.number, "BlockSizes is given twice (first on line " + std::to_string(sizes_line) + ")");
            if (line.kv.size() > 1) fail(line.number, "BlockSizes takes no other key on its line");
            sizes_line = line.number;
            std::size_t start = 0;
            while (start <= value.size()) {
                std::size_t comma = value.find(',', start);
                if (comma == std::string::npos) comma = value.size();
                const auto n = parse_count(value.substr(start, comma - start), line.number, "BlockSizes", 1 << 30);
                if (n <= 0) fail(line.number, "BlockSizes values must be positive");
                if (t.block_sizes.size() >= 16) fail(line.number, "BlockSizes has more than 16 values");
                t.block_sizes.push_back(static_cast<int>(n));
                start = comma + 1;
            }
        } else {
            fail(line.number, "unknown key '" + printable(line.kv.front().first) +
                                  "' (a topology.conf line starts with SwitchName, BlockName or BlockSizes)");
        }
        if (first_tree && first_block)
            fail(std::max(first_tree, first_block), "SwitchName (topology/tree, line " + std::to_string(first_tree) +
                                                        ") and BlockName/BlockSizes (topology/block, line " +
                                                        std::to_string(first_block) + ") lines in one file");
    }
    if (first_tree) {
        t.plugin = SlurmTopology::Plugin::Tree;
        check_tree(t, switch_lines);
    } else if (first_block) {
        t.plugin = SlurmTopology::Plugin::Block;
        check_blocks(t, block_lines, sizes_line);
    } else {
        fail(1, "no SwitchName, BlockName or BlockSizes line: not a Slurm topology.conf");
    }
    return t;
}

std::string write_slurm_topology_conf(const SlurmTopology& t) {
    std::string out = t.plugin == SlurmTopology::Plugin::Tree ? "# topology.conf for TopologyPlugin=topology/tree\n"
                                                              : "# topology.conf for TopologyPlugin=topology/block\n";
    if (t.plugin == SlurmTopology::Plugin::Tree) {
        for (const auto& s : t.switches) {
            out += "SwitchName=" + s.name;
            if (!s.switches.empty()) out += " Switches=" + compress_hostlist(s.switches);
            if (!s.nodes.empty()) out += " Nodes=" + compress_hostlist(s.nodes);
            if (s.link_speed > 0) out += " LinkSpeed=" + std::to_string(s.link_speed);
            out += '\n';
        }
    } else {
        for (const auto& b : t.blocks) {
            out += "BlockName=" + b.name;
            if (!b.nodes.empty()) out += " Nodes=" + compress_hostlist(b.nodes);
            out += '\n';
        }
        if (!t.block_sizes.empty()) {
            out += "BlockSizes=";
            for (std::size_t i = 0; i < t.block_sizes.size(); ++i)
                out += (i ? "," : "") + std::to_string(t.block_sizes[i]);
            out += '\n';
        }
    }
    return out;
}

Placement placement_options(const SlurmTopology& t, int job_nodes, int group_nodes) {
    Placement p;
    if (job_nodes <= 0 || group_nodes <= 0) {
        p.reason = "the job and the group need at least one node each";
        return p;
    }
    // sbatch(1) --segment: "The requested node count must always be evenly divisible by the
    // requested segment size"; for a tree, a job of whole groups is what keeping groups whole means.
    if (job_nodes % group_nodes) {
        p.reason = "a job of " + std::to_string(job_nodes) + " nodes is not a whole number of groups of " +
                   std::to_string(group_nodes);
        return p;
    }
    if (t.plugin == SlurmTopology::Plugin::Block) {
        const int base = t.base_block_nodes();
        int largest = base;
        for (int s : t.block_sizes) largest = std::max(largest, s);
        if (group_nodes > largest) {
            p.reason = "a group of " + std::to_string(group_nodes) + " nodes is larger than the largest block (" +
                       std::to_string(largest) + " nodes)";
            return p;
        }
        p.ok = true;
        p.sbatch_args = {"--segment=" + std::to_string(group_nodes)};
        // eval_nodes_block.c places each segment as a job of segment_size nodes in the smallest
        // block level that holds it: one base block when it fits in one.
        p.guaranteed = true;
        if (group_nodes > base)
            p.reason = "each segment of " + std::to_string(group_nodes) +
                       " nodes spans base blocks of one aggregated block (base blocks hold " + std::to_string(base) +
                       " nodes)";
        return p;
    }
    std::vector<std::size_t> groups_per_leaf;
    std::size_t largest = 0;
    for (const auto* leaf : t.leaves()) {
        largest = std::max(largest, leaf->nodes.size());
        groups_per_leaf.push_back(leaf->nodes.size() / static_cast<std::size_t>(group_nodes));
    }
    if (largest < static_cast<std::size_t>(group_nodes)) {
        p.reason = "a group of " + std::to_string(group_nodes) + " nodes is larger than the largest leaf switch (" +
                   std::to_string(largest) + " nodes)";
        return p;
    }
    std::sort(groups_per_leaf.rbegin(), groups_per_leaf.rend());
    const std::size_t groups = static_cast<std::size_t>(job_nodes / group_nodes);
    std::size_t held = 0, leaves = 0;
    for (auto g : groups_per_leaf) {
        if (held >= groups) break;
        held += g;
        ++leaves;
    }
    if (held < groups) {
        p.reason = "the leaf switches hold only " + std::to_string(held) + " whole groups of " +
                   std::to_string(group_nodes) + " nodes, the job needs " + std::to_string(groups);
        return p;
    }
    p.ok = true;
    p.sbatch_args = {"--switches=" + std::to_string(leaves)};
    p.guaranteed = leaves == 1;
    if (leaves > 1)
        p.reason = "--switches=" + std::to_string(leaves) +
                   " bounds the leaf switches of the whole job; Slurm's tree plugin does not promise that each "
                   "group of " +
                   std::to_string(group_nodes) + " nodes lies under one leaf";
    return p;
}

}   // namespace paraplan::topofile
