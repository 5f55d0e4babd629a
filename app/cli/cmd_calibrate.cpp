// paraplan-cli calibrate [RUNS ...] [--project FILE --log FILE] [--job ID|FOLDER] --name NAME|--out FILE ...
#include "calibrate/fit.h"
#include "calibrate/nccl_fit.h"
#include "calibrate/nccl_tests_output.h"
#include "calibrate/runs.h"
#include "cli/command.h"
#include "cli/runtime_common.h"
#include "estimate/profile.h"
#include "joblog/job_history.h"
#include "network/systems.h"
#include "project/project.h"
#include "util/input_error.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace paraplan::cli {
namespace {

using calibrate::RunError;

void print_errors(const char* title, const std::vector<RunError>& rows, double before, double after) {
    // Peak memory beside the step time where runs printed it: the estimate of the printed kind
    // (reserved, allocated; the whole footprint when the kind is not known).
    const bool mem = calibrate::runs_with_memory(rows) > 0;
    std::printf("%s\n", title);
    std::printf("  %-36s %10s %10s %8s %10s %8s", "run", "measured s", "before s", "error", "after s", "error");
    if (mem) std::printf("  %-9s %8s %8s %8s %8s %8s", "memory", "GiB", "before", "error", "after", "error");
    std::printf("\n");
    for (const auto& e : rows) {
        std::printf("  %-36s %10.3f %10.3f %+7.1f%% %10.3f %+7.1f%%", e.name.c_str(), e.measured_s, e.before_s,
                    100 * e.error_before(), e.after_s, 100 * e.error_after());
        if (mem && e.has_memory())
            std::printf("  %-9s %8.1f %8.1f %+7.1f%% %8.1f %+7.1f%%",
                        e.memory_kind.empty() ? "total" : e.memory_kind.c_str(), e.measured_gib, e.before_gib,
                        100 * e.memory_error_before(), e.after_gib, 100 * e.memory_error_after());
        std::printf("\n");
    }
    std::printf("  mean |error|: before %.1f%%, after %.1f%%", 100 * before, 100 * after);
    if (mem)
        std::printf("; memory: before %.1f%%, after %.1f%%", 100 * calibrate::mean_abs_memory_error(rows, false),
                    100 * calibrate::mean_abs_memory_error(rows, true));
    std::printf("\n");
}

nlohmann::json errors_json(const std::vector<RunError>& rows) {
    nlohmann::json a = nlohmann::json::array();
    for (const auto& e : rows) {
        nlohmann::json j = {{"name", e.name},
                            {"measured_s", e.measured_s},
                            {"before_s", e.before_s},
                            {"after_s", e.after_s},
                            {"error_before", e.error_before()},
                            {"error_after", e.error_after()},
                            {"before_gib", e.before_gib},
                            {"after_gib", e.after_gib}};
        if (e.measured_gib > 0) {
            j["measured_gib"] = e.measured_gib;
            j["memory_kind"] = e.memory_kind;
            j["memory_error_before"] = e.memory_error_before();
            j["memory_error_after"] = e.memory_error_after();
        }
        a.push_back(j);
    }
    return a;
}

void print_tier(const calibrate::TierFit& t) {
    if (!t.attempted) {
        std::printf("%s: %s\n", t.key.c_str(), t.refusal.c_str());
        return;
    }
    if (t.ok)
        std::printf("%s %.3f (was %.3f) fitted on %d rows: mean |error| %.1f%% -> %.1f%%\n", t.key.c_str(), t.value,
                    t.start, t.rows, 100 * t.mean_abs_before, 100 * t.mean_abs_after);
    else
        std::printf("%s: refused, left at %.3f (%d rows, mean |error| %.1f%%): %s\n", t.key.c_str(), t.value, t.rows,
                    100 * t.mean_abs_before, t.refusal.c_str());
    for (const auto& h : t.held_out) {
        if (h.ok)
            std::printf(
                "  held out (%s): fitted on %s (%d rows) -> %.3f; checked on %s (%d rows): mean |error| "
                "%.1f%% -> %.1f%%\n",
                h.split.c_str(), h.fitted_on.c_str(), h.fit_rows, h.value, h.checked_on.c_str(), h.check_rows,
                100 * h.mean_abs_before, 100 * h.mean_abs_after);
        else
            std::printf("  held out (%s): fitted on %s (%d rows): refused: %s\n", h.split.c_str(), h.fitted_on.c_str(),
                        h.fit_rows, h.refusal.c_str());
    }
}

// calibrate --nccl-tests FILE[,FILE...] (--system ID | --project FILE): the link multipliers.
int run_nccl_tests(const Args& a) {
    if (a.has("log") || a.has("job") || a.has("fit") || a.has("check") || !a.positional.empty())
        throw UsageError(
            "--nccl-tests fits nvlink and network from nccl-tests output alone: it takes no runs "
            "table, --log, --job, --fit or --check");
    if (a.has("system") == a.has("project"))
        throw UsageError("with --nccl-tests give one of --system ID or --project FILE");
    network::System sys;
    if (a.has("project")) {
        sys = network::system_of(load_project(*a.get("project")).cluster);
    } else {
        const auto* s = network::find_system(*a.get("system"));
        if (!s) throw UsageError("unknown system '" + *a.get("system") + "' (see paraplan-cli catalog systems)");
        sys = *s;
    }
    std::vector<calibrate::NcclRun> runs;
    for (const auto& f : split_list(*a.get("nccl-tests"))) runs.push_back({f, calibrate::read_nccl_tests_output(f)});
    if (runs.empty()) throw UsageError("--nccl-tests needs a file");
    estimate::Profile start;
    if (auto from = a.get("from")) start = estimate::load_profile(*from);
    const std::string name = a.get("name", start.name);
    start.name = name;
    const auto fit = calibrate::fit_nccl_tests(runs, sys, start);
    const bool any = fit.nvlink.ok || fit.network.ok;

    std::string saved;
    if (any && (a.has("out") || a.has("name"))) {
        saved = a.has("out") ? *a.get("out") : estimate::profile_path(name);
        estimate::save_profile(fit.profile, saved);
    }
    if (a.flag("json")) {
        nlohmann::json rows = nlohmann::json::array();
        for (const auto& e : fit.rows)
            rows.push_back({{"run", e.run},
                            {"line", e.line},
                            {"op", e.op},
                            {"gpus", e.ranks},
                            {"bytes", e.bytes},
                            {"tier", e.tier},
                            {"fitted", e.fitted},
                            {"measured_busbw_gbs", e.measured_gbs},
                            {"before_busbw_gbs", e.before_gbs},
                            {"after_busbw_gbs", e.after_gbs},
                            {"error_before", e.error_before()},
                            {"error_after", e.error_after()}});
        nlohmann::json j = {{"ok", any},
                            {"system", sys.id},
                            {"nccl_tests", fit.profile.fit["nccl_tests"]},
                            {"rows", rows},
                            {"profile", estimate::profile_to_json(fit.profile)}};
        if (!saved.empty()) j["saved"] = saved;
        print_json(j.dump(2));
        return any ? kOk : kFindings;
    }
    for (const auto& r : runs)
        std::printf("run %s: %s, %d GPUs on %d host%s, %zu rows%s\n", r.name.c_str(),
                    r.output.collective.empty() ? "(collective not named)" : r.output.collective.c_str(),
                    r.output.ranks, r.output.hosts, r.output.hosts == 1 ? "" : "s", r.output.rows.size(),
                    r.output.device.empty() ? "" : (" (" + r.output.device + ")").c_str());
    for (const auto& s : fit.skipped) std::printf("skipped %s\n", s.c_str());
    std::printf("rows (busbw GB/s, out-of-place; * fitted: the model prices a quarter of the size bandwidth-bound):\n");
    std::printf("  %-28s %5s %12s %-8s %9s %9s %8s %9s %8s\n", "run", "gpus", "bytes", "tier", "measured", "before",
                "error", "after", "error");
    for (const auto& e : fit.rows)
        std::printf("%c %-28s %5d %12llu %-8s %9.2f %9.2f %+7.1f%% %9.2f %+7.1f%%\n", e.fitted ? '*' : ' ',
                    e.run.size() > 28 ? e.run.substr(e.run.size() - 28).c_str() : e.run.c_str(), e.ranks,
                    static_cast<unsigned long long>(e.bytes), e.tier.c_str(), e.measured_gbs, e.before_gbs,
                    100 * e.error_before(), e.after_gbs, 100 * e.error_after());
    std::printf("system %s:\n", sys.id.c_str());
    print_tier(fit.nvlink);
    print_tier(fit.network);
    if (!any) {
        std::fprintf(stderr, "calibrate: refused: no multiplier could be fitted\n");
        return kFindings;
    }
    if (!saved.empty()) std::printf("wrote %s\n", saved.c_str());
    else std::printf("not saved (give --name NAME or --out FILE)\n");
    return kOk;
}

int run_calibrate(const Args& a) {
    if (a.has("nccl-tests")) return run_nccl_tests(a);
    if (a.has("system")) throw UsageError("--system goes with --nccl-tests");
    std::vector<calibrate::Run> runs;
    for (const auto& t : a.positional) {
        auto r = calibrate::load_runs(t);
        runs.insert(runs.end(), r.begin(), r.end());
    }
    if (a.has("log") != a.has("project"))
        throw UsageError("--log and --project go together (the log of that project's run)");
    if (a.has("log")) runs.push_back(calibrate::run_from_log(*a.get("project"), *a.get("log")));
    if (auto job = a.get("job")) {
        const std::string job_dir = job_dir_option(a);
        std::string problem;
        const auto rec = runtime::find_job(job_dir, *job, &problem);
        if (!rec) throw UsageError("no job \"" + *job + "\" in " + job_dir + " (" + problem + ")");
        runs.push_back(calibrate::run_from_job(rec->folder));
    }
    if (runs.empty()) throw UsageError("no measured runs: give a runs table, --project FILE --log FILE, or --job ID");
    const std::vector<std::string> params = split_list(a.get("fit", "gemm"));
    for (const auto& p : params)
        if (p != estimate::kMemoryReserveKey &&
            std::find(estimate::profile_parameters().begin(), estimate::profile_parameters().end(), p) ==
                estimate::profile_parameters().end())
            throw UsageError("--fit: unknown parameter '" + p + "' (gemm, attention, network, nvlink, memory_reserve)");
    estimate::Profile start;
    if (auto from = a.get("from")) start = estimate::load_profile(*from);
    const std::string name = a.get("name", start.name);
    start.name = name;
    const auto fit = calibrate::fit_profile(runs, params, start);

    std::vector<calibrate::Run> check;
    if (auto c = a.get("check"))
        for (const auto& t : split_list(*c)) {
            auto r = calibrate::load_runs(t);
            check.insert(check.end(), r.begin(), r.end());
        }
    std::vector<RunError> held;
    if (fit.ok && !check.empty()) held = calibrate::compare(check, start, fit.profile);

    std::string saved;
    if (fit.ok && (a.has("out") || a.has("name"))) {
        saved = a.has("out") ? *a.get("out") : estimate::profile_path(name);
        estimate::save_profile(fit.profile, saved);
    }
    if (a.flag("json")) {
        nlohmann::json j = {{"ok", fit.ok},
                            {"parameters", fit.params},
                            {"runs", errors_json(fit.runs)},
                            {"mean_abs_error_before", fit.mean_abs_before},
                            {"mean_abs_error_after", fit.mean_abs_after},
                            {"condition", fit.condition},
                            {"exactly_determined", fit.exactly_determined},
                            {"profile", estimate::profile_to_json(fit.profile)}};
        if (calibrate::runs_with_memory(fit.runs) > 0) {
            j["memory_mean_abs_error_before"] = calibrate::mean_abs_memory_error(fit.runs, false);
            j["memory_mean_abs_error_after"] = calibrate::mean_abs_memory_error(fit.runs, true);
        }
        if (fit.memory.attempted) {
            nlohmann::json m = {{"fitted", fit.memory.ok},
                                {"runs", fit.memory.runs},
                                {"mean_abs_error_before", fit.memory.mean_abs_before},
                                {"mean_abs_error_after", fit.memory.mean_abs_after}};
            if (fit.memory.ok) m["value"] = fit.memory.reserve;
            else m["refusal"] = fit.memory.refusal;
            j["memory_reserve"] = m;
        }
        if (!fit.ok) j["refusal"] = fit.refusal;
        if (!saved.empty()) j["saved"] = saved;
        if (!held.empty()) {
            j["check"] = {{"runs", errors_json(held)},
                          {"mean_abs_error_before", calibrate::mean_abs_error(held, false)},
                          {"mean_abs_error_after", calibrate::mean_abs_error(held, true)}};
            if (calibrate::runs_with_memory(held) > 0) {
                j["check"]["memory_mean_abs_error_before"] = calibrate::mean_abs_memory_error(held, false);
                j["check"]["memory_mean_abs_error_after"] = calibrate::mean_abs_memory_error(held, true);
            }
        }
        print_json(j.dump(2));
        return fit.ok ? kOk : kFindings;
    }
    for (const auto& r : runs) {
        std::printf("run %s: %.3f s measured", r.name.c_str(), r.step_s);
        if (r.peak_gib > 0)
            std::printf(", %.2f GiB %s", r.peak_gib, r.memory_kind.empty() ? "peak" : r.memory_kind.c_str());
        std::printf(" (%s)\n", r.source.c_str());
    }
    print_errors(fit.ok ? "fitted runs:" : "runs:", fit.runs, fit.mean_abs_before, fit.mean_abs_after);
    if (!fit.ok) {
        std::fprintf(stderr, "calibrate: refused: %s\n", fit.refusal.c_str());
        return kFindings;
    }
    std::printf("profile %s:", fit.profile.name.empty() ? "(unnamed)" : fit.profile.name.c_str());
    for (const auto& k : estimate::profile_parameters())
        std::printf(" %s %.3f%s", k.c_str(), estimate::profile_value(fit.profile, k),
                    std::find(params.begin(), params.end(), k) != params.end() ? " (fitted)" : "");
    if (fit.profile.memory_reserve)
        std::printf(" memory_reserve %.3f%s", *fit.profile.memory_reserve, fit.memory.ok ? " (fitted)" : "");
    std::printf("\n");
    if (fit.memory.ok)
        std::printf(
            "memory_reserve %.3f fitted on %d runs with a measured reserved peak: mean |error| %.1f%% -> "
            "%.1f%%\n",
            fit.memory.reserve, fit.memory.runs, 100 * fit.memory.mean_abs_before, 100 * fit.memory.mean_abs_after);
    else if (fit.memory.attempted) std::printf("memory_reserve not fitted: %s\n", fit.memory.refusal.c_str());
    if (fit.exactly_determined)
        std::printf(
            "note: as many runs as parameters, so the fit is exact on them; only --check runs tell how well it "
            "holds\n");
    if (!held.empty())
        print_errors("held-out runs (--check):", held, calibrate::mean_abs_error(held, false),
                     calibrate::mean_abs_error(held, true));
    if (!saved.empty()) std::printf("wrote %s\n", saved.c_str());
    else std::printf("not saved (give --name NAME or --out FILE)\n");
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "calibrate",
    .summary = "fit a cluster profile (efficiency multipliers) to measured runs",
    .synopsis = {"[RUNS ...] [--project FILE --log FILE] [--job ID|FOLDER]\n"
                 "[--fit gemm,attention,network,nvlink] [--name NAME | --out FILE]\n"
                 "[--from PROFILE] [--check RUNS[,RUNS]] [--json]",
                 "--nccl-tests FILE[,FILE...] (--system ID | --project FILE)\n"
                 "[--name NAME | --out FILE] [--from PROFILE] [--json]"},
    .description =
        "Reads measured runs and fits the efficiency multipliers of a cluster profile, each\n"
        "within its physical bounds, by least squares over log(estimated / measured step time).\n"
        "Prints every run's error before and after. Refuses (exit 1, nothing written) a fit the\n"
        "runs cannot support: fewer runs than parameters, a parameter the runs do not depend on,\n"
        "parameters they cannot tell apart, or one that ends at its physical bound.\n"
        "Runs that printed a reserved peak (torchtitan 'memory:', max_memory_reserved) also fit\n"
        "memory_reserve, the caching allocator's reserve as a share of the allocated peak, in\n"
        "[0, 0.6] (least mean |error| of the reserved peak); at least 2 such runs, else it is\n"
        "left out (or, with --fit memory_reserve, the fit is refused). Memory errors print beside.\n"
        "Runs come from:\n"
        "  RUNS        a table, CSV with a header (project,step_s,peak_gib,log,name) or JSON\n"
        "              {\"runs\": [{\"project\": ..., \"step_s\": ..., \"log\": ...}]}; paths relative to it\n"
        "  --project FILE --log FILE   one run: the project and its training log\n"
        "  --job ID|FOLDER             a Paraplan job (its project snapshot and logs)\n"
        "Logs: Megatron-LM 'elapsed time per iteration (ms)', torchtitan 'tps:' (and 'memory:'),\n"
        "DeepSpeed 'CurrSamplesPerSec=' / 'iter time (s):' / flops profiler 'iter latency:',\n"
        "ColossalAI 'Throughput: ... samples/sec'; the median after the first line is used.\n\n"
        "From nccl-tests output (the stdout of all_reduce_perf etc., rccl-tests too) it fits the\n"
        "link multipliers instead: nvlink from runs inside one scale-up domain, network from runs\n"
        "across domains (given nvlink), by least squares on log(model busbw / measured busbw) over\n"
        "the rows the bandwidth decides (the model prices a quarter of the size bandwidth-bound);\n"
        "each within 0.2..1 of the line rate. Prints every row's error before and after, and a\n"
        "held-out check per tier: fitted on the smallest GPU count and checked on the others, and\n"
        "fitted on every other message size and checked on the sizes between. A tier with no rows,\n"
        "or a multiplier that ends at a bound, is refused and keeps its value; exit 1 when neither\n"
        "is fitted (nothing written). The profile's fit.nccl_tests records the fit.\n\n"
        "Use a profile with: paraplan-cli estimate FILE --profile NAME|FILE, plan --profile, or the\n"
        "project's \"estimate\": {\"profile\": NAME|FILE}. Method: docs/accuracy.md (Calibration).\n",
    .options = {{"project", "FILE", "with --log: the project of one run; with --nccl-tests: its cluster's system"},
                {"log", "FILE", "the training log of the --project run"},
                {"job", "ID|FOLDER", "a Paraplan job: its project snapshot and logs"},
                {"job-dir", "DIR", "where --job looks (default: Paraplan's own folder)"},
                {"fit", "LIST",
                 "multipliers to fit (default gemm): gemm (GEMM efficiency ceiling),\n"
                 "attention (attention kernels), network (inter-node), nvlink (intra-node),\n"
                 "memory_reserve (required: refuse the fit when it cannot be fitted)"},
                {"name", "NAME", "save as the named profile (~/.config/paraplan/profiles/NAME.json)"},
                {"out", "FILE", "save to FILE instead"},
                {"from", "PROFILE", "start from a profile (its other multipliers kept)"},
                {"check", "RUNS", "other runs of the same cluster, not fitted on: their error before and after"},
                {"nccl-tests", "FILES", "nccl-tests output files, comma-separated, one run each"},
                {"system", "ID", "the system they ran on (paraplan-cli catalog systems)"},
                {"json", "",
                 "print {\"ok\", \"runs\": [...], \"mean_abs_error_before\", \"mean_abs_error_after\",\n"
                 "\"profile\", \"refusal\", \"check\"}; runs with a measured peak add memory_kind,\n"
                 "measured_gib, memory_error_before/after; \"memory_reserve\": {fitted, value, runs,\n"
                 "refusal}, \"memory_mean_abs_error_before\"/\"_after\".\n"
                 "With --nccl-tests: {\"ok\", \"system\", \"nccl_tests\": {nvlink, network: {fitted, value,\n"
                 "start, rows, mean_abs_error_before/after, held_out, refusal}},\n"
                 "\"rows\": [...], \"profile\", \"saved\"}"}},
    .run = run_calibrate});

}   // namespace paraplan::cli
