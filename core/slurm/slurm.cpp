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
    f.exit_code = sig ? 128 + sig : exit;
    return f;
}

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
    return parse_sacct(std::string(*state) + "|" + std::string(code.value_or("0:0")) + "\n");
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

std::string squeue_command(long long id) { return "squeue -h -j " + std::to_string(id) + " -o %T"; }
std::string sacct_command(long long id) { return "sacct -n -P -X -j " + std::to_string(id) + " -o State,ExitCode"; }
std::string scancel_command(long long id) { return "scancel " + std::to_string(id); }
std::string final_state_command(long long id) {
    return "scontrol -o show job " + std::to_string(id) + " 2>/dev/null; " + sacct_command(id) + " 2>/dev/null; true";
}

std::string sinfo_gres_command(const std::string& partition) {
    // "%P %G": partition (the default one marked with '*') and its gres; without a
    // partition sbatch uses the default one, so only its line counts.
    if (!partition.empty()) return "sinfo -h -p " + sh_quote(partition) + " -o '%P %G' | awk '{ print $2 }'";
    return "sinfo -h -o '%P %G' | awk '$1 ~ /[*]$/ { print $2 }'";
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
