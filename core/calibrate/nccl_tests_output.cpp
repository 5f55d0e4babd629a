#include "calibrate/nccl_tests_output.h"

#include "util/input_error.h"
#include "util/read_file.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace paraplan::calibrate {

namespace {

std::vector<std::string_view> words(std::string_view s) {
    std::vector<std::string_view> w;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
        const std::size_t b = i;
        while (i < s.size() && s[i] != ' ' && s[i] != '\t' && s[i] != '\r') ++i;
        if (i > b) w.push_back(s.substr(b, i - b));
    }
    return w;
}

[[noreturn]] void fail(int line, const std::string& why) { throw InputError("", why, line); }

bool all_digits(std::string_view s) {
    return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::uint64_t to_u64(std::string_view s, int line, const char* what) {
    std::uint64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size())
        fail(line, std::string(what) + " '" + std::string(s) + "' is not a whole number in range");
    return v;
}

int to_int(std::string_view s, int line, const char* what, int lo, int hi) {
    long long v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || v < lo || v > hi)
        fail(line, std::string(what) + " '" + std::string(s) + "' is not a whole number in [" + std::to_string(lo) +
                       ", " + std::to_string(hi) + "]");
    return static_cast<int>(v);
}

// nccl-tests prints with %f, %g or %e (getFloatStr); a value must be finite and not negative.
double to_double(std::string_view s, int line, const std::string& what) {
    double v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v) || v < 0)
        fail(line, what + " '" + std::string(s) + "' is not a finite number >= 0");
    return v;
}

// The column header: "# size count type redop root time algbw busbw #wrong time ...".
struct Layout {
    std::vector<std::string> names;
    int root = -1;            // index of root, -1 when absent
    int half[2] = {-1, -1};   // index of each half's time column
    int algbw[2] = {-1, -1}, busbw[2] = {-1, -1}, wrong[2] = {-1, -1};
    bool timestamp = false;   // a trailing timestamp column (two words in a row)
    std::size_t row_words() const { return names.size() + (timestamp ? 1 : 0); }
};

Layout layout_of(const std::vector<std::string_view>& w, int line) {
    Layout l;
    for (std::size_t i = 1; i < w.size(); ++i) l.names.emplace_back(w[i]);
    const auto& n = l.names;
    if (n.size() < 4 || n[0] != "size" || n[1] != "count" || n[2] != "type" || (n[3] != "redop" && n[3] != "op"))
        fail(line, "the column header does not start with 'size count type redop'");
    int h = 0;
    for (std::size_t i = 4; i < n.size(); ++i) {
        const std::string& c = n[i];
        if (c == "root" && h == 0) l.root = static_cast<int>(i);
        else if (c == "time" || c == "cputime") {
            if (h == 2) fail(line, "the column header names more than two time columns");
            l.half[h++] = static_cast<int>(i);
        } else if (h > 0 && c == "algbw" && l.algbw[h - 1] < 0) l.algbw[h - 1] = static_cast<int>(i);
        else if (h > 0 && c == "busbw" && l.busbw[h - 1] < 0) l.busbw[h - 1] = static_cast<int>(i);
        else if (h > 0 && (c == "#wrong" || c == "error") && l.wrong[h - 1] < 0) l.wrong[h - 1] = static_cast<int>(i);
        else if (c == "timestamp" && i + 1 == n.size()) l.timestamp = true;
    }
    if (h != 2) fail(line, "the column header needs an out-of-place and an in-place time column");
    for (int k = 0; k < 2; ++k)
        if (l.algbw[k] < 0 || l.busbw[k] < 0)
            fail(line, std::string("the column header has no algbw/busbw for the ") +
                           (k == 0 ? "out-of-place" : "in-place") + " half");
    return l;
}

NcclTestsTiming timing(const std::vector<std::string_view>& w, const Layout& l, int k, int line) {
    const char* half = k == 0 ? "out-of-place " : "in-place ";
    NcclTestsTiming t;
    t.time_us = to_double(w[l.half[k]], line, std::string(half) + "time");
    t.algbw_gbs = to_double(w[l.algbw[k]], line, std::string(half) + "algbw");
    t.busbw_gbs = to_double(w[l.busbw[k]], line, std::string(half) + "busbw");
    if (l.wrong[k] >= 0 && w[l.wrong[k]] != "N/A")
        t.wrong = to_double(w[l.wrong[k]], line, std::string(half) + "#wrong");
    return t;
}

