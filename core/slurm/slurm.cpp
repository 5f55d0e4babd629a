#include "slurm/slurm.h"

#include "shell/shell_quote.h"

#include <algorithm>
#include <cctype>

namespace paraplan::runtime {

std::optional<long long> parse_sbatch_job_id(std::string_view out) {
    std::size_t i = 0;
    while (i < out.size() && std::isspace(static_cast<unsigned char>(out[i]))) ++i;
    long long id = 0;
    std::size_t digits = 0;
    while (i < out.size() && std::isdigit(static_cast<unsigned char>(out[i])) && digits < 18) {
        id = id * 10 + (out[i] - '0');
        ++i;
        ++digits;
    }
    if (digits == 0) return std::nullopt;
    if (i < out.size() && out[i] != ';' && !std::isspace(static_cast<unsigned char>(out[i]))) return std::nullopt;
    return id;
}

std::optional<SlurmFinal> parse_sacct(std::string_view out) {
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.front()))) out.remove_prefix(1);
    const auto nl = out.find('\n');
    std::string_view line = out.substr(0, nl);
    const auto bar = line.find('|');
    if (line.empty() || bar == std::string_view::npos) return std::nullopt;
    SlurmFinal f;
    std::string_view state = line.substr(0, bar);
    // "CANCELLED by 1000" -> "CANCELLED"
    if (const auto sp = state.find(' '); sp != std::string_view::npos) state = state.substr(0, sp);
    f.state = std::string(state);
    std::string_view code = line.substr(bar + 1);
    const auto colon = code.find(':');
    // Exit status and signal are small; a garbled line's longer digit runs saturate (they
    // stay non-zero) instead of overflowing int.
    auto num = [](std::string_view s) {
        constexpr int kSaturate = 1 << 20;
        int v = 0;
        for (char c : s)
            if (std::isdigit(static_cast<unsigned char>(c))) v = std::min(kSaturate, v * 10 + (c - '0'));
            else break;
        return v;
    };
    const int exit = num(code.substr(0, colon));
    const int sig = colon == std::string_view::npos ? 0 : num(code.substr(colon + 1));
    f.exit_code = exit;
    f.signal = sig;
    return f;
}

std::string SlurmFinal::outcome() const {
    return signal ? "signal " + std::to_string(signal) : "exit " + std::to_string(exit_code);
}

SlurmStateInfo slurm_state_info(std::string_view s) {
    // The state names of squeue(1) "JOB STATE CODES" (job_state_string,
    // src/common/slurm_protocol_defs.c, slurm-22-05-*).
    struct Row {
        std::string_view name;
        SlurmPhase phase;
        const char* meaning;
    };
    static constexpr Row kStates[] = {
        {"PENDING", SlurmPhase::Queued, "waiting in the queue"},
        {"REQUEUED", SlurmPhase::Queued, "requeued (its node failed or it was requeued): it waits to run again"},
        {"REQUEUE_HOLD", SlurmPhase::Queued, "requeued and held: `scontrol release` lets it run"},
        {"REQUEUE_FED", SlurmPhase::Queued, "requeued by a federation"},
        {"RESV_DEL_HOLD", SlurmPhase::Queued, "held because its reservation was deleted"},
        {"SUSPENDED", SlurmPhase::Queued, "suspended: it resumes when an admin or preemption lets it"},
        {"RUNNING", SlurmPhase::Running, "running"},
        {"CONFIGURING", SlurmPhase::Running, "allocated; its nodes are getting ready"},
        {"COMPLETING", SlurmPhase::Running, "ending: some processes of it still run"},
        {"STAGE_OUT", SlurmPhase::Running, "staging out its data"},
        {"SIGNALING", SlurmPhase::Running, "being signalled"},
        {"RESIZING", SlurmPhase::Running, "changing size"},
        {"STOPPED", SlurmPhase::Running, "stopped (SIGSTOP); it keeps its nodes"},
        {"COMPLETED", SlurmPhase::Succeeded, "completed"},
        {"CANCELLED", SlurmPhase::Cancelled, "cancelled (scancel)"},
        {"FAILED", SlurmPhase::Failed, "failed: a task exited non-zero"},
        {"TIMEOUT", SlurmPhase::Failed, "ended by its time limit (runtime.slurm.time)"},
        {"NODE_FAIL", SlurmPhase::Failed, "ended because a node failed"},
        {"OUT_OF_MEMORY", SlurmPhase::Failed, "ended out of memory"},
        {"PREEMPTED", SlurmPhase::Failed, "preempted by another job"},
        {"BOOT_FAIL", SlurmPhase::Failed, "a node failed to boot"},
        {"DEADLINE", SlurmPhase::Failed, "ended at its deadline"},
        {"REVOKED", SlurmPhase::Failed, "revoked (a federation ran it elsewhere)"},
        {"SPECIAL_EXIT", SlurmPhase::Failed, "ended with a special exit (requeued and held)"},
    };
    for (const auto& r : kStates)
        if (r.name == s) return {r.phase, r.meaning};
    return {SlurmPhase::Unknown, "a state Paraplan does not know"};
}

