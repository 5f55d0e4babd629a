// Calibration from measured runs (core/calibrate/): the frameworks' real log lines are
// read, a profile is fitted within its physical bounds and refused when the runs cannot
// support it, and a fitted profile lowers the error on the same cluster's other runs.
#include "calibrate/fit.h"
#include "calibrate/log_parse.h"
#include "calibrate/runs.h"
#include "catalog/catalog.h"
#include "estimate/estimate.h"
#include "estimate/memory.h"
#include "estimate/profile.h"
#include "project/project.h"
#include "util/input_error.h"

#include <QTemporaryDir>
#include <QtTest>

#include <cmath>
#include <cstdio>
#include <fstream>

using namespace paraplan;
using namespace paraplan::calibrate;

namespace {

const std::string kData = PARAPLAN_TEST_DATA "/calibrate/torchtitan-h100-500w/";
// torchtitan's published Llama 3.1 405B runs on 512 H100 (Tables 5 and 6 of its benchmarks).
const std::string k405 = PARAPLAN_TEST_DATA "/calibrate/torchtitan-405b-h100/";

// A Megatron project on `nodes` nodes of 8 A100-80GB (GPT-3 style model from the catalog).
Project megatron(int nodes, int tp, int pp, int gbs, Schedule schedule = Schedule::one_f_one_b, int chunks = 1) {
    Project p = load_example("llama3.1-70b-4nodes");
    p.cluster.nodes.resize(1);
    p.cluster.nodes[0].gpu = "a100-80g";
    for (int i = 1; i < nodes; ++i) {
        Node n = p.cluster.nodes[0];
        n.name = "node" + std::to_string(i);
        n.host = "h" + std::to_string(i);
        p.cluster.nodes.push_back(n);
    }
    p.cluster.network.inter_node_gbps = 200;
    p.layout.framework = "megatron";
    p.layout.tp = tp;
    p.layout.pp = pp;
    p.layout.sp_mode = tp > 1 ? SpMode::split_gather : SpMode::none;
    p.layout.schedule = schedule;
    p.layout.chunks = chunks;
    p.layout.zero_stage = 0;
    p.layout.distributed_optimizer = true;
    p.layout.num_microbatches = 0;
    p.layout.recompute = Recompute::selective;
    p.training.global_batch_size = gbs;
    p.training.micro_batch_size = 1;
    p.training.seq_len = 4096;
    return p;
}

// Megatron-LM training_log() line (megatron/training/training.py), as it formats it.
std::string megatron_line(int it, double ms, int gbs) {
    char b[512];
    std::snprintf(b, sizeof b,
                  " [2025-06-01 12:00:00.000000] iteration %8d/%8d | consumed samples: %12d | elapsed time per "
                  "iteration (ms): %.1f |"
                  " throughput per GPU (TFLOP/s/GPU): 0.0 | learning rate: 3.000000E-04 | global batch size: %5d |"
                  " lm loss: 7.000000E+00 | loss scale: 1.0 | grad norm: 1.000 | number of skipped iterations:   0 |"
                  " number of nan iterations:   0 |",
                  it, 100, it * gbs, ms, gbs);
    return b;
}

std::string write(const QTemporaryDir& d, const std::string& name, const std::string& text) {
    const std::string path = d.path().toStdString() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

}   // namespace

class TestCalibrate : public QObject {
    Q_OBJECT
private slots:
    // Lines as the frameworks print them (format strings of the cited functions in log_parse.h).
    void megatron_lines() {
        const auto x = parse_log_line(megatron_line(20, 12345.6, 512));
        QVERIFY(x);
        QCOMPARE(x->format, LogFormat::megatron);
        QCOMPARE(x->step, 20LL);
        QCOMPARE(x->step_s, 12.3456);
        QCOMPARE(x->global_batch, 512.0);
        // report_memory(): MB are 1024^2 bytes.
        const auto m = parse_log_line(
            "[Rank 0] (after 10 iterations) memory (MB) | allocated: 20480.00 | max allocated: 61440.00 | "
            "reserved: 65536.00 | max reserved: 71680.00");
        QVERIFY(m);
        QCOMPARE(m->peak_allocated_gib, 60.0);
        QCOMPARE(m->peak_reserved_gib, 70.0);
        QVERIFY(!parse_log_line(" > building train, validation, and test datasets ..."));
    }

