// nccl-tests output read back (core/calibrate/nccl_tests_output.h) and the profile's link
// multipliers fitted to it (core/calibrate/nccl_fit.h, network/efficiency.h): real published
// logs are read row by row, garbage is refused naming its line, a fit recovers the efficiency
// that synthesised its input, and on real logs the held-out error is reported.
#include "calibrate/nccl_fit.h"
#include "calibrate/nccl_tests_output.h"
#include "network/collective.h"
#include "network/efficiency.h"
#include "network/fabric.h"
#include "network/systems.h"
#include "util/input_error.h"

#include <QtTest>

#include <cmath>
#include <cstdio>
#include <string>

using namespace paraplan;
using namespace paraplan::calibrate;

namespace {

const std::string kDir = PARAPLAN_TEST_DATA "/nccl-tests/";

const network::System& sys(const char* id) {
    const auto* s = network::find_system(id);
    if (!s) qFatal("no system %s", id);
    return *s;
}

// nccl-tests' text for `ranks` GPUs on hosts of `per_host`, its rows priced by the model with
// the given multipliers (the format of util.cu's writeBenchmarkLine*: %12li sizes, %6.2f bw).
std::string synthesise(const network::System& s, network::Op op, const char* program, int ranks, int per_host,
                       double up, double out) {
    std::string t = std::string("# Collective test starting: ") + program + "\n";
    t += "# nThread 1 nGpus 1 minBytes 1024 maxBytes 17179869184 step: 4(factor) warmup iters: 5 iters: 20\n#\n";
    t += "# Using devices\n";
    char buf[512];
    for (int r = 0; r < ranks; ++r) {
        std::snprintf(buf, sizeof buf, "#  Rank %2d Group  0 Pid %6d on %10s device %2d [0000:%02x:00] NVIDIA H100\n",
                      r, 1000 + r, ("node" + std::to_string(r / per_host)).c_str(), r % per_host, r);
        t += buf;
    }
    t += "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw "
         "  busbw #wrong\n";
    t += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  "
         "(GB/s)\n";
    const auto sys_e = network::with_efficiency(s, up, out);
    network::GroupShape g{ranks, (ranks + per_host - 1) / per_host, std::min(ranks, per_host), ranks};
    const auto f = network::fabric_for(sys_e, g);
    for (std::uint64_t b = 1024; b <= (std::uint64_t(16) << 30); b *= 4) {
        const auto r = network::price(f, op, b);
        std::snprintf(
            buf, sizeof buf,
            "%12llu  %12llu     float     sum      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f      0\n",
            static_cast<unsigned long long>(b), static_cast<unsigned long long>(b / 4), r.time_s * 1e6, r.algbw_gbs,
            r.busbw_gbs, r.time_s * 1e6, r.algbw_gbs, r.busbw_gbs);
        t += buf;
    }
    t += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100 \n#\n";
    return t;
}

}   // namespace

