#include "schedule/pytorch_csv.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

namespace paraplan::schedule {
namespace {

struct ParsedAction {
    int stage_index = 0;
    std::string type;
    int microbatch = -1;
};

std::string trim(const std::string& s) {
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

// PyTorch's regex: (\d+)(F|I|B|W|UNSHARD|RESHARD|REDUCE_GRAD|SEND_F|RECV_F|SEND_B|RECV_B)(\d*)
bool parse_action(const std::string& s, ParsedAction& out) {
    std::size_t i = 0;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
    if (i == 0 || i > 6) return false;
    out.stage_index = std::atoi(s.substr(0, i).c_str());
    static const char* kTypes[] = {"UNSHARD", "RESHARD", "REDUCE_GRAD", "SEND_F", "RECV_F", "SEND_B",
                                   "RECV_B",  "F",       "I",           "B",      "W"};
    out.type.clear();
    for (const char* t : kTypes) {
        const std::string ts = t;
        if (s.compare(i, ts.size(), ts) == 0) {
            out.type = ts;
            break;
        }
    }
    if (out.type.empty()) return false;
    std::size_t j = i + out.type.size();
    const std::size_t digits_begin = j;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j;
    if (j != s.size() || j - digits_begin > 9) return false;
    out.microbatch = j > digits_begin ? std::atoi(s.substr(digits_begin).c_str()) : -1;
    return true;
}

std::vector<std::vector<std::string>> split_csv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string cell;
    bool quoted = false, any = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"') {
            quoted = true;
            any = true;
        } else if (c == ',') {
            row.push_back(cell);
            cell.clear();
            any = true;
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            if (any || !cell.empty()) row.push_back(cell);
            rows.push_back(row);
            row.clear();
            cell.clear();
            any = false;
        } else {
            cell += c;
            any = true;
        }
    }
    if (any || !cell.empty()) {
        row.push_back(cell);
        rows.push_back(row);
    }
    return rows;
}

paraplan::Diagnostic bad(int row, int col, const std::string& why) {
    paraplan::Diagnostic d;
    d.severity = paraplan::Severity::Error;
    d.rule = "schedule.csv";
    d.message = (row > 0 ? "row " + std::to_string(row) + (col > 0 ? ", column " + std::to_string(col) : "") + ": "
                         : std::string()) +
                why;
    return d;
}

}   // namespace

std::string pytorch_action(const Schedule& sch, int stage, const Action& a) {
    return std::to_string(sch.virtual_stage(stage, a.chunk)) + pytorch_letter(a.kind) + std::to_string(a.microbatch);
}

std::string to_pytorch_csv(const Schedule& sch) {
    std::string out;
    for (int s = 0; s < sch.pp; ++s) {
        const auto& ops = sch.stages[static_cast<std::size_t>(s)];
        for (std::size_t i = 0; i < ops.size(); ++i) {
            if (i > 0) out += ',';
            if (ops[i].overlap_with_next && i + 1 < ops.size()) {
                out += "(" + pytorch_action(sch, s, ops[i]) + ";" + pytorch_action(sch, s, ops[i + 1]) + ")OVERLAP_F_B";
                ++i;
            } else {
                out += pytorch_action(sch, s, ops[i]);
            }
        }
        out += "\r\n";   // Python's csv.writer line terminator
    }
    return out;
}

