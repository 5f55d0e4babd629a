// The collective model against published nccl-tests results (tests/data/network/nccl_tests.json),
// one Qt Test data row per case so a failure names it. Goals (issue 26), on the held-out rows:
//   every case >= 1 GiB within 10%, and their median |error| within 5%;
//   every point >= 4 MiB within 15%; every point in 32 KiB - 2 MiB within 30%;
//   the algorithm the model picks is the one the source says NCCL picked (nccl_algorithm).
// Tune rows are held to the same bands. The goals stay the bounds: a row the model misses is
// listed in kKnownMisses with the reason, gets QEXPECT_FAIL naming the case and its measured
// error, and is listed in docs/accuracy.md. report() prints the tables docs/accuracy.md carries.
#include "network/collective.h"
#include "network/nccl_chunking.h"
#include "network/systems.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <optional>

using namespace paraplan::network;

namespace {

constexpr std::uint64_t KiB = 1024, MiB = KiB * 1024, GiB = MiB * 1024;

// Why we believe the model misses, one reason per kind of miss.
const std::string kLl128Ramp =
    "ring/LL128 at 4-16 MiB: network/nccl_chunking.h prices the Simple protocol's chunk steps only; LL128 stays at "
    "NCCL's estimate (latency + bytes / full bus bandwidth), while the measured curve is still climbing";
const std::string kChunkResidual =
    "beyond the chunk steps: with nccl_chunking.h's per-step cost (fitted on the tune rows) the A100 ring at 128 MiB "
    "and NVLS at 8 MiB, the first size NCCL runs with 32 KiB NVLS chunks, are still 17-25% fast";
const std::string kSmallLaunch =
    "small sizes: on the ring/LL sweeps the measured time per call is 1.35-2.7x the model's, whose latency is NCCL's "
    "baseLat + hwLat per step: it leaves out the kernel launch and, in this sweep, one process driving every GPU (-g "
    "N)";
const std::string kRackRamp =
    "the full NVL72 rack below 4 GiB: NCCL's NVLS estimate (32 heads at 20 GB/s, search.cc's speed for 72 GPUs, x "
    "0.74) is 9.5% above the measured plateau (834-839 GB/s at 4-8 GiB), and the measured curve is still climbing "
    "at 512 MiB-2 GiB, where the model's chunk steps (24 CTAs x 32 heads, 64 KiB chunks) add only 1-4%";
const std::string kBlackwellLl =
    "ring/LL on one GB200 tray at 512 KiB-4 MiB: NCCL's Blackwell LL ceiling (tuning.cc llMaxBws, 2 x 141 GB/s, "
    "already in the NCCL 2.25.1 the run used) makes LL its pick up to 4 MiB, and the measured curve sits 23-37% "
    "below that estimate; the Hopper ceiling (141) fitted this curve, but the run's NCCL did not use it";
const std::string kTreeUnderrated =
    "tree on three racks: across three NVL partitions with NVLS off, tree runs 19-23% faster than ring, which "
    "NCCL's own tuning model (followed here: perChMaxTreeBw, the 0.92 tree factor) does not foresee; that is the "
    "source issue's point";

// Misses and why we believe the model misses them. Each is a goal the model does not reach yet;
// QEXPECT_FAIL turns into a failure (XPASS) the day the row passes, so the list stays current.
const std::map<std::string, std::string> kKnownMisses = {
    {"a100-8gpu-allreduce-azure-128KiB", kSmallLaunch},
    {"a100-8gpu-allreduce-azure-128MiB", kChunkResidual},
    {"a100-8gpu-allreduce-azure-16MiB", kLl128Ramp},
    {"a100-8gpu-allreduce-azure-1MiB", kSmallLaunch},
    {"a100-8gpu-allreduce-azure-256KiB", kSmallLaunch},
    {"a100-8gpu-allreduce-azure-32KiB", kSmallLaunch},
    {"a100-8gpu-allreduce-azure-4MiB", kLl128Ramp},
    {"a100-8gpu-allreduce-azure-512KiB", kSmallLaunch},
    {"a100-8gpu-allreduce-azure-64KiB", kSmallLaunch},
    {"a100-8gpu-allreduce-azure-8MiB", kLl128Ramp},
    {"gb200-3racks-12gpu-allreduce-tree", kTreeUnderrated},
    {"gb200-3racks-24gpu-allreduce-tree", kTreeUnderrated},
    {"gb200-4gpu-allreduce-ring-azure-128KiB", kSmallLaunch},
    {"gb200-4gpu-allreduce-ring-azure-16MiB", kLl128Ramp},
    {"gb200-4gpu-allreduce-ring-azure-256KiB", kSmallLaunch},
    {"gb200-4gpu-allreduce-ring-azure-32KiB", kSmallLaunch},
    {"gb200-4gpu-allreduce-ring-azure-2MiB", kBlackwellLl},
    {"gb200-4gpu-allreduce-ring-azure-4MiB", kBlackwellLl},
    {"gb200-4gpu-allreduce-ring-azure-512KiB", kBlackwellLl},
    {"gb200-4gpu-allreduce-ring-azure-64KiB", kSmallLaunch},
    {"gb200-72gpu-allreduce-1GiB", kRackRamp},
    {"gb200-72gpu-allreduce-2GiB", kRackRamp},
    {"gb200-72gpu-allreduce-512MiB", kRackRamp},
    {"h100-8gpu-allreduce-nvls-azure-8MiB", kChunkResidual},
    {"h200-8gpu-allreduce-nvls-azure-8MiB", kChunkResidual},
};

struct Row {
    std::string name, set, curve, op, system, forced, nccl_algorithm, nccl_protocol;
    int gpus = 0;
    std::uint64_t bytes = 0;
    std::optional<double> measured;   // none: a row that holds NCCL's pick only
    double model = 0;
    std::string picked;   // algorithm/protocol the model ran
    Fabric fabric;
    CollectiveResult result;
    double error() const { return measured ? model / *measured - 1 : 0; }
};

Fabric fabric_of(const nlohmann::json& r) {
    const System& s = *find_system(r.at("system").get<std::string>());
    const int gpus = r.at("gpus").get<int>();
    Fabric f;
    if (r.contains("gpus_per_domain")) {   // partitions of one domain each, on different racks
        GroupShape g;
        g.ranks = gpus;
        g.ppn = r.at("gpus_per_domain").get<int>();
        g.domains = (gpus + g.ppn - 1) / g.ppn;
        g.span_gpus = (g.domains - 1) * s.domain().domain_gpus + g.ppn;
        f = fabric_for(s, g);
    } else {
        f = fabric_for(s, gpus);
    }
    if (r.contains("nccl_env") && r.at("nccl_env").value("NCCL_NVLS_ENABLE", std::string("1")) == "0") {
        f.nvls = false;
        f.nvls_heads = f.nvls_channels = 0;
    }
    return f;
}

const std::vector<Row>& rows() {
    static const std::vector<Row> out = [] {
        std::ifstream in(PARAPLAN_TEST_DATA "/network/nccl_tests.json");
        const auto j = nlohmann::json::parse(in);
        std::vector<Row> v;
        for (const auto& r : j.at("rows")) {
            Row row;
            row.name = r.at("case");
            row.set = r.at("set");
            row.curve = r.value("curve", std::string());
            row.op = r.at("op");
            row.system = r.at("system");
            row.gpus = r.at("gpus");
            row.forced = r.value("algorithm", std::string());
            row.nccl_algorithm = r.value("nccl_algorithm", std::string());
            row.nccl_protocol = r.value("nccl_protocol", std::string());
            row.bytes = r.at("bytes");
            if (r.contains("busbw_gbs")) row.measured = r.at("busbw_gbs").get<double>();
            const auto algo = *algorithm_from_name(row.forced.empty() ? "auto" : row.forced);
            row.fabric = fabric_of(r);
            const auto res = price(row.fabric, *op_from_name(row.op), row.bytes, algo);
            row.result = res;
            row.model = res.busbw_gbs;
            row.picked = std::string(algorithm_name(res.algorithm)) + "/" + protocol_name(res.protocol);
            v.push_back(row);
        }
        return v;
    }();
    return out;
}

// The goal band a row falls in: its bound, or none for sizes no goal covers (< 32 KiB).
std::optional<double> bound(std::uint64_t bytes) {
    if (bytes >= GiB) return 0.10;
    if (bytes >= 4 * MiB) return 0.15;
    if (bytes >= 32 * KiB && bytes <= 2 * MiB) return 0.30;
    return std::nullopt;
}

const char* band_name(std::uint64_t bytes) {
    if (bytes >= GiB) return ">=1GiB";
    if (bytes >= 4 * MiB) return ">=4MiB";
    if (bytes >= 32 * KiB) return "32KiB-2MiB";
    return "<32KiB";
}

std::string size_name(std::uint64_t b) {
    char buf[32];
    if (b >= GiB && b % GiB == 0) std::snprintf(buf, sizeof buf, "%llu GiB", static_cast<unsigned long long>(b / GiB));
    else if (b >= MiB && b % MiB == 0)
        std::snprintf(buf, sizeof buf, "%llu MiB", static_cast<unsigned long long>(b / MiB));
    else if (b >= KiB && b % KiB == 0)
        std::snprintf(buf, sizeof buf, "%llu KiB", static_cast<unsigned long long>(b / KiB));
    else std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(b));
    return buf;
}