    void torchtitan_lines() {
        // MetricsProcessor.log() with its ANSI colours (torchtitan/components/metrics.py).
        const std::string line =
            "[rank0]:[titan] 2025-06-01 12:00:00,000 - root - INFO - \x1b[31mstep: 90  \x1b[32mloss:  3.12345  "
            "\x1b[38;2;180;60;0mgrad_norm:  0.5000  \x1b[36mmemory: 82.40GiB(86.61%)  \x1b[34mtps: 5,762  "
            "\x1b[36mtflops: 333.63  \x1b[35mmfu: 33.73%\x1b[39m";
        const auto x = parse_log_line(line);
        QVERIFY(x);
        QCOMPARE(x->format, LogFormat::torchtitan);
        QCOMPARE(x->step, 90LL);
        QCOMPARE(x->tokens_per_s_per_gpu, 5762.0);
        QCOMPARE(x->tflops_per_gpu, 333.63);
        QCOMPARE(x->peak_reserved_gib, 82.40);
        // The validation line carries tps too but no training step.
        QVERIFY(
            !parse_log_line("\x1b[33mvalidate step: 90  \x1b[32mloss:  3.1000  \x1b[36mmemory: 80.00GiB(84.00%)  "
                            "\x1b[34mtps: 9,000\x1b[39m"));
    }

    void deepspeed_lines() {
        const auto t = parse_log_line(
            "[2025-06-01 12:00:00,000] [INFO] [timer.py:264:stop] epoch=0/micro_step=400/global_step=100, "
            "RunningAvgSamplesPerSec=63.9, CurrSamplesPerSec=64.0, MemAllocated=20.5GB, MaxMemAllocated=41.25GB");
        QVERIFY(t);
        QCOMPARE(t->format, LogFormat::deepspeed);
        QCOMPARE(t->step, 100LL);
        QCOMPARE(t->samples_per_s, 64.0);
        QCOMPARE(t->peak_allocated_gib, 41.25);
        const auto p = parse_log_line("steps: 100 loss: 2.3456 iter time (s): 1.234 samples/sec: 207.455");
        QVERIFY(p);
        QCOMPARE(p->step_s, 1.234);
        QCOMPARE(p->step, 100LL);
        const auto f = parse_log_line("iter latency:                                                  184.73 ms");
        QVERIFY(f);
        QVERIFY(std::abs(f->microstep_s - 0.18473) < 1e-12);
    }

    void colossalai_lines() {
        const auto x = parse_log_line(
            "Throughput: 12.34 samples/sec, TFLOPS per GPU by Megatron: 150.12, TFLOPS per GPU: 140.55");
        QVERIFY(x);
        QCOMPARE(x->format, LogFormat::colossalai);
        QCOMPARE(x->samples_per_s, 12.34);
        QCOMPARE(x->tflops_per_gpu, 140.55);
        const auto m = parse_log_line("Max device memory usage: 61440.00 MB");
        QVERIFY(m);
        QCOMPARE(m->peak_allocated_gib, 60.0);
    }