class TestNcclTests : public QObject {
    Q_OBJECT
private slots:
    // The 2-node H100 log of NVIDIA/nccl-tests issue #309, MPI warnings and all.
    void readsPublishedTwoNodeLog() {
        const auto o = read_nccl_tests_output(kDir + "h100-16gpu-allreduce.txt");
        QCOMPARE(o.threads, 1);
        QCOMPARE(o.gpus_per_thread, 1);
        QCOMPARE(o.ranks, 16);
        QCOMPARE(o.hosts, 2);
        QCOMPARE(o.max_ranks_per_host, 8);
        QCOMPARE(QString::fromStdString(o.device), QStringLiteral("NVIDIA H100 80GB HBM3"));
        QVERIFY(o.program.empty());   // 2.2x without the banner: the table tells the op
        QCOMPARE(QString::fromStdString(o.collective), QStringLiteral("all_reduce"));
        QVERIFY(o.op && *o.op == network::Op::AllReduce);
        QCOMPARE(int(o.rows.size()), 32);   // 8 B .. 16 GiB by 2
        QCOMPARE(o.rows.front().bytes, std::uint64_t(8));
        QCOMPARE(o.rows.back().bytes, std::uint64_t(17179869184ULL));
        QCOMPARE(o.rows.back().count, std::uint64_t(4294967296ULL));
        QCOMPARE(QString::fromStdString(o.rows.back().type), QStringLiteral("float"));
        QCOMPARE(o.rows.back().root, -1);
        QCOMPARE(o.rows.back().out_of_place.time_us, 68652.0);
        QCOMPARE(o.rows.back().out_of_place.algbw_gbs, 250.24);
        QCOMPARE(o.rows.back().out_of_place.busbw_gbs, 469.21);
        QCOMPARE(o.rows.back().in_place.busbw_gbs, 469.10);
        QVERIFY(o.rows.back().out_of_place.wrong && *o.rows.back().out_of_place.wrong == 0);
        QCOMPARE(o.rows.back().line, 68);
        QVERIFY(o.avg_busbw_gbs && std::abs(*o.avg_busbw_gbs - 139.56) < 1e-9);
        // busbw = algbw * 2(n-1)/n on every bandwidth-sized row, as nccl-tests computes it
        for (const auto& r : o.rows)
            if (r.out_of_place.algbw_gbs > 10)
                QVERIFY(std::abs(r.out_of_place.busbw_gbs / r.out_of_place.algbw_gbs - 2.0 * 15 / 16) < 0.01);
    }

    void readsPublishedLogsOfOtherLayouts() {
        const auto o32 = read_nccl_tests_output(kDir + "h100-32gpu-allreduce.txt");
        QCOMPARE(o32.ranks, 32);
        QCOMPARE(o32.hosts, 4);
        QCOMPARE(int(o32.rows.size()), 32);
        const auto o64 = read_nccl_tests_output(kDir + "h100-64gpu-allreduce.txt");
        QCOMPARE(o64.ranks, 64);
        QCOMPARE(o64.hosts, 8);
        QCOMPARE(int(o64.rows.size()), 14);
        QCOMPARE(o64.rows.front().bytes, std::uint64_t(1048576));
        // rccl-tests, single spaces, rank lines without a Group column, one process of 8 GPUs
        const auto m = read_nccl_tests_output(kDir + "mi300x-8gpu-allreduce.txt");
        QCOMPARE(m.gpus_per_thread, 8);
        QCOMPARE(m.ranks, 8);
        QCOMPARE(m.hosts, 1);
        QCOMPARE(QString::fromStdString(m.device), QStringLiteral("AMD Instinct MI300X"));
        QCOMPARE(int(m.rows.size()), 31);
        QCOMPARE(m.rows.back().out_of_place.busbw_gbs, 316.55);
        QCOMPARE(m.rows.back().in_place.time_us, 47594.0);
        QVERIFY(m.op && *m.op == network::Op::AllReduce);
    }

    // Old layouts by the header's names: no root column, "error" for #wrong, N/A with -c 0.
    void readsColumnsByName() {
        const std::string t =
            "# Collective test starting: all_gather_perf\n"
            "# nThread 1 nGpus 4 minBytes 8 maxBytes 64 step: 2(factor) warmup iters: 5 iters: 20 validation: 0\n"
            "#   Rank  0 Pid   1320 on h1 device  0 [0x00] Tesla V100-SXM2-16GB\n"
            "#   Rank  1 Pid   1320 on h1 device  1 [0x00] Tesla V100-SXM2-16GB\n"
            "#   Rank  2 Pid   1320 on h1 device  2 [0x00] Tesla V100-SXM2-16GB\n"
            "#   Rank  3 Pid   1320 on h1 device  3 [0x00] Tesla V100-SXM2-16GB\n"
            "#       size    count   type   redop    time   algbw   busbw  error    time   algbw   busbw  error\n"
            "        1024       64  float    none   10.00    0.10    0.08    N/A   11.00    0.09    0.07    N/A\n";
        const auto o = parse_nccl_tests_output(t);
        QCOMPARE(o.ranks, 4);
        QCOMPARE(QString::fromStdString(o.collective), QStringLiteral("all_gather"));
        QVERIFY(o.op && *o.op == network::Op::AllGather);
        QCOMPARE(o.rows[0].root, -1);
        QVERIFY(!o.rows[0].out_of_place.wrong);
        QCOMPARE(o.rows[0].in_place.time_us, 11.0);
    }