SlurmReasonInfo slurm_reason_info(std::string_view reason) {
    // squeue's %r: job_reason_string (src/common/slurm_protocol_defs.c, slurm-22-05-*);
    // "ReqNodeNotAvail, UnavailableNodes:n1" is named by its first word.
    const std::string_view name = reason.substr(0, reason.find_first_of(", "));
    struct Row {
        std::string_view name;
        bool blocked;
        const char* advice;
    };
    static constexpr Row kReasons[] = {
        {"None", false, ""},
        {"Resources", false, "waits for nodes to free up; fewer nodes or GPUs start sooner"},
        {"Priority", false, "jobs of higher priority are ahead of it; it starts after them"},
        {"Dependency", false, "waits for the jobs it depends on"},
        {"BeginTime", false, "waits for its begin time"},
        {"Reservation", false, "waits for its reservation to start"},
        {"Licenses", false, "waits for licenses"},
        {"JobHeldUser", false, "held by you: `scontrol release ID` lets it run"},
        {"JobHeldAdmin", false, "held by an administrator: ask them to release it"},
        {"NodeDown", false, "a node it needs is down; it waits for it"},
        {"ReqNodeNotAvail", false,
         "a node it needs is down, drained or reserved; another partition (runtime.slurm.partition) or fewer nodes"},
        {"PartitionDown", false, "the partition is down; another partition (runtime.slurm.partition) starts sooner"},
        {"PartitionInactive", false,
         "the partition is inactive; another partition (runtime.slurm.partition) starts sooner"},
        {"PartitionTimeLimit", true,
         "runtime.slurm.time exceeds the partition's MaxTime (sinfo -o '%P %l'): lower runtime.slurm.time or choose "
         "another partition"},
        {"PartitionNodeLimit", true,
         "the job asks for more nodes than the partition allows (MaxNodes/MinNodes): fewer nodes or another partition"},
        {"PartitionConfig", true, "the request does not fit the partition's configuration: check runtime.slurm"},
        {"BadConstraints", true, "no node of the partition can meet its constraints (GPUs, memory, features)"},
        {"InvalidAccount", true, "the account (runtime.slurm.account) is invalid or not allowed on the partition"},
        {"InvalidQOS", true, "the QOS is invalid for this account or partition"},
        {"DependencyNeverSatisfied", true, "a job it depends on failed: it can never start"},
        {"QOSMaxWallDurationPerJobLimit", true, "runtime.slurm.time exceeds the QOS's MaxWall: lower it"},
        {"AssocMaxWallDurationPerJobLimit", true, "runtime.slurm.time exceeds the account's MaxWall: lower it"},
    };
    for (const auto& r : kReasons)
        if (r.name == name) return {r.blocked, r.advice};
    return {};
}

std::optional<SlurmQueueState> parse_squeue(std::string_view out) {
    while (!out.empty() && std::isspace(static_cast<unsigned char>(out.front()))) out.remove_prefix(1);
    std::string_view line = out.substr(0, out.find('\n'));
    while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
    const auto bar = line.find('|');
    if (bar == std::string_view::npos || bar == 0) return std::nullopt;
    return SlurmQueueState{std::string(line.substr(0, bar)), std::string(line.substr(bar + 1))};
}

bool squeue_says_job_gone(std::string_view err) {
    return err.find("Invalid job id specified") != std::string_view::npos;
}

bool is_sbatch_error(std::string_view err) { return err.find("sbatch: error:") != std::string_view::npos; }