    // Throughputs become step times with the project's batch, sequence and GPUs; the first
    // of three or more lines (start-up) is left out of the median.
    void measured_step_conversions() {
        Project p = megatron(2, 8, 2, 64);
        std::string text;
        text += megatron_line(10, 90000.0, 64) + "\n";   // start-up
        text += megatron_line(20, 10000.0, 64) + "\n";
        text += megatron_line(30, 10400.0, 64) + "\n";
        text += megatron_line(40, 10200.0, 64) + "\n";
        auto m = measured_step(parse_log(text), p);
        QVERIFY(m);
        QCOMPARE(m->step_s, 10.2);
        QCOMPARE(m->lines_used, 3);

        // torchtitan: step = global batch x seq / (tps x GPUs) = 16 x 8192 / (5762 x 8).
        const Project tt = load_project(kData + "llama3.1-8b-fsdp-8gpu.paraplan.json");
        std::ifstream f(kData + "8gpu-eager.log");
        std::stringstream ss;
        ss << f.rdbuf();
        m = measured_step(parse_log(ss.str()), tt);
        QVERIFY(m);
        QVERIFY(std::abs(m->step_s - 16.0 * 8192 / (5762.0 * 8)) < 1e-9);
        QCOMPARE(m->peak_gib, 82.40);
        QCOMPARE(m->memory_kind, std::string("reserved"));

        // ColossalAI and DeepSpeed print global samples per second.
        m = measured_step(
            parse_log("Throughput: 8.00 samples/sec, TFLOPS per GPU by Megatron: 1.00, TFLOPS per GPU: 1.00\n"), p);
        QVERIFY(m);
        QCOMPARE(m->step_s, 8.0);
        std::string why;
        QVERIFY(!measured_step(parse_log("nothing to see\n"), p, &why));
        QVERIFY(QString::fromStdString(why).contains("no step-time line"));
    }

    // A synthetic cluster whose true multipliers differ from the defaults: step times made
    // with them, written as Megatron log lines, read back and fitted, recover them; the
    // error on the cluster's other runs drops to nothing.
    void recovers_a_known_cluster() {
        estimate::Profile truth;
        truth.gemm = 0.85;
        truth.network = 0.5;
        struct L {
            int nodes, tp, pp, gbs;
        };
        const std::vector<L> fit_layouts = {
            {2, 8, 2, 64}, {4, 8, 1, 128}, {4, 4, 4, 64}, {2, 8, 1, 32}, {8, 8, 1, 256}};
        const std::vector<L> other_layouts = {{4, 8, 2, 128}, {8, 4, 2, 128}, {2, 4, 4, 32}};
        QTemporaryDir dir;
        auto make_runs = [&](const std::vector<L>& ls, const std::string& table) {
            std::string csv = "project,log,name\n";
            int i = 0;
            for (const auto& l : ls) {
                Run r;
                r.project = megatron(l.nodes, l.tp, l.pp, l.gbs);
                const double t = estimate_step(r, truth);
                const std::string base = table + std::to_string(i++);
                save_project(r.project, dir.path().toStdString() + "/" + base + ".paraplan.json");
                std::string log;
                for (int it = 1; it <= 5; ++it)
                    log += megatron_line(it * 10, 1000 * t * (it == 1 ? 3 : 1), l.gbs) + "\n";
                write(dir, base + ".log", log);
                csv += base + ".paraplan.json," + base + ".log," + base + "\n";
            }
            return load_runs(write(dir, table + ".csv", csv));
        };
        const auto fit_runs = make_runs(fit_layouts, "fit");
        const auto other = make_runs(other_layouts, "other");
        QCOMPARE(int(fit_runs.size()), 5);
        const FitResult f = fit_profile(fit_runs, {"gemm", "network"}, estimate::Profile{});
        QVERIFY2(f.ok, f.refusal.c_str());
        QVERIFY2(std::abs(f.profile.gemm / truth.gemm - 1) < 0.01, qPrintable(QString::number(f.profile.gemm)));
        QVERIFY2(std::abs(f.profile.network / truth.network - 1) < 0.02,
                 qPrintable(QString::number(f.profile.network)));
        QVERIFY(f.mean_abs_before > 0.05);
        QVERIFY(f.mean_abs_after < 0.002);
        const auto held = compare(other, estimate::Profile{}, f.profile);
        qInfo("synthetic cluster: fitted gemm %.4f network %.4f; held-out mean |error| %.1f%% -> %.2f%%",
              f.profile.gemm, f.profile.network, 100 * mean_abs_error(held, false), 100 * mean_abs_error(held, true));
        QVERIFY(mean_abs_error(held, false) > 0.05);
        QVERIFY(mean_abs_error(held, true) < 0.005);
    }