    void refusesGarbageNamingTheLine() {
        auto line_of = [](const std::string& t) {
            try {
                parse_nccl_tests_output(t);
            } catch (const InputError& e) {
                return e.line();
            }
            return -1;
        };
        const std::string head =
            "# nThread 1 nGpus 2 minBytes 8 maxBytes 64\n"
            "#  Rank  0 Group  0 Pid 1 on h device  0 [0x00] G\n"
            "#  Rank  1 Group  0 Pid 1 on h device  1 [0x00] G\n"
            "#  size count type redop root time algbw busbw #wrong time algbw busbw #wrong\n";
        const std::string row = "8 2 float sum -1 1.0 0.01 0.01 0 1.0 0.01 0.01 0\n";
        QCOMPARE(line_of(head + row), -1);
        QCOMPARE(line_of(head + row + "16 4 float sum -1 1.0 0.01\n"), 6);                       // columns missing
        QCOMPARE(line_of(head + row + "16 4 float sum -1 1.0 x 0.01 0 1.0 0.01 0.01 0\n"), 6);   // not a number
        QCOMPARE(line_of(head + row + "16 4 float sum -1 1.0 nan 0.01 0 1.0 0.01 0.01 0\n"), 6);
        QCOMPARE(line_of(head + row + "16 4 float sum -1 -1.0 0.1 0.01 0 1.0 0.01 0.01 0\n"), 6);
        QCOMPARE(line_of(head + row + "99999999999999999999999 4 float sum -1 1 1 1 0 1 1 1 0\n"), 6);
        QCOMPARE(line_of(head + row + "# nThread 1 nGpus 2 minBytes 8 maxBytes 64\n"), 6);   // a second run
        QCOMPARE(line_of(head + row + "# Avg bus bandwidth : 1\n" + row), 7);                // after the footer
        QCOMPARE(line_of("#  Rank  0 Group  0 Pid 1 on h device  0 [0x00] G\n"
                         "#  Rank  0 Group  0 Pid 2 on h device  0 [0x00] G\n"),
                 2);                                                           // rank listed twice
        QVERIFY(line_of("hello\nworld\n") > 0);                                // no table
        QVERIFY(line_of(head) > 0);                                            // no rows
        QVERIFY(line_of("#  size count type redop time algbw busbw\n") > 0);   // one half only
        QVERIFY(line_of(std::string(kMaxNcclTestsLineChars + 1, 'x')) == 1);   // line too long
        // NCCL_DEBUG lines inside the table are noise, not rows (a host name may start with a digit)
        QCOMPARE(line_of(head + "0666a154:70663:70663 [0] NCCL INFO comm 0x1 rank 0\n" + row), -1);
    }

    void efficiencyScalesTheTiers() {
        const auto& h = sys("dgx-h100");
        const auto e = network::with_efficiency(h, 0.5, 0.25);
        QCOMPARE(e.domain().link_gbps, h.domain().link_gbps * 0.5);
        QCOMPARE(e.scale_out()->nic_gbit, h.scale_out()->nic_gbit * 0.25);
        QCOMPARE(e.tiers.back().oversubscription, h.tiers.back().oversubscription);
        // and the priced bandwidth follows: a large all-reduce over one node is NVLink-bound
        const auto big = std::uint64_t(8) << 30;
        const double full = network::price(network::fabric_for(h, 8), network::Op::AllReduce, big).busbw_gbs;
        const double half = network::price(network::fabric_for(e, 8), network::Op::AllReduce, big).busbw_gbs;
        QVERIFY(half < 0.6 * full && half > 0.4 * full);
        QVERIFY_THROWS_EXCEPTION(InputError, network::with_efficiency(h, 0, 1));
        QVERIFY_THROWS_EXCEPTION(InputError, network::with_efficiency(h, 1, 1.2));
    }

