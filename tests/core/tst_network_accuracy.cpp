// The collective model against published nccl-tests results (tests/data/network/nccl_tests.json).
// Goals on the held-out rows: every case >= 1 GiB within 10% and their median within 5%; every
// point >= 4 MiB within 15%; 32 KiB - 2 MiB within 30%. A goal the model misses stays the bound,
// marked QEXPECT_FAIL with the measured figure, and is listed in docs/accuracy.md.
#include "network/collective.h"
#include "network/systems.h"

#include <QtTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

using namespace paraplan::network;

namespace {

struct Row {
    std::string name, set;
    std::uint64_t bytes = 0;
    double measured = 0, model = 0;
    double error() const { return model / measured - 1; }
};

std::vector<Row> rows() {
    std::ifstream f(PARAPLAN_TEST_DATA "/network/nccl_tests.json");
    const auto j = nlohmann::json::parse(f);
    std::vector<Row> out;
    for (const auto& r : j.at("rows")) {
        const auto fabric = fabric_for(*find_system(r.at("system").get<std::string>()), r.at("gpus").get<int>());
        const auto op = *op_from_name(r.at("op").get<std::string>());
        const auto algo = *algorithm_from_name(r.value("algorithm", std::string("auto")));
        Row row{r.at("case"), r.at("set"), r.at("bytes"), r.at("busbw_gbs"), 0};
        row.model = price(fabric, op, row.bytes, algo).busbw_gbs;
        out.push_back(row);
    }
    return out;
}

double worst(const std::vector<Row>& rs, std::uint64_t lo, std::uint64_t hi) {
    double w = 0;
    for (const auto& r : rs)
        if (r.set == "held_out" && r.bytes >= lo && r.bytes <= hi) w = std::max(w, std::abs(r.error()));
    return w;
}

double median_large(const std::vector<Row>& rs) {
    std::vector<double> e;
    for (const auto& r : rs)
        if (r.set == "held_out" && r.bytes >= (1ull << 30)) e.push_back(std::abs(r.error()));
    if (e.empty()) return 0;
    std::sort(e.begin(), e.end());
    const auto n = e.size();
    return n % 2 ? e[n / 2] : (e[n / 2 - 1] + e[n / 2]) / 2;
}

}   // namespace

class TestNetworkAccuracy : public QObject {
    Q_OBJECT
private slots:
    void report() {
        for (const auto& r : rows())
            std::printf("%-26s %-8s %12llu bytes  measured %7.1f  model %7.1f  %+6.1f%%\n", r.name.c_str(),
                        r.set.c_str(), static_cast<unsigned long long>(r.bytes), r.measured, r.model, 100 * r.error());
        QVERIFY(!rows().empty());
    }

    void tuneRowsFit() { QVERIFY2(worst_tune() <= 0.10, "a tune row beyond 10%"); }

    void heldOutLarge() {
        const auto rs = rows();
        const double w = worst(rs, 1ull << 30, ~0ull);
        std::printf("held-out >= 1 GiB: worst %.1f%%, median %.1f%%\n", 100 * w, 100 * median_large(rs));
        QEXPECT_FAIL("", "gb200-2trays-allreduce: model +15.2% (NVLS on Blackwell, 16 channels of 40.1 GB/s)",
                     Continue);
        QVERIFY(w <= 0.10);
        QVERIFY(median_large(rs) <= 0.05);
    }

    void heldOutCurves() {
        const auto rs = rows();
        QEXPECT_FAIL("", "gb200-2trays-allreduce at 8 GiB: +15.2%", Continue);
        QVERIFY(worst(rs, 4ull << 20, ~0ull) <= 0.15);
        const auto small = std::count_if(rs.begin(), rs.end(), [](const Row& r) {
            return r.set == "held_out" && r.bytes >= (32ull << 10) && r.bytes <= (2ull << 20);
        });
        std::printf("held-out rows in 32 KiB - 2 MiB: %d\n", static_cast<int>(small));
        QVERIFY(worst(rs, 32ull << 10, 2ull << 20) <= 0.30);
    }

private:
    static double worst_tune() {
        double w = 0;
        for (const auto& r : rows())
            if (r.set == "tune") w = std::max(w, std::abs(r.error()));
        return w;
    }
};

QTEST_APPLESS_MAIN(TestNetworkAccuracy)
#include "tst_network_accuracy.moc"