CsvImport from_pytorch_csv(const std::string& text) {
    CsvImport r;
    auto& ds = r.diagnostics;
    auto rows = split_csv(text);
    while (!rows.empty() && (rows.back().empty() || (rows.back().size() == 1 && trim(rows.back()[0]).empty())))
        rows.pop_back();
    if (rows.empty()) {
        ds.push_back(bad(0, 0, "The CSV has no rows; PyTorch writes one row per rank."));
        return r;
    }
    const int pp = static_cast<int>(rows.size());
    struct Raw {
        int stage_index;
        OpKind kind;
        int mb;
        bool overlap_next;
    };
    std::vector<std::vector<Raw>> raw(static_cast<std::size_t>(pp));
    int max_stage = -1, max_mb = -1;
    for (int rank = 0; rank < pp; ++rank) {
        const auto& row = rows[static_cast<std::size_t>(rank)];
        for (std::size_t col = 0; col < row.size(); ++col) {
            const std::string cell = trim(row[col]);
            if (cell.empty()) continue;
            std::vector<std::string> parts;
            bool overlap = false;
            if (cell.front() == '(') {
                const auto close = cell.find(')');
                if (close == std::string::npos || cell.substr(close + 1) != "OVERLAP_F_B") {
                    ds.push_back(bad(rank + 1, static_cast<int>(col) + 1,
                                     "'" + cell + "' is not an action; expected e.g. (0F1;7B2)OVERLAP_F_B"));
                    return r;
                }
                std::string inner = cell.substr(1, close - 1);
                std::size_t start = 0;
                while (start <= inner.size()) {
                    const auto semi = inner.find(';', start);
                    parts.push_back(
                        trim(inner.substr(start, semi == std::string::npos ? std::string::npos : semi - start)));
                    if (semi == std::string::npos) break;
                    start = semi + 1;
                }
                overlap = true;
            } else {
                parts.push_back(cell);
            }
            for (std::size_t k = 0; k < parts.size(); ++k) {
                ParsedAction pa;
                if (!parse_action(parts[k], pa)) {
                    ds.push_back(
                        bad(rank + 1, static_cast<int>(col) + 1,
                            "'" + parts[k] + "' is not an action; expected [stage][F|I|B|W][microbatch], e.g. 2F0"));
                    return r;
                }
                OpKind kind;
                if (pa.type == "F") kind = OpKind::Forward;
                else if (pa.type == "I") kind = OpKind::BackwardInput;
                else if (pa.type == "W") kind = OpKind::BackwardWeight;
                else if (pa.type == "B") kind = OpKind::FullBackward;
                else continue;   // communication / FSDP actions: the compute order is what we read
                if (pa.microbatch < 0) {
                    ds.push_back(
                        bad(rank + 1, static_cast<int>(col) + 1, "'" + parts[k] + "' has no microbatch index"));
                    return r;
                }
                raw[static_cast<std::size_t>(rank)].push_back(
                    {pa.stage_index, kind, pa.microbatch, overlap && k + 1 < parts.size()});
                max_stage = std::max(max_stage, pa.stage_index);
                max_mb = std::max(max_mb, pa.microbatch);
            }
        }
    }
    if (max_stage < 0) {
        ds.push_back(bad(0, 0, "The CSV holds no compute action (F, I, B or W)."));
        return r;
    }
    const int V = max_stage + 1;
    if (V % pp != 0) {
        ds.push_back(bad(0, 0,
                         "The highest stage index is " + std::to_string(max_stage) + ", so there are " +
                             std::to_string(V) + " stages, not a multiple of the " + std::to_string(pp) +
                             " rows (ranks)."));
        return r;
    }
    Schedule s;
    s.name = "csv";
    s.pp = pp;
    s.chunks = V / pp;
    s.microbatches = max_mb + 1;
    // Loop placement unless some row uses a stage index that only the V mapping gives it.
    bool loop = true, vee = s.chunks == 2;
    for (int rank = 0; rank < pp; ++rank)
        for (const auto& a : raw[static_cast<std::size_t>(rank)]) {
            loop = loop && a.stage_index % pp == rank;
            vee = vee && (a.stage_index == rank || a.stage_index == 2 * pp - 1 - rank);
        }
    if (!loop && !vee) {
        ds.push_back(
            bad(0, 0, "The rows' stage indices fit neither the loop mapping (stage % ranks) nor the V mapping."));
        return r;
    }
    s.placement = loop ? Placement::Loop : Placement::V;
    s.stages.resize(static_cast<std::size_t>(pp));
    for (int rank = 0; rank < pp; ++rank)
        for (const auto& a : raw[static_cast<std::size_t>(rank)])
            s.stages[static_cast<std::size_t>(rank)].push_back(
                {a.kind, a.mb, s.chunk_of(a.stage_index), a.overlap_next});
    r.schedule = std::move(s);
    return r;
}

}   // namespace paraplan::schedule
