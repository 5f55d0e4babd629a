// paraplan-cli monitor FILE [--once] [--json] [--interval MS] [--duration S]
#include "cli/command.h"
#include "cli/runtime_common.h"
#include "runtime/connection_test.h"
#include "estimate/estimate.h"
#include "runtime/telemetry.h"
#include "telemetry/telemetry_heat.h"
#include "topology/build_rank_map.h"
#include "topology/mesh_request.h"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <cstdio>
#include <iostream>
#include <memory>

namespace paraplan::cli {
namespace {

using namespace paraplan::runtime;

nlohmann::json opt(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(); }

// What the heat needs besides the store: the project's rank map and, where the project
// can be estimated, the memory each rank should hold (per-stage totals).
struct HeatContext {
    topology::RankMap map;
    std::vector<std::optional<double>> expected_mib;
};

HeatContext heat_context(const Project& p) {
    HeatContext h;
    h.map = topology::build_rank_map(topology::from_project(p), &p.cluster);
    try {
        const auto e = estimate::estimate_project(p);
        std::vector<double> stages;
        for (const auto& s : e.memory.stages) stages.push_back(s.total());
        h.expected_mib = expected_mib_by_stage(h.map, stages);
    } catch (const std::exception&) {}
    return h;
}

nlohmann::json store_json(const Cluster& c, const TelemetryStore& store, const std::vector<std::string>& node_errors,
                          const HeatContext& hc, double now_s) {
    nlohmann::json nodes = nlohmann::json::array();
    for (std::size_t n = 0; n < c.nodes.size(); ++n) {
        nlohmann::json gpus = nlohmann::json::array();
        for (const auto& [key, s] : store.series()) {
            if (s.node != static_cast<int>(n) || s.samples.empty()) continue;
            const auto& g = s.samples.back().second;
            gpus.push_back({{"index", g.index},
                            {"uuid", g.uuid},
                            {"name", g.name},
                            {"rank", s.rank >= 0 ? nlohmann::json(s.rank) : nlohmann::json()},
                            {"utilization.gpu", opt(g.utilization_gpu)},
                            {"memory.used", opt(g.memory_used_mib)},
                            {"memory.total", opt(g.memory_total_mib)},
                            {"temperature.gpu", opt(g.temperature_gpu)},
                            {"power.draw", opt(g.power_draw_w)}});
        }
        nodes.push_back({{"node", c.nodes[n].name},
                         {"host", ssh_target(c.nodes[n]).host},
                         {"ok", node_errors[n].empty()},
                         {"error", node_errors[n]},
                         {"gpus", gpus}});
    }
    // Per pipeline stage: mean utilization and memory over the ranks with a sample
    // (runtime/telemetry_heat.h); flags from the same heat (memory above the estimate, idle
    // while the group works, planned GPUs not reported).
    HeatOptions o;
    o.now_s = now_s;
    o.expected_mib = hc.expected_mib;
    const HeatMap util = telemetry_heat(store, hc.map, HeatMetric::Utilization, o);
    const HeatMap mem = telemetry_heat(store, hc.map, HeatMetric::Memory, o);
    nlohmann::json stages = nlohmann::json::array();
    for (std::size_t i = 0; i < util.stages.size() && i < mem.stages.size(); ++i) {
        const auto& u = util.stages[i];
        std::optional<double> expected;
        if (!u.ranks.empty() && static_cast<std::size_t>(u.ranks.front()) < o.expected_mib.size())
            expected = o.expected_mib[static_cast<std::size_t>(u.ranks.front())];
        stages.push_back({{"stage", u.index},
                          {"ranks", u.ranks},
                          {"utilization.gpu", opt(u.mean)},
                          {"memory.used", opt(mem.stages[i].mean)},
                          {"expected_memory_mib", opt(expected)},
                          {"ranks_without_sample", u.missing}});
    }
    nlohmann::json flags = nlohmann::json::array();
    const auto flag_list = hc.map.valid() ? util.flags : store.flags(std::nullopt);
    for (const auto& f : flag_list)
        flags.push_back({{"kind", f.kind},
                         {"node", c.nodes[static_cast<std::size_t>(f.node)].name},
                         {"gpu", f.gpu},
                         {"rank", f.rank},
                         {"message", f.message}});
    return {{"nodes", nodes},
            {"stages", stages},
            {"flags", flags},
            {"diagnostics", std::vector<std::string>(store.diagnostics().begin(), store.diagnostics().end())}};
}

void print_table(const Cluster& c, const TelemetryStore& store, const std::vector<std::string>& node_errors) {
    auto num = [](const std::optional<double>& v, const char* fmt) {
        if (!v) return std::string("n/a");
        char b[32];
        std::snprintf(b, sizeof b, fmt, *v);
        return std::string(b);
    };
    std::printf("%-10s %3s %5s %-26s %6s %15s %6s %8s\n", "node", "gpu", "rank", "name", "util%", "memory MiB", "temp",
                "power W");
    for (std::size_t n = 0; n < c.nodes.size(); ++n) {
        if (!node_errors[n].empty()) {
            std::printf("%-10s  %s\n", c.nodes[n].name.c_str(), node_errors[n].c_str());
            continue;
        }
        for (const auto& [key, s] : store.series()) {
            if (s.node != static_cast<int>(n) || s.samples.empty()) continue;
            const auto& g = s.samples.back().second;
            const std::string mem = num(g.memory_used_mib, "%.0f") + "/" + num(g.memory_total_mib, "%.0f");
            std::printf("%-10s %3d %5s %-26.26s %6s %15s %6s %8s\n", c.nodes[n].name.c_str(), g.index,
                        s.rank >= 0 ? std::to_string(s.rank).c_str() : "-", g.name.c_str(),
                        num(g.utilization_gpu, "%.0f").c_str(), mem.c_str(), num(g.temperature_gpu, "%.0f").c_str(),
                        num(g.power_draw_w, "%.1f").c_str());
        }
    }
    for (const auto& f : store.flags(std::nullopt)) std::printf("flag: %s\n", f.message.c_str());
    for (const auto& d : store.diagnostics()) std::fprintf(stderr, "diagnostic: %s\n", d.c_str());
    std::fflush(stdout);
}

int run_monitor(const Args& a) {
    const std::string file = a.positional_at(0, "project FILE");
    const auto rp = load_runtime_project(file);
    const int interval = a.get_int("interval", rp.rc.telemetry_interval_ms);
    if (interval < 250) throw UsageError("--interval must be at least 250 ms");
    const double duration = a.get_double("duration", 0);
    const bool json_out = a.flag("json");
    const Cluster& c = rp.project.cluster;
    auto app = ensure_qt_app();
    const SshOptions& ssh = rp.ssh;
    std::vector<std::string> errors(c.nodes.size());
    const HeatContext hc = heat_context(rp.project);

    if (a.flag("once")) {
        // Every node at once: connect all, start one reading on each, and give the lot
        // --timeout seconds; a node still silent then has its channel closed (the remote
        // watchdog ends its nvidia-smi) and is reported, never waited on one after another.
        const int timeout_s = a.get_int("timeout", 30);
        if (timeout_s < 1) throw UsageError("--timeout must be at least 1 second");
        TelemetryStore store(c);
        std::vector<std::unique_ptr<SshNode>> nodes;
        for (const auto& n : c.nodes) {
            nodes.push_back(std::make_unique<SshNode>(ssh_target(n), ssh));
            nodes.back()->connectToHost();
        }
        QElapsedTimer clock;
        clock.start();
        const qint64 connect_ms = (rp.rc.connect_timeout_s + 5) * 1000LL;
        bool unreachable = false;
        for (std::size_t i = 0; i < nodes.size(); ++i)
            if (!nodes[i]->waitConnected(static_cast<int>(std::max<qint64>(1, connect_ms - clock.elapsed())))) {
                errors[i] = nodes[i]->error().message;
                unreachable = unreachable || is_unreachable(nodes[i]->error().kind) ||
                              nodes[i]->state() == SshNode::State::Connecting;
            }
        std::vector<QProcess*> procs(nodes.size(), nullptr);
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            if (!errors[i].empty()) continue;
            procs[i] = nodes[i]->start(
                telemetry_command(interval, rp.rc.path_prepend, true, smi_tool_for(c, c.nodes[i])));
        }
        QEventLoop loop;
        auto all_done = [&procs] {
            for (auto* p : procs)
                if (p && p->state() != QProcess::NotRunning) return false;
            return true;
        };
        for (auto* p : procs)
            if (p)
                QObject::connect(p, &QProcess::finished, &loop, [all_done, l = &loop] {
                    if (all_done()) l->quit();
                });
        QTimer::singleShot(timeout_s * 1000, &loop, &QEventLoop::quit);
        if (!all_done()) loop.exec();
        std::vector<bool> timed_out(nodes.size(), false);
        for (std::size_t i = 0; i < procs.size(); ++i) {
            QProcess* p = procs[i];
            if (!p || p->state() == QProcess::NotRunning) continue;
            timed_out[i] = true;
            p->closeWriteChannel();   // remote: TERM the tool's group, then KILL
            if (!p->waitForFinished(5000)) {
                p->kill();
                p->waitForFinished(2000);
            }
        }
        for (std::size_t i = 0; i < procs.size(); ++i) {
            QProcess* p = procs[i];
            if (!p) continue;
            const SmiTool tool = smi_tool_for(c, c.nodes[i]);
            const int code = p->exitStatus() == QProcess::NormalExit ? p->exitCode() : 255;
            const std::string out = p->readAllStandardOutput().toStdString();
            const std::string err = p->readAllStandardError().toStdString();
            if (timed_out[i])
                errors[i] = std::string(smi_tool_name(tool)) + " hung on " + c.nodes[i].name + ": no reading within " +
                            std::to_string(timeout_s) + " s (stopped it there)";
            else if (code == 127)
                errors[i] = std::string(smi_tool_name(tool)) + " not found on " + c.nodes[i].name + " (no " +
                            (tool == SmiTool::Rocm ? "AMD" : "NVIDIA") + " GPUs seen)";
            else if (code != 0) errors[i] = classify_ssh_failure(c.nodes[i].host, code, err).message;
            SmiStreamParser parser(tool);
            std::size_t start = 0;
            while (start < out.size()) {
                auto end = out.find('\n', start);
                if (end == std::string::npos) end = out.size();
                parser.line(store, static_cast<int>(i), out.substr(start, end - start), 0);
                start = end + 1;
            }
            delete p;
        }
        bool ok = true;
        for (const auto& e : errors) ok = ok && e.empty();
        if (json_out) print_json(store_json(c, store, errors, hc, 0).dump(2));
        else print_table(c, store, errors);
        return unreachable ? kUnreachable : ok ? kOk : kFindings;
    }