std::string strip_perf(std::string name) {
    const auto slash = name.find_last_of('/');
    if (slash != std::string::npos) name = name.substr(slash + 1);
    const auto p = name.find("_perf");
    return p == std::string::npos ? name : name.substr(0, p);
}

// The collective from the table when the banner is missing: busbw / algbw is nccl-tests'
// factor (2(n-1)/n all-reduce, (n-1)/n all-gather, reduce-scatter and all-to-all, 1 broadcast,
// reduce, send/recv; nccl-tests v2.19.6 src/*.cu *GetBw), redop is "none" where no reduction runs (all-gather,
// broadcast, all-to-all: TimeTest(..., "none", root)) and root is -1 unless the collective has
// one (broadcast, reduce). "" when the table cannot tell (all-gather from all-to-all; n = 2).
std::string infer_collective(const NcclTestsOutput& o) {
    const int n = o.ranks;
    if (n < 3) return "";
    double ratio = 0, best = 0;
    for (const auto& r : o.rows)   // two decimals printed: the row with the largest algbw
        if (r.out_of_place.algbw_gbs > best) {
            best = r.out_of_place.algbw_gbs;
            ratio = r.out_of_place.busbw_gbs / best;
        }
    if (best < 1) return "";
    const bool none = !o.rows.empty() && o.rows.front().redop == "none";
    const bool rooted = !o.rows.empty() && o.rows.front().root >= 0;
    auto near = [&](double f) { return std::abs(ratio - f) < 0.02 * f + 0.01; };
    if (near(2.0 * (n - 1) / n) && !none && !rooted) return "all_reduce";
    if (near(static_cast<double>(n - 1) / n)) return none ? "" : "reduce_scatter";
    if (near(1.0)) {
        if (none && rooted) return "broadcast";
        if (!none && rooted) return "reduce";
        if (!none && !rooted) return "sendrecv";
    }
    return "";
}

}   // namespace

std::optional<network::Op> op_of_collective(const std::string& c) {
    using network::Op;
    if (c == "all_reduce") return Op::AllReduce;
    if (c == "all_gather") return Op::AllGather;
    if (c == "reduce_scatter") return Op::ReduceScatter;
    if (c == "broadcast") return Op::Broadcast;
    if (c == "alltoall") return Op::AllToAll;
    if (c == "sendrecv") return Op::SendRecv;
    return std::nullopt;
}

