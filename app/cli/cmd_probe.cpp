// paraplan-cli probe FILE [--layout GROUPS.json] [--json] [--sizes B,B] [--iters N]
#include "cli/command.h"
#include "util/read_file.h"
#include "cli/runtime_common.h"
#include "runtime/connection_test.h"
#include "runtime/job.h"
#include "runtime/job_start.h"
#include "launch/launch_plan.h"
#include "runtime/probe_job.h"
#include "util/input_error.h"
#include "util/json_read.h"

#include <QDateTime>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>

namespace paraplan::cli {
namespace {

using namespace paraplan::runtime;

nlohmann::json result_json(const ProbeResult& r) {
    nlohmann::json groups = nlohmann::json::array();
    for (const auto& g : r.groups) {
        nlohmann::json bw = nlohmann::json::array();
        for (const auto& b : g.bandwidth)
            bw.push_back({{"op", b.op},
                          {"bytes", b.bytes},
                          {"time_ms", b.time_ms},
                          {"algbw_gbps", b.algbw_gbps},
                          {"busbw_gbps", b.busbw_gbps}});
        groups.push_back({{"kind", g.kind},
                          {"index", g.index},
                          {"ranks", g.ranks},
                          {"membership_ok", g.membership_ok},
                          {"allreduce_sum", g.allreduce_sum},
                          {"expected_sum", g.expected_sum},
                          {"bandwidth", bw}});
    }
    nlohmann::json p2p = nlohmann::json::array();
    for (const auto& p : r.p2p)
        p2p.push_back({{"group", p.group},
                       {"src", p.src},
                       {"dst", p.dst},
                       {"src_stage", p.src_stage},
                       {"dst_stage", p.dst_stage},
                       {"bytes", p.bytes},
                       {"time_ms", p.time_ms},
                       {"gbps", p.gbps}});
    return {{"ok", r.ok},
            {"backend", r.backend},
            {"world_size", r.world_size},
            {"torch_version", r.torch_version},
            {"elapsed_s", r.elapsed_s},
            {"groups", groups},
            {"p2p", p2p},
            {"errors", r.errors},
            {"failed_groups", r.failed_groups()}};
}

int run_probe(const Args& a) {
    const std::string file = a.positional_at(0, "project FILE");
    auto rp = load_runtime_project(file, a.get("mode", ""), job_dir_option(a));
    nlohmann::json layout;
    if (a.has("layout")) {
        const std::string layout_path = a.get("layout", "");
        layout = json_read::parse(read_input_file(layout_path, "layout"));
    } else {
        // The groups the project's framework builds, as the Run panel probes them.
        auto groups = probe_groups(rp.project);
        if (groups.layout.is_null()) {
            for (const auto& d : groups.errors)
                std::cerr << to_string(d.severity) << " [" << d.rule << "] " << d.message << '\n';
            std::cerr << "paraplan: the layout is invalid; nothing to probe" << std::endl;
            return kFindings;
        }
        layout = std::move(groups.layout);
    }
    const std::string layout_path = a.get("layout", "(the project's layout)");
    if (!layout.is_object() || !layout.contains("groups") || !layout["groups"].is_object())
        throw InputError("/groups",
                         "the layout file must hold {\"groups\": {\"tp\": [[...]], ...}} (" + layout_path + ")");
    if (layout.value("world_size", rp.project.world_size()) != rp.project.world_size())
        throw InputError("/world_size", "the layout is for " + std::to_string(layout.value("world_size", 0)) +
                                            " ranks, the cluster has " + std::to_string(rp.project.world_size()));
    const bool json_out = a.flag("json");
    auto app = ensure_qt_app();
    const SshOptions& ssh = rp.ssh;
    const std::string id = make_job_id("probe-" + rp.project.name, QDateTime::currentSecsSinceEpoch());
    const ProbeFolder folder = prepare_probe(rp.project.cluster, ssh, layout.dump(),
                                             (rp.rc.connect_timeout_s + 5) * 1000);
    if (!folder.error.empty()) {
        std::cerr << "paraplan: " << folder.error << std::endl;
        return folder.unreachable ? kUnreachable : kRunFailed;
    }
    const std::string& dir = folder.dir;
    std::vector<std::string> extra;
    if (a.has("sizes")) extra.insert(extra.end(), {"--sizes", a.get("sizes", "")});
    if (a.has("iters")) extra.insert(extra.end(), {"--iters", std::to_string(a.get_int("iters", 3))});
    // The same start as the Run panel's probe (runtime/job_start.h).
    std::unique_ptr<Job> owned;
    try {
        owned = create_job(rp.project, probe_runtime(rp.rc, dir, extra), ssh, rp.job_dir, id, JobKind::Probe);
    } catch (...) {
        remove_probe_folder(rp.project.cluster, ssh, dir);
        throw;
    }
    Job& job = *owned;
    QObject::connect(&job, &Job::line, &job, [&job](int i, const QString& text, bool) {
        if (text.startsWith(kProbeResultMarker)) return;
        std::cerr << '[' << job.processes()[static_cast<std::size_t>(i)]->spec.label << "] " << text.toStdString()
                  << std::endl;
    });
    on_interrupt(&job, [&job] { job.stop(); });
    std::cerr << "paraplan: probe job " << job.plan().job_id << ", logs in " << job.folder() << std::endl;
    job.start();
    while (!job.done()) job.waitFinished(1000);
    remove_probe_folder(rp.project.cluster, ssh, dir);
    const auto result = probe_result_from_log(job.folder() + "/rank-0.log");
    if (!result) {
        std::cerr << "paraplan: the probe produced no result: "
                  << (job.error().empty() ? "see rank-0.log" : job.error()) << std::endl;
        return job.state() == Job::State::Succeeded ? kRunFailed : run_exit_code(job);
    }
    if (json_out) {
        print_json(result_json(*result).dump(2));
    } else {
        std::printf("probe %s: %s on %d ranks (%s, torch %s), %.1f s\n", result->ok ? "passed" : "FAILED",
                    result->backend.c_str(), result->world_size, job.folder().c_str(), result->torch_version.c_str(),
                    result->elapsed_s);
        for (const auto& g : result->groups) {
            std::string ranks;
            for (int r : g.ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
            double ar = 0, ag = 0;
            for (const auto& b : g.bandwidth)
                (b.op == "all_reduce" ? ar : ag) = std::max(b.op == "all_reduce" ? ar : ag, b.busbw_gbps);
            std::printf("  %-4s %-3d [%s] %s", g.kind.c_str(), g.index, ranks.c_str(),
                        g.membership_ok ? "members ok" : "MEMBERSHIP WRONG");
            if (!g.bandwidth.empty()) std::printf(", busbw all-reduce %.3f GB/s, all-gather %.3f GB/s", ar, ag);
            std::printf("\n");
        }
        for (const auto& p : result->p2p)
            std::printf("  p2p stage %d -> %d (ranks %d -> %d): %.3f GB/s\n", p.src_stage, p.dst_stage, p.src, p.dst,
                        p.gbps);
        for (const auto& e : result->errors) std::printf("  error: %s\n", e.c_str());
    }
    return result->ok ? kOk : kFindings;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "probe",
    .summary = "check the planned process groups on the real cluster (PyTorch probe job)",
    .synopsis = {"FILE [--layout GROUPS.json] [--json] [--sizes B,B,...] [--iters N]\n"
                 "[--mode direct|torchrun] [--job-dir DIR]"},
    .description = "Uploads the probe script and the planned groups (FILE's layout, or GROUPS.json: the\n"
                   "`paraplan-cli groups --project FILE --json` document)\n"
                   "to every node, runs it on every rank (NCCL on GPUs, gloo otherwise), creates every planned\n"
                   "group, checks its members with an all-reduce of the rank ids, and measures all-reduce /\n"
                   "all-gather bus bandwidth per group and p2p bandwidth between pipeline stages.\n"
                   "Exit 0 when every group checks out, 1 when one does not, 2 on bad input, 3 when the probe\n"
                   "job failed or gave no result, 4 when a node could not be reached.\n",
    .options = {{"layout", "GROUPS.json", "the groups to check instead of FILE's layout"},
                {"sizes", "B,B,...", "message sizes in bytes (default 4096,262144,4194304)"},
                {"iters", "N", "timed iterations per size (default 3)"},
                {"mode", "direct|torchrun", "override runtime.mode"},
                {"job-dir", "DIR", "where the job folder goes (default: Paraplan's own, as for launch)"},
                {"json", "", "print the probe's result as one JSON document"}},
    .run = run_probe});

}   // namespace paraplan::cli