    TelemetryMonitor mon(c, ssh, interval, rp.rc.path_prepend);
    QEventLoop loop;
    QTimer tick;
    QObject::connect(&tick, &QTimer::timeout, &loop, [&] {
        for (std::size_t i = 0; i < c.nodes.size(); ++i)
            errors[i] = mon.status()[i].state == TelemetryMonitor::NodeState::Failed ? mon.status()[i].message : "";
        if (json_out)
            std::cout << store_json(c, mon.store(), errors, hc, mon.now_s()).dump() << std::endl;   // JSON lines
        else {
            std::printf("\n");
            print_table(c, mon.store(), errors);
        }
    });
    on_interrupt(&loop, [&loop] { loop.quit(); });
    if (duration > 0) QTimer::singleShot(static_cast<int>(duration * 1000), &loop, &QEventLoop::quit);
    mon.start();
    tick.start(std::max(interval, 1000));
    loop.exec();
    mon.stop();
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "monitor",
    .summary = "live GPU utilisation, memory, temperature and power of the project's nodes",
    .synopsis = {"FILE [--once] [--json] [--interval MS] [--duration S] [--timeout S]"},
    .description = "Runs one long-lived `nvidia-smi --query-gpu=... -lms MS` per node over ssh and prints\n"
                   "a table per interval (GPU, planned rank, util %, memory, temperature, power), with flags\n"
                   "for planned GPUs a node does not report. [N/A] values print as n/a. Ctrl-C ends it.\n",
    .options = {{"once", "",
                 "one sample per node (all nodes at once), then exit (exit 1 if a node gave no reading,\n"
                 "4 if one could not be reached)"},
                {"timeout", "S",
                 "with --once: how long to wait for the readings (default 30); a node still\n"
                 "silent is reported and its nvidia-smi/rocm-smi stopped"},
                {"json", "", "with --once: one JSON document; streaming: one JSON document per line"},
                {"interval", "MS", "sampling period in ms (default runtime.telemetry.interval_ms, min 250)"},
                {"duration", "S", "stop after S seconds"}},
    .run = run_monitor});

}   // namespace paraplan::cli