double median(std::vector<double> e) {
    if (e.empty()) return 0;
    std::sort(e.begin(), e.end());
    const auto n = e.size();
    return n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
}

std::vector<double> held_out_large_errors() {
    std::vector<double> e;
    for (const auto& r : rows())
        if (r.set == "held_out" && r.measured && r.bytes >= GiB) e.push_back(std::abs(r.error()));
    return e;
}

// One data row per measured row of `set` whose size lies in [lo, hi].
void band_rows(const char* set, std::uint64_t lo, std::uint64_t hi) {
    QTest::addColumn<int>("index");
    const auto& rs = rows();
    for (std::size_t i = 0; i < rs.size(); ++i)
        if (rs[i].set == set && rs[i].measured && rs[i].bytes >= lo && rs[i].bytes <= hi)
            QTest::newRow(rs[i].name.c_str()) << static_cast<int>(i);
}

void check_row(int index) {
    const Row& r = rows().at(static_cast<std::size_t>(index));
    const auto b = bound(r.bytes);
    QVERIFY(b.has_value());
    char msg[256];
    std::snprintf(msg, sizeof msg, "%s: measured %.2f GB/s, model %.2f (%s), error %+.1f%%, goal %.0f%%",
                  r.name.c_str(), *r.measured, r.model, r.picked.c_str(), 100 * r.error(), 100 * *b);
    if (const auto miss = kKnownMisses.find(r.name); miss != kKnownMisses.end()) {
        const QByteArray why = QByteArray(msg) + " -- " + miss->second.c_str();
        QEXPECT_FAIL("", why.constData(), Abort);
    }
    QVERIFY2(std::abs(r.error()) <= *b, msg);
}