    // Round trip: logs the model priced with nvlink 0.8 and network 0.7 fit back to them, and the
    // held-out checks are exact too.
    void fitRecoversKnownEfficiency() {
        const auto& h = sys("dgx-h100");
        std::vector<NcclRun> runs;
        runs.push_back(
            {"8", parse_nccl_tests_output(synthesise(h, network::Op::AllReduce, "all_reduce_perf", 8, 8, 0.8, 0.7))});
        runs.push_back(
            {"4", parse_nccl_tests_output(synthesise(h, network::Op::AllGather, "all_gather_perf", 4, 8, 0.8, 0.7))});
        // Across nodes: a ring reduce-scatter on two and an NVLS-tree all-reduce on four, both bound by
        // the NICs (on two nodes NCCL's NVLS-tree is bound by perChMaxNVLSTreeBws, not the network).
        runs.push_back({"16", parse_nccl_tests_output(
                                  synthesise(h, network::Op::ReduceScatter, "reduce_scatter_perf", 16, 8, 0.8, 0.7))});
        runs.push_back(
            {"32", parse_nccl_tests_output(synthesise(h, network::Op::AllReduce, "all_reduce_perf", 32, 8, 0.8, 0.7))});
        const auto r = fit_nccl_tests(runs, h, estimate::Profile{});
        QVERIFY2(r.nvlink.ok, r.nvlink.refusal.c_str());
        QVERIFY2(r.network.ok, r.network.refusal.c_str());
        QVERIFY2(std::abs(r.nvlink.value - 0.8) < 0.01, std::to_string(r.nvlink.value).c_str());
        QVERIFY2(std::abs(r.network.value - 0.7) < 0.01, std::to_string(r.network.value).c_str());
        QCOMPARE(r.profile.nvlink, r.nvlink.value);
        QCOMPARE(r.profile.network, r.network.value);
        QVERIFY(r.nvlink.mean_abs_before > 0.05);
        QVERIFY(r.nvlink.mean_abs_after < 0.01);
        QVERIFY(r.network.mean_abs_after < 0.01);
        QCOMPARE(int(r.network.held_out.size()), 2);   // 16 -> 32 GPUs, and sizes
        for (const auto* t : {&r.nvlink, &r.network})
            for (const auto& ho : t->held_out) {
                QVERIFY2(ho.ok, ho.refusal.c_str());
                QVERIFY(ho.check_rows > 0);
                QVERIFY(ho.mean_abs_after < 0.01);
                QVERIFY(ho.mean_abs_after < ho.mean_abs_before);
            }
        // fitted rows are bandwidth-sized: the smallest (1 KiB) never is
        for (const auto& e : r.rows)
            if (e.bytes == 1024) QVERIFY(!e.fitted);
        QVERIFY(r.profile.fit["nccl_tests"]["network"]["fitted"].get<bool>());
        QCOMPARE(r.profile.fit["nccl_tests"]["system"].get<std::string>(), std::string("dgx-h100"));
    }

    // A tier with no rows is refused and named; its multiplier stays as it was.
    void refusesATierWithoutRuns() {
        const auto& h = sys("dgx-h100");
        estimate::Profile start;
        start.network = 0.9;
        std::vector<NcclRun> runs{
            {"8", parse_nccl_tests_output(synthesise(h, network::Op::AllReduce, "all_reduce_perf", 8, 8, 0.75, 1))}};
        const auto r = fit_nccl_tests(runs, h, start);
        QVERIFY(r.nvlink.ok);
        QVERIFY(!r.network.attempted && !r.network.ok);
        QVERIFY(r.network.refusal.find("no run crosses") != std::string::npos);
        QCOMPARE(r.profile.network, 0.9);
        // an op the model lacks (reduce) is skipped by name; with nothing left the fit throws
        std::string reduce = synthesise(h, network::Op::AllReduce, "reduce_perf", 8, 8, 1, 1);
        std::vector<NcclRun> only{{"r", parse_nccl_tests_output(reduce)}};
        QVERIFY_THROWS_EXCEPTION(InputError, fit_nccl_tests(only, h, start));
    }