std::optional<SlurmFinal> parse_scontrol_job(std::string_view out) {
    auto field = [&out](std::string_view key) -> std::optional<std::string_view> {
        for (std::size_t at = out.find(key); at != std::string_view::npos; at = out.find(key, at + 1)) {
            if (at != 0 && !std::isspace(static_cast<unsigned char>(out[at - 1]))) continue;
            std::string_view v = out.substr(at + key.size());
            std::size_t end = 0;
            while (end < v.size() && !std::isspace(static_cast<unsigned char>(v[end]))) ++end;
            return v.substr(0, end);
        }
        return std::nullopt;
    };
    const auto state = field("JobState=");
    if (!state || state->empty()) return std::nullopt;
    const auto code = field("ExitCode=");
    auto f = parse_sacct(std::string(*state) + "|" + std::string(code.value_or("0:0")) + "\n");
    if (f) {
        f->reason = std::string(field("Reason=").value_or(""));
        if (f->reason == "None") f->reason.clear();
        f->nodes = std::string(field("NodeList=").value_or(""));
        if (f->nodes == "(null)") f->nodes.clear();
    }
    return f;
}

std::optional<SlurmFinal> parse_final_state(std::string_view out) {
    if (auto f = parse_scontrol_job(out)) return f;
    // sacct's line: the first one with a '|'.
    std::size_t start = 0;
    while (start < out.size()) {
        const auto nl = out.find('\n', start);
        const std::string_view line = out.substr(start,
                                                 nl == std::string_view::npos ? std::string_view::npos : nl - start);
        if (line.find('|') != std::string_view::npos) return parse_sacct(line);
        if (nl == std::string_view::npos) break;
        start = nl + 1;
    }
    return std::nullopt;
}

static std::string bounded(const std::string& cmd, int timeout_s) {
    return "timeout -k 5 " + std::to_string(timeout_s) + " " + cmd;
}
std::string squeue_command(long long id, int timeout_s) {
    return bounded("squeue -h -j " + std::to_string(id) + " -o '%T|%r'", timeout_s);
}
std::string sacct_command(long long id, int timeout_s) {
    return bounded("sacct -n -P -X -j " + std::to_string(id) + " -o State,ExitCode", timeout_s);
}
std::string scancel_command(long long id, int timeout_s) { return bounded("scancel " + std::to_string(id), timeout_s); }
std::string scancel_kill_command(long long id, int timeout_s) {
    return bounded("scancel --signal=KILL " + std::to_string(id), timeout_s);
}
std::string final_state_command(long long id, int timeout_s) {
    return bounded("scontrol -o show job " + std::to_string(id), timeout_s) + " 2>/dev/null; " +
           sacct_command(id, timeout_s) + " 2>/dev/null; true";
}

std::string sinfo_nodes_command(int timeout_s) { return bounded("sinfo -N -h -o '%N %P %G'", timeout_s); }

std::string sinfo_down_command(const std::string& nodes, int timeout_s) {
    return bounded("sinfo -h -N -R -n " + sh_quote(nodes) + " -o '%N|%E'", timeout_s);
}

std::string parse_sinfo_down(std::string_view out) {
    std::string said;
    std::vector<std::string> seen;
    std::size_t start = 0;
    while (start < out.size() && seen.size() < 64) {
        const auto nl = out.find('\n', start);
        std::string_view line = out.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
        start = nl == std::string_view::npos ? out.size() : nl + 1;
        while (!line.empty() && std::isspace(static_cast<unsigned char>(line.back()))) line.remove_suffix(1);
        const auto bar = line.find('|');
        if (bar == std::string_view::npos || bar == 0) continue;
        std::string node(line.substr(0, bar));
        if (std::find(seen.begin(), seen.end(), node) != seen.end()) continue;
        seen.push_back(node);
        const std::string_view why = line.substr(bar + 1);
        said += (said.empty() ? "" : ", ") + node + (why.empty() ? "" : " (" + std::string(why) + ")");
    }
    return said;
}

long long SlurmNodeGpus::total() const {
    long long n = 0;
    for (const auto& [type, count] : gpus) n += count;
    return n;
}