void print_table(const char* set) {
    std::printf(
        "\n| case | GPUs | op | size | forced | measured GB/s | model GB/s | model pick | error | goal |\n"
        "|---|---:|---|---:|---|---:|---:|---|---:|---|\n");
    for (const auto& r : rows()) {
        if (r.set != set || !r.measured) continue;
        const auto b = bound(r.bytes);
        const bool miss = b && std::abs(r.error()) > *b;
        std::printf("| %s | %d | %s | %s | %s | %.2f | %.2f | %s | %+.1f%% | %s%s |\n", r.name.c_str(), r.gpus,
                    r.op.c_str(), size_name(r.bytes).c_str(), r.forced.empty() ? "-" : r.forced.c_str(), *r.measured,
                    r.model, r.picked.c_str(), 100 * r.error(), band_name(r.bytes), miss ? " **miss**" : "");
    }
}

}   // namespace

class TestNetworkAccuracy : public QObject {
    Q_OBJECT
private slots:
    void report() {
        QVERIFY(!rows().empty());
        std::printf("\n#### Tune rows\n");
        print_table("tune");
        std::printf("\n#### Held-out rows\n");
        print_table("held_out");
        std::printf(
            "\n#### Algorithm picks (source says NCCL picked)\n\n| case | GPUs | size | NCCL | model |\n"
            "|---|---:|---:|---|---|\n");
        for (const auto& r : rows())
            if (!r.nccl_algorithm.empty())
                std::printf("| %s | %d | %s | %s%s%s | %s |\n", r.name.c_str(), r.gpus, size_name(r.bytes).c_str(),
                            r.nccl_algorithm.c_str(), r.nccl_protocol.empty() ? "" : "/", r.nccl_protocol.c_str(),
                            r.picked.c_str());
        std::printf(
            "\n#### Held-out summary against the goals\n\n| goal | rows | worst abs error | median abs error |"
            " within |\n|---|---:|---:|---:|---:|\n");
        struct Band {
            const char* name;
            std::uint64_t lo, hi;
            double goal;
        };
        for (const Band& band : {Band{">= 1 GiB, each within 10%", GiB, ~0ull, .10},
                                 Band{">= 4 MiB, each within 15%", 4 * MiB, ~0ull, .15},
                                 Band{"32 KiB - 2 MiB, each within 30%", 32 * KiB, 2 * MiB, .30}}) {
            std::vector<double> e;
            int within = 0;
            for (const auto& r : rows())
                if (r.set == "held_out" && r.measured && r.bytes >= band.lo && r.bytes <= band.hi) {
                    e.push_back(std::abs(r.error()));
                    within += std::abs(r.error()) <= band.goal;
                }
            const double worst = e.empty() ? 0 : *std::max_element(e.begin(), e.end());
            std::printf("| %s | %d | %.1f%% | %.1f%% | %d |\n", band.name, static_cast<int>(e.size()), 100 * worst,
                        100 * median(e), within);
        }
        std::printf("| median of >= 1 GiB within 5%% | %d | | %.1f%% | |\n",
                    static_cast<int>(held_out_large_errors().size()), 100 * median(held_out_large_errors()));
    }