NcclTestsOutput parse_nccl_tests_output(std::string_view text) {
    if (text.size() > kMaxNcclTestsBytes)
        fail(0,
             "the text is " + std::to_string(text.size()) + " bytes, more than " + std::to_string(kMaxNcclTestsBytes));
    NcclTestsOutput o;
    std::optional<Layout> layout;
    bool footer = false, header_seen = false;
    int max_rank = -1;
    std::set<int> ranks_seen;
    std::map<std::string, int> per_host;
    int line_no = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        if (line.size() > kMaxNcclTestsLineChars)
            fail(line_no, "the line is longer than " + std::to_string(kMaxNcclTestsLineChars) + " characters");
        const auto w = words(line);
        if (w.empty()) continue;
        if (w[0][0] == '#') {   // nccl-tests' own lines start "# "
            if (w[0] != "#" || w.size() < 2) continue;
            const std::string_view k = w[1];
            if (k == "nThread") {
                if (header_seen)
                    fail(line_no,
                         "a second nccl-tests run starts here: give one run per file (or nccl-tests was built "
                         "without MPI=1 and run under mpirun, so that each process ran, and printed, alone)");
                header_seen = true;
                for (std::size_t i = 1; i + 1 < w.size(); ++i) {
                    if (w[i] == "nThread") o.threads = to_int(w[i + 1], line_no, "nThread", 1, kMaxNcclTestsRanks);
                    if (w[i] == "nGpus") o.gpus_per_thread = to_int(w[i + 1], line_no, "nGpus", 1, kMaxNcclTestsRanks);
                }
            } else if (k == "Collective" && w.size() >= 5 && w[2] == "test" && w[3] == "starting:") {
                if (!o.program.empty()) fail(line_no, "a second nccl-tests run starts here: give one run per file");
                o.program = std::string(w[4]);
            } else if (k == "Rank" && w.size() >= 3) {
                // "#  Rank  0 Group  0 Pid 123 on host device  0 [..] NAME" (Group since 2.13.4)
                if (line.size() >= 3 && line.substr(line.size() - 3) == "...") {
                    o.devices_cut = true;
                    continue;
                }
                const int r = to_int(w[2], line_no, "rank", 0, kMaxNcclTestsRanks - 1);
                std::size_t i = 3;
                if (i + 1 < w.size() && w[i] == "Group") i += 2;
                if (i + 1 >= w.size() || w[i] != "Pid") fail(line_no, "a rank line without 'Pid'");
                i += 2;
                if (i + 1 >= w.size() || w[i] != "on") fail(line_no, "a rank line without 'on HOST'");
                const std::string host(w[i + 1]);
                i += 2;
                if (i + 1 >= w.size() || w[i] != "device") fail(line_no, "a rank line without 'device N'");
                i += 2;
                if (i < w.size() && !w[i].empty() && w[i][0] == '[') ++i;
                if (!ranks_seen.insert(r).second)
                    fail(line_no, "rank " + std::to_string(r) +
                                      " is listed twice: several runs in one file, or nccl-tests built without MPI "
                                      "run under mpirun (each process then runs alone)");
                if (r == 0) {
                    std::string name;
                    for (; i < w.size(); ++i) name += (name.empty() ? "" : " ") + std::string(w[i]);
                    o.device = name;
                }
                max_rank = std::max(max_rank, r);
                ++per_host[host];
            } else if (k == "size") {
                if (layout) fail(line_no, "a second column header: give one run per file");
                layout = layout_of(w, line_no);
            } else if (k == "Avg" && w.size() >= 6 && w[2] == "bus" && w[3] == "bandwidth" && w[4] == ":") {
                o.avg_busbw_gbs = to_double(w[5], line_no, "the average bus bandwidth");
                footer = true;
            } else if (k == "Out" && layout) {
                footer = true;
            }
            continue;
        }
        if (!all_digits(w[0])) continue;   // MPI, NCCL_DEBUG and other lines around the run
        if (!layout) continue;             // numbers before the table are not rows
        if (footer) fail(line_no, "a table row after the footer (# Avg bus bandwidth): give one run per file");
        if (w.size() != layout->row_words())
            fail(line_no, "the row has " + std::to_string(w.size()) + " columns, the header names " +
                              std::to_string(layout->row_words()));
        if (o.rows.size() >= kMaxNcclTestsRows)
            fail(line_no, "more than " + std::to_string(kMaxNcclTestsRows) + " rows");
        NcclTestsRow row;
        row.line = line_no;
        row.bytes = to_u64(w[0], line_no, "size");
        row.count = to_u64(w[1], line_no, "count");
        row.type = std::string(w[2]);
        row.redop = std::string(w[3]);
        if (layout->root >= 0) row.root = to_int(w[layout->root], line_no, "root", -1, kMaxNcclTestsRanks);
        row.out_of_place = timing(w, *layout, 0, line_no);
        row.in_place = timing(w, *layout, 1, line_no);
        o.rows.push_back(std::move(row));
    }
    line_no = std::max(line_no, 1);
    if (!layout) fail(line_no, "no nccl-tests table: no '#  size  count  type  redop ...' header line");
    if (o.rows.empty()) fail(line_no, "the nccl-tests table has no rows");

    // Ranks: rank = proc * nThread * nGpus + i (util.cu), so the processes are the blocks of
    // nThread * nGpus ranks up to the highest one listed.
    const int per_proc = std::max(1, o.threads) * std::max(1, o.gpus_per_thread);
    if (max_rank >= 0) {
        const long long procs = (max_rank + 1LL + per_proc - 1) / per_proc;
        if (procs * per_proc > kMaxNcclTestsRanks)
            fail(line_no, "more than " + std::to_string(kMaxNcclTestsRanks) + " ranks");
        o.ranks = static_cast<int>(procs * per_proc);
        if (!o.devices_cut && static_cast<int>(ranks_seen.size()) != o.ranks)
            fail(line_no, "the rank lines list " + std::to_string(ranks_seen.size()) + " ranks, but the highest is " +
                              std::to_string(max_rank) + " with " + std::to_string(per_proc) +
                              " per process: some are missing");
    }
    o.hosts = static_cast<int>(per_host.size());
    for (const auto& [h, n] : per_host) o.max_ranks_per_host = std::max(o.max_ranks_per_host, n);
    o.collective = o.program.empty() ? infer_collective(o) : strip_perf(o.program);
    o.op = op_of_collective(o.collective);
    return o;
}

NcclTestsOutput read_nccl_tests_output(const std::string& path) {
    const std::string text = read_input_file(path, "nccl-tests output", kMaxNcclTestsBytes);
    try {
        return parse_nccl_tests_output(text);
    } catch (const InputError& e) {
        throw in_file(e, path);
    }
}

}   // namespace paraplan::calibrate