    // Fits the data cannot support are refused, with the reason.
    void refuses_unsupported_fits() {
        Run one;
        one.name = "one";
        one.project = megatron(2, 8, 2, 64);
        one.step_s = estimate_step(one, estimate::Profile{}) * 1.2;
        // Fewer runs than parameters.
        FitResult f = fit_profile({one}, {"gemm", "network"}, estimate::Profile{});
        QVERIFY(!f.ok);
        QVERIFY(QString::fromStdString(f.refusal).contains("at least 2"));
        // The network when no run leaves its node.
        std::vector<Run> single;
        for (int tp : {1, 2, 4, 8}) {
            Run r;
            r.name = "tp" + std::to_string(tp);
            r.project = megatron(1, tp, 1, 16);
            r.project.layout.distributed_optimizer = false;
            r.step_s = estimate_step(r, estimate::Profile{}) * 1.1;
            single.push_back(r);
        }
        f = fit_profile(single, {"gemm", "network"}, estimate::Profile{});
        QVERIFY(!f.ok);
        QVERIFY2(QString::fromStdString(f.refusal).contains("barely depend on network"), f.refusal.c_str());
        // A 3x slower cluster is beyond any physical GEMM efficiency: gemm ends at its lower bound.
        for (auto& r : single) r.step_s *= 3;
        f = fit_profile(single, {"gemm"}, estimate::Profile{});
        QVERIFY(!f.ok);
        QVERIFY2(QString::fromStdString(f.refusal).contains("lower bound"), f.refusal.c_str());
        // The same runs a little slower: a fit, inside the bounds.
        for (auto& r : single) r.step_s /= 3;
        f = fit_profile(single, {"gemm"}, estimate::Profile{});
        QVERIFY2(f.ok, f.refusal.c_str());
        QVERIFY(f.profile.gemm < 1);
        const Bounds b = parameter_bounds("gemm", single);
        QVERIFY(f.profile.gemm > b.lo && f.profile.gemm < b.hi);
    }

    // Published runs of one cluster (torchtitan's H100s at 500 W, tests/data/calibrate/...):
    // fitted on its 8-GPU run, the estimate of its 128-GPU run gets closer to the measurement.
    // One run and one parameter: the fit is exact on that run, so only the held-out run is
    // evidence, and it is a single run of a similar layout (same model, FSDP at 16x the scale).
    void published_runs_held_out() {
        for (const auto& [fit_table, check_table] : {std::pair{"runs-fit.csv", "runs-check.csv"},
                                                     std::pair{"runs-compile-fit.csv", "runs-compile-check.csv"}}) {
            const auto fit_runs = load_runs(kData + fit_table);
            const auto check = load_runs(kData + check_table);
            const FitResult f = fit_profile(fit_runs, {"gemm"}, estimate::Profile{});
            QVERIFY2(f.ok, f.refusal.c_str());
            QVERIFY(f.exactly_determined);
            const auto held = compare(check, estimate::Profile{}, f.profile);
            const double before = mean_abs_error(held, false), after = mean_abs_error(held, true);
            qInfo("%s: gemm x%.3f; fitted run %+.1f%% -> %+.1f%%; held-out %s %+.1f%% -> %+.1f%%", fit_table,
                  f.profile.gemm, 100 * f.runs[0].error_before(), 100 * f.runs[0].error_after(), held[0].name.c_str(),
                  100 * held[0].error_before(), 100 * held[0].error_after());
            QVERIFY(std::abs(f.runs[0].error_after()) < 0.005);
            if (before > 0.05) QVERIFY2(after < before, qPrintable(QString("%1 -> %2").arg(before).arg(after)));
            else QVERIFY(after < before + 0.02);
        }
    }