namespace {
// One gres entry "name[:type]:count[(S:...)]" (gres.conf(5), sinfo(1) %G; counts may carry a
// K/M/G suffix). nullopt for anything else ("(null)", a name without a count).
struct GresEntry {
    std::string name, type;
    long long count = 0;
};
std::optional<GresEntry> parse_gres_entry(std::string_view e) {
    if (const auto paren = e.find('('); paren != std::string_view::npos) e = e.substr(0, paren);
    const auto last = e.rfind(':');
    if (last == std::string_view::npos || last == 0) return std::nullopt;
    std::string_view num = e.substr(last + 1);
    long long mult = 1;
    if (!num.empty()) {
        const char u = static_cast<char>(std::toupper(static_cast<unsigned char>(num.back())));
        if (u == 'K' || u == 'M' || u == 'G') {
            mult = u == 'K' ? 1024LL : u == 'M' ? 1024LL * 1024 : 1024LL * 1024 * 1024;
            num.remove_suffix(1);
        }
    }
    if (num.empty() || num.size() > 12) return std::nullopt;
    long long n = 0;
    for (char c : num) {
        if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
        n = n * 10 + (c - '0');
    }
    GresEntry g;
    const std::string_view head = e.substr(0, last);
    const auto colon = head.find(':');
    g.name = std::string(head.substr(0, colon));
    if (colon != std::string_view::npos) g.type = std::string(head.substr(colon + 1));
    g.count = n * mult;
    return g;
}
}   // namespace

std::vector<SlurmNodeGpus> parse_sinfo_nodes(std::string_view out) {
    std::vector<SlurmNodeGpus> nodes;
    std::size_t start = 0, lines = 0;
    while (start < out.size() && lines < kMaxSinfoLines) {
        const auto nl = out.find('\n', start);
        std::string_view line = out.substr(start, nl == std::string_view::npos ? std::string_view::npos : nl - start);
        start = nl == std::string_view::npos ? out.size() : nl + 1;
        ++lines;
        std::vector<std::string_view> f;
        std::size_t i = 0;
        while (i < line.size() && f.size() < 4) {
            while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            const std::size_t b = i;
            while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
            if (i > b) f.push_back(line.substr(b, i - b));
        }
        if (f.size() != 3) continue;
        SlurmNodeGpus n;
        n.node = std::string(f[0]);
        n.partition = std::string(f[1]);
        if (!n.partition.empty() && n.partition.back() == '*') {
            n.partition.pop_back();
            n.default_partition = true;
        }
        n.gres = std::string(f[2]);
        // Entries are separated by commas outside the socket lists "(S:0,2)".
        int depth = 0;
        std::size_t b = 0;
        for (std::size_t k = 0; k <= n.gres.size(); ++k) {
            const char c = k < n.gres.size() ? n.gres[k] : ',';
            if (c == '(') ++depth;
            else if (c == ')' && depth > 0) --depth;
            else if (c == ',' && depth == 0) {
                const auto g = parse_gres_entry(std::string_view(n.gres).substr(b, k - b));
                if (g && g->name == "gpu" && g->count > 0) n.gpus[g->type] += g->count;
                b = k + 1;
            }
        }
        nodes.push_back(std::move(n));
    }
    return nodes;
}

std::string slurm_output_pattern(const std::string& job_id) { return "paraplan-" + job_id + "-%j.out"; }

std::string slurm_output_file(const std::string& job_id, long long slurm_id) {
    return "paraplan-" + job_id + "-" + std::to_string(slurm_id) + ".out";
}

std::string follow_file_command(const std::string& path) {
    return "tail -n +1 -F " + sh_quote(path) + " 2>/dev/null </dev/null & t=$!\ncat >/dev/null\nkill $t 2>/dev/null\n";
}

std::optional<LabelledLine> parse_srun_label(std::string_view line) {
    std::size_t i = 0;
    while (i < line.size() && line[i] == ' ') ++i;
    const std::size_t start = i;
    int task = 0;
    while (i < line.size() && std::isdigit(static_cast<unsigned char>(line[i])) && i - start < 9)
        task = task * 10 + (line[i++] - '0');
    if (i == start || i >= line.size() || line[i] != ':') return std::nullopt;
    ++i;
    if (i < line.size() && line[i] == ' ') ++i;
    return LabelledLine{task, std::string(line.substr(i))};
}

}   // namespace paraplan::runtime