    // Where the GPUs lie: hosts are domains on an 8-GPU node system, but trays of one NVLink
    // domain on an NVL72 rack, so 8 GPUs on 2 hosts cross the network on the first and not on the
    // second.
    void placesRanksByHostAndDomain() {
        const std::string t = synthesise(sys("dgx-h100"), network::Op::AllReduce, "all_reduce_perf", 8, 4, 1, 1);
        std::vector<NcclRun> runs{{"two-hosts", parse_nccl_tests_output(t)}};
        QCOMPARE(runs[0].output.hosts, 2);
        const auto h = fit_nccl_tests(runs, sys("dgx-h100"), estimate::Profile{});
        QVERIFY(h.network.attempted && !h.nvlink.attempted);
        const auto g = fit_nccl_tests(runs, sys("gb200-nvl72"), estimate::Profile{});
        QVERIFY(g.nvlink.attempted && !g.network.attempted);
    }

    // Real logs: the MI300X node fits its xGMI efficiency, checked on the message sizes it was
    // not fitted on; the H100 runs fit the network on 16 GPUs and are checked on 32 and 64.
    void fitsRealLogsWithHeldOutError() {
        std::vector<NcclRun> m{{"mi300x", read_nccl_tests_output(kDir + "mi300x-8gpu-allreduce.txt")}};
        const auto rm = fit_nccl_tests(m, sys("mi300x-8"), estimate::Profile{});
        QVERIFY2(rm.nvlink.ok, rm.nvlink.refusal.c_str());
        QVERIFY(rm.nvlink.value > 0.5 && rm.nvlink.value < 1);
        QVERIFY(rm.nvlink.mean_abs_after < rm.nvlink.mean_abs_before);
        QCOMPARE(int(rm.nvlink.held_out.size()), 1);
        const auto& hm = rm.nvlink.held_out[0];
        QCOMPARE(QString::fromStdString(hm.split), QStringLiteral("message_size"));
        QVERIFY(hm.ok && hm.check_rows > 0);
        qInfo("MI300X nvlink %.3f, mean |error| %.1f%% -> %.1f%%; held out (sizes): %.1f%% -> %.1f%%", rm.nvlink.value,
              100 * rm.nvlink.mean_abs_before, 100 * rm.nvlink.mean_abs_after, 100 * hm.mean_abs_before,
              100 * hm.mean_abs_after);

        std::vector<NcclRun> h;
        for (const char* f : {"h100-16gpu-allreduce.txt", "h100-32gpu-allreduce.txt", "h100-64gpu-allreduce.txt"})
            h.push_back({f, read_nccl_tests_output(kDir + f)});
        const auto rh = fit_nccl_tests(h, sys("dgx-h100"), estimate::Profile{});
        QVERIFY(rh.network.attempted);
        QVERIFY(!rh.nvlink.attempted);
        QCOMPARE(int(rh.network.held_out.size()), 2);
        QCOMPARE(QString::fromStdString(rh.network.held_out[0].split), QStringLiteral("gpu_count"));
        QCOMPARE(QString::fromStdString(rh.network.held_out[0].fitted_on), QStringLiteral("16 GPUs"));
        for (const auto& ho : rh.network.held_out) {
            QVERIFY(ho.check_rows > 0);
            qInfo("H100 network held out (%s, fitted on %s -> %.3f): checked on %s: %.1f%% -> %.1f%%", ho.split.c_str(),
                  ho.fitted_on.c_str(), ho.value, ho.checked_on.c_str(), 100 * ho.mean_abs_before,
                  100 * ho.mean_abs_after);
        }
        qInfo("H100 network %.3f (fitted %d), mean |error| %.1f%% -> %.1f%%", rh.network.value, int(rh.network.ok),
              100 * rh.network.mean_abs_before, 100 * rh.network.mean_abs_after);
    }
};

QTEST_GUILESS_MAIN(TestNcclTests)
#include "tst_nccl_tests.moc"