    // Profiles are stored under the config folder and selected by name in the project.
    void profile_round_trip_and_project_field() {
        QTemporaryDir dir;
        qputenv("XDG_CONFIG_HOME", dir.path().toUtf8());
        estimate::Profile p;
        p.name = "slow";
        p.gemm = 0.8;
        p.attention = 0.9;
        estimate::save_profile(p, estimate::profile_path("slow"));
        QVERIFY(QFile::exists(dir.path() + "/paraplan/profiles/slow.json"));
        const auto q = estimate::load_profile("slow");
        QCOMPARE(q.gemm, 0.8);
        QCOMPARE(q.attention, 0.9);
        QCOMPARE(q.network, 1.0);

        Project proj = megatron(2, 8, 2, 64);
        const double base = estimate::estimate_project(proj).time.step_s;
        estimate::set_project_profile(proj, "slow");
        // The field survives a save and load (kept with the project's other keys).
        const Project back = project_from_text(project_to_text(proj));
        QCOMPARE(estimate::project_profile(back).value_or(""), std::string("slow"));
        const double slow = estimate::estimate_project(back).time.step_s;
        QVERIFY2(slow > base * 1.05, qPrintable(QString("%1 vs %2").arg(slow).arg(base)));
        // A missing profile is an error naming the field.
        estimate::set_project_profile(proj, "nope");
        try {
            estimate::estimate_project(proj);
            QFAIL("no error for a missing profile");
        } catch (const InputError& e) {
            QCOMPARE(e.pointer(), std::string("/estimate/profile"));
            QVERIFY(QString::fromStdString(e.message()).contains("nope"));
        }
        // Links cannot be made faster than their line rate.
        QVERIFY_THROWS_EXCEPTION(InputError, estimate::profile_from_json(nlohmann::json{{"network", 1.5}}));
    }

    // The allocator reserve, fitted on two of torchtitan's published 405B runs (1F1B of Table 5,
    // CP 1 of Table 6: their max_memory_reserved, read from the logs' "memory:"), lowers the
    // memory error of the other four (interleaved, CP 2, 4, 8), which it was not fitted on.
    void memory_reserve_from_published_runs() {
        const auto fit_runs = load_runs(k405 + "runs-fit.csv");
        const auto check = load_runs(k405 + "runs-check.csv");
        QCOMPARE(int(fit_runs.size()), 2);
        QCOMPARE(int(check.size()), 4);
        QCOMPARE(fit_runs[0].memory_kind, std::string("reserved"));
        QCOMPARE(fit_runs[0].peak_gib, 82.5);
        QCOMPARE(fit_runs[1].peak_gib, 75.3);

        const FitResult f = fit_profile(fit_runs, {"memory_reserve"}, estimate::Profile{});
        QVERIFY2(f.ok, f.refusal.c_str());
        QVERIFY(f.memory.ok);
        QCOMPARE(f.memory.runs, 2);
        QVERIFY(f.profile.memory_reserve.has_value());
        const double res = *f.profile.memory_reserve;
        QCOMPARE(res, f.memory.reserve);
        // Beyond the built-in FSDP2 share, inside the bounds.
        QVERIFY2(res > estimate::kFragmentationFsdp && res < estimate::kMaxMemoryReserve,
                 qPrintable(QString::number(res)));
        // The step time is not touched by the reserve; the multipliers stay built-in.
        for (const auto& e : f.runs) QCOMPARE(e.after_s, e.before_s);
        QCOMPARE(f.profile.gemm, 1.0);
        // The least mean |error| over the two runs meets one of them exactly (a weighted median),
        // and no nearby reserve does better.
        double exact = 1;
        for (const auto& e : f.runs) exact = std::min(exact, std::abs(e.memory_error_after()));
        QVERIFY2(exact < 1e-9, qPrintable(QString::number(exact)));
        QVERIFY(f.memory.mean_abs_after < f.memory.mean_abs_before);
        QCOMPARE(f.memory.mean_abs_after, mean_abs_memory_error(f.runs, true));
        for (double d : {-0.01, 0.01}) {
            estimate::Profile q = f.profile;
            q.memory_reserve = res + d;
            QVERIFY(mean_abs_memory_error(compare(fit_runs, f.profile, q), true) > f.memory.mean_abs_after);
        }
        qInfo("memory_reserve %.4f; fitted runs mean |memory error| %.1f%% -> %.1f%%", res,
              100 * f.memory.mean_abs_before, 100 * f.memory.mean_abs_after);

        const auto held = compare(check, estimate::Profile{}, f.profile);
        for (const auto& e : held) {
            qInfo("  held out %-22s measured %5.1f GiB, estimate %5.1f (%+.1f%%) -> %5.1f (%+.1f%%)", e.name.c_str(),
                  e.measured_gib, e.before_gib, 100 * e.memory_error_before(), e.after_gib,
                  100 * e.memory_error_after());
            QCOMPARE(e.memory_kind, std::string("reserved"));
            QVERIFY2(std::abs(e.memory_error_after()) < std::abs(e.memory_error_before()), e.name.c_str());
            QVERIFY(std::abs(e.memory_error_after()) < 0.05);
        }
        const double before = mean_abs_memory_error(held, false), after = mean_abs_memory_error(held, true);
        qInfo("held-out mean |memory error| %.1f%% -> %.1f%%", 100 * before, 100 * after);
        QVERIFY(after < before / 2);

        // The estimate itself carries the reserve: reserved = (1 + f) x allocated on every stage,
        // and the peak that must fit the GPU grows with it.
        Project proj = fit_runs[0].project;
        proj.extra.erase("estimate");
        const GpuSpec* gpu = catalog::find_gpu(proj.cluster.nodes[0].gpu);
        QVERIFY(gpu);
        estimate::Hardware hw = estimate::hardware_for(*gpu, proj.cluster, proj.training.precision);
        const auto plain = estimate::estimate_project(proj, hw);
        estimate::apply_profile(f.profile, hw);
        const auto with = estimate::estimate_project(proj, hw);
        QCOMPARE(with.memory.allocated_peak_bytes, plain.memory.allocated_peak_bytes);
        QVERIFY(std::abs(with.memory.reserved_peak_bytes / with.memory.allocated_peak_bytes - (1 + res)) < 1e-12);
        for (const auto& st : with.memory.stages)
            QVERIFY(std::abs(st.fragmentation - res * st.allocated()) <= 1e-6 * st.allocated());
        QVERIFY(with.memory.peak_bytes > plain.memory.peak_bytes);
    }