    // Every name in kKnownMisses is a row of the data file (a renamed row would hide a miss).
    void knownMissesAreRows() {
        for (const auto& [key, why] : kKnownMisses) {
            const std::string name = key.substr(0, key.find('#'));
            const bool found = std::any_of(rows().begin(), rows().end(),
                                           [&n = name](const Row& r) { return r.name == n; });
            QVERIFY2(found, name.c_str());
        }
    }

    // nccl_chunking.h's kSimpleStepOverheadUs is the least-squares fit, on log time, over the tune
    // rows that run ring/Simple and no other row: refitting it here lands on the constant.
    void stepOverheadIsTheTuneFit() {
        struct Point {
            double base_us, extra_steps, measured_us;
        };
        std::vector<Point> points;
        for (const auto& r : rows()) {
            if (r.set != "tune" || !r.measured || r.picked != "ring/Simple") continue;
            const Op op = *op_from_name(r.op);
            const auto& res = r.result;
            const auto steps = nccl::simple_chunk_steps(r.fabric, op, res.algorithm, res.protocol, r.bytes);
            const double base = res.time_s * 1e6 -
                                nccl::chunking_overhead_us(r.fabric, op, res.algorithm, res.protocol, r.bytes);
            const double measured = r.bytes * busbw_factor(op, r.gpus) / (*r.measured * 1e3);
            points.push_back({base, steps.steps - steps.steps_full_chunk, measured});
        }
        QVERIFY(points.size() >= 10);
        double best = 0, best_sse = -1;
        for (int i = 0; i <= 300; ++i) {
            const double tau = i / 10.0;
            double sse = 0;
            for (const auto& p : points)
                sse += std::pow(std::log(p.base_us + tau * p.extra_steps) - std::log(p.measured_us), 2);
            if (best_sse < 0 || sse < best_sse) best_sse = sse, best = tau;
        }
        std::printf("step overhead fit on %d tune rows: %.1f us\n", static_cast<int>(points.size()), best);
        QVERIFY2(std::abs(best - nccl::kSimpleStepOverheadUs) < 0.05, QByteArray::number(best, 'f', 1));
    }

    void tuneRows_data() { band_rows("tune", 32 * KiB, ~0ull); }
    void tuneRows() {
        QFETCH(int, index);
        if (!bound(rows().at(static_cast<std::size_t>(index)).bytes)) QSKIP("no goal below 32 KiB");
        check_row(index);
    }

    void heldOutLarge_data() { band_rows("held_out", GiB, ~0ull); }
    void heldOutLarge() {
        QFETCH(int, index);
        check_row(index);
    }

    void heldOutMedian() {
        const auto e = held_out_large_errors();
        QVERIFY(!e.empty());
        const double m = median(e);
        QVERIFY2(m <= 0.05, QByteArray::number(100 * m, 'f', 1) + "% median");
    }

    void heldOutCurve_data() { band_rows("held_out", 4 * MiB, GiB - 1); }
    void heldOutCurve() {
        QFETCH(int, index);
        check_row(index);
    }

    void heldOutSmall_data() { band_rows("held_out", 32 * KiB, 2 * MiB); }
    void heldOutSmall() {
        QFETCH(int, index);
        check_row(index);
    }

    void algorithmAgrees_data() {
        QTest::addColumn<int>("index");
        const auto& rs = rows();
        for (std::size_t i = 0; i < rs.size(); ++i)
            if (!rs[i].nccl_algorithm.empty()) QTest::newRow(rs[i].name.c_str()) << static_cast<int>(i);
    }
    void algorithmAgrees() {
        QFETCH(int, index);
        const Row& r = rows().at(static_cast<std::size_t>(index));
        const std::string model = r.picked.substr(0, r.picked.find('/'));
        const std::string protocol = r.picked.substr(r.picked.find('/') + 1);
        const std::string nccl = r.nccl_algorithm + (r.nccl_protocol.empty() ? "" : "/" + r.nccl_protocol);
        const std::string msg = r.name + ": NCCL picked " + nccl + ", the model " + r.picked;
        if (const auto miss = kKnownMisses.find(r.name + "#algorithm"); miss != kKnownMisses.end()) {
            const QByteArray why = QByteArray(msg.c_str()) + " -- " + miss->second.c_str();
            QEXPECT_FAIL("", why.constData(), Abort);
        }
        QVERIFY2(model == r.nccl_algorithm && (r.nccl_protocol.empty() || protocol == r.nccl_protocol), msg.c_str());
    }
};

QTEST_APPLESS_MAIN(TestNetworkAccuracy)
#include "tst_network_accuracy.moc"