    // A reserve the runs cannot support is refused, and a step-time fit does not wait for it.
    void memory_reserve_refusals() {
        const auto one = load_runs(k405 + "runs-one.csv");
        QCOMPARE(int(one.size()), 1);
        // One run with a reserved peak: too few, asked for explicitly -> the whole fit is refused.
        FitResult f = fit_profile(one, {"memory_reserve"}, estimate::Profile{});
        QVERIFY(!f.ok);
        QVERIFY2(QString::fromStdString(f.refusal).contains("at least 2 runs"), f.refusal.c_str());
        QVERIFY(!f.profile.memory_reserve);
        // Not asked for: the step-time fit stands, the reserve is left out and says why.
        f = fit_profile(one, {"gemm"}, estimate::Profile{});
        QVERIFY2(f.ok, f.refusal.c_str());
        QVERIFY(f.memory.attempted && !f.memory.ok);
        QVERIFY(QString::fromStdString(f.memory.refusal).contains("at least 2 runs"));
        QVERIFY(!f.profile.memory_reserve);

        auto runs = load_runs(k405 + "runs-fit.csv");
        // Measured peaks twice the estimate: beyond what an allocator holds -> upper bound.
        auto high = runs;
        for (auto& r : high) r.peak_gib *= 2;
        f = fit_profile(high, {"memory_reserve"}, estimate::Profile{});
        QVERIFY(!f.ok);
        QVERIFY2(QString::fromStdString(f.refusal).contains("upper bound"), f.refusal.c_str());
        // Measured peaks below the allocated estimate -> lower bound.
        auto low = runs;
        for (auto& r : low) r.peak_gib *= 0.5;
        f = fit_profile(low, {"memory_reserve"}, estimate::Profile{});
        QVERIFY(!f.ok);
        QVERIFY2(QString::fromStdString(f.refusal).contains("lower bound"), f.refusal.c_str());
        // Allocated peaks (Megatron's report_memory "max allocated") are compared with the
        // allocated estimate and do not fit the reserve.
        auto alloc = runs;
        for (auto& r : alloc) r.memory_kind = "allocated";
        f = fit_profile(alloc, {"memory_reserve"}, estimate::Profile{});
        QVERIFY(!f.ok);
        QVERIFY2(QString::fromStdString(f.refusal).contains("no run carries a measured reserved peak"),
                 f.refusal.c_str());
        double a = 0, peak = 0;
        estimate_step(alloc[0], estimate::Profile{}, &peak, &a);
        QCOMPARE(peak, a);
        QCOMPARE(f.runs[0].before_gib, a);
    }

    // memory_reserve in a profile file: written when set, read back, bad values named by file
    // and JSON pointer; a project's profile moves its reserved peak and the fits verdict.
    void memory_reserve_in_profiles() {
        QTemporaryDir dir;
        qputenv("XDG_CONFIG_HOME", dir.path().toUtf8());
        estimate::Profile p;
        p.name = "roomy";
        QVERIFY(!estimate::profile_to_json(p).contains("memory_reserve"));
        p.memory_reserve = 0.6;
        estimate::save_profile(p, estimate::profile_path("roomy"));
        const auto q = estimate::load_profile("roomy");
        QCOMPARE(q.memory_reserve.value_or(-1), 0.6);
        QCOMPARE(q.gemm, 1.0);

        for (const auto& bad : {std::string(R"({"memory_reserve": 0.8})"), std::string(R"({"memory_reserve": -0.1})"),
                                std::string(R"({"memory_reserve": "15%"})")}) {
            const std::string path = write(dir, "bad.json", bad);
            try {
                estimate::load_profile(path);
                QFAIL("no error");
            } catch (const InputError& e) {
                QCOMPARE(e.pointer(), std::string("/memory_reserve"));
                QVERIFY2(QString::fromStdString(e.message()).contains(QString::fromStdString(path)), e.what());
            }
        }

        // The 405B 1F1B layout fits the 96 GB part with the built-in reserve; with a 0.6 reserve
        // of its allocated peak it does not.
        Project proj = load_runs(k405 + "runs-one.csv")[0].project;
        proj.extra.erase("estimate");
        const auto plain = estimate::estimate_project(proj);
        QVERIFY(plain.memory.fits);
        estimate::set_project_profile(proj, "roomy");
        const auto roomy = estimate::estimate_project(proj);
        QVERIFY(std::abs(roomy.memory.reserved_peak_bytes / roomy.memory.allocated_peak_bytes - 1.6) < 1e-12);
        QVERIFY(!roomy.memory.fits);
    }

    // Paraplan's own job history: job.json holds the project snapshot, the processes'
    // output sits beside it in *.log (core/runtime/job.cpp writes both).
    void job_folder() {
        QTemporaryDir dir;
        const Project p = megatron(2, 8, 2, 64);
        const nlohmann::json job = {
            {"id", "20261201T120000Z-ab12"}, {"state", "succeeded"}, {"project", project_to_json(p)}};
        write(dir, "job.json", job.dump(2));
        write(dir, "node0.log", " > compiling dataset index builder ...\n");
        std::string log;
        for (int it = 1; it <= 4; ++it) log += megatron_line(it * 10, it == 1 ? 20000.0 : 8000.0 + it, 64) + "\n";
        write(dir, "rank-0.log", log);
        const Run r = run_from_job(dir.path().toStdString());
        QCOMPARE(r.name, std::string("20261201T120000Z-ab12"));
        QCOMPARE(r.project.layout.pp, 2);
        QCOMPARE(r.step_s, 8.003);   // median of 8.002, 8.003, 8.004 s after the first line
        QVERIFY(QString::fromStdString(r.source).contains("rank-0.log"));
        QTemporaryDir empty;
        write(empty, "job.json", job.dump(2));
        QVERIFY_THROWS_EXCEPTION(InputError, run_from_job(empty.path().toStdString()));
    }

    void bad_tables_say_where() {
        QTemporaryDir dir;
        const std::string t = write(dir, "runs.csv", "project,step_s\nmissing.paraplan.json,1.0\n");
        try {
            load_runs(t);
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains("runs.csv:2"), e.what());
        }
        const std::string j = write(dir, "runs.json", R"({"runs": [{"project": "x.paraplan.json", "step_s": -1}]})");
        try {
            load_runs(j);
            QFAIL("no error");
        } catch (const InputError& e) {
            QVERIFY2(QString::fromStdString(e.what()).contains("/runs/0"), e.what());
        }
    }
};

QTEST_GUILESS_MAIN(TestCalibrate)
#include "tst_calibrate.moc"
