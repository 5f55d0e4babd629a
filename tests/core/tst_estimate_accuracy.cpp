// Step-time / MFU / peak-memory predictions against published measurements
// (tests/data/estimate_accuracy.json, mirrored in docs/accuracy.md). Constants are fitted
// on the rows marked "tune"; the done-when targets are asserted on the "held_out" rows:
// mean |step-time error| <= 10%, worst <= 25%, Llama 3 405B (16K H100) MFU in 0.38-0.48,
// peak memory within 10% where the source prints it. A target the model does not meet is
// marked QEXPECT_FAIL with the measured figure, and listed in docs/accuracy.md.
#include "accuracy_table.h"

#include <QtTest>

#include <algorithm>
#include <cmath>
#include <set>

using namespace paraplan;
using namespace paraplan::estimate;
using namespace paraplan::accuracy_table;

namespace {

struct Summary {
    int n = 0;
    double mean_abs = 0, worst = 0;
    std::string worst_name;
    int mem_n = 0, mem_within = 0;   // rows with a published peak memory; of which within 10%
    double mem_mean_abs = 0, mem_worst = 0;
};

Summary summarise(const std::vector<Outcome>& all, const std::string& set) {
    Summary s;
    for (const auto& o : all) {
        if (o.set != set) continue;
        ++s.n;
        s.mean_abs += std::abs(o.step_err);
        if (std::abs(o.step_err) > std::abs(s.worst)) {
            s.worst = o.step_err;
            s.worst_name = o.name;
        }
        if (o.mem_published > 0) {
            const double me = o.mem_predicted / o.mem_published - 1;
            ++s.mem_n;
            s.mem_mean_abs += std::abs(me);
            s.mem_worst = std::max(s.mem_worst, std::abs(me));
            s.mem_within += std::abs(me) <= 0.10;
        }
    }
    if (s.n) s.mean_abs /= s.n;
    if (s.mem_n) s.mem_mean_abs /= s.mem_n;
    qInfo(
        "%s: %d runs, mean |step error| %.1f%%, worst %+.1f%% (%s); memory: %d runs, mean |error| %.1f%%, worst %.1f%%",
        set.c_str(), s.n, 100 * s.mean_abs, 100 * s.worst, s.worst_name.c_str(), s.mem_n, 100 * s.mem_mean_abs,
        100 * s.mem_worst);
    return s;
}

}   // namespace

class TestEstimateAccuracy : public QObject {
    Q_OBJECT
private slots:
    void table_is_complete() {
        // Every row names its source, how the step time was derived, and its set; the table
        // holds at least 40 measured runs.
        const auto table = load_table();
        QVERIFY(table.at("runs").size() >= 40);
        int held = 0;
        for (const auto& r : table.at("runs")) {
            QVERIFY2(!r.value("source", "").empty(), qPrintable(QString::fromStdString(r.at("name"))));
            // How the step time was derived ("derived" in the MoE rows' spelling).
            QVERIFY2(!r.value("derivation", r.value("derived", "")).empty(),
                     qPrintable(QString::fromStdString(r.at("name"))));
            const std::string set = r.at("set");
            QVERIFY(set == "tune" || set == "held_out");
            held += set == "held_out";
        }
        QVERIFY(held >= 20);
    }

    void published_runs_data() {
        QTest::addColumn<int>("index");
        const auto table = load_table();
        for (std::size_t i = 0; i < table.at("runs").size(); ++i)
            QTest::newRow(table["runs"][i].at("name").get<std::string>().c_str()) << int(i);
    }
    void published_runs() {
        QFETCH(int, index);
        const auto table = load_table();
        Outcome o;
        try {
            o = run(table.at("runs").at(index), table.value("models", nlohmann::json::object()));
        } catch (const std::exception& e) {
            QFAIL(e.what());
        }
        QVERIFY(o.step_predicted > 0 && std::isfinite(o.step_predicted));
        // Rows the constants were fitted on stay close (the fit is not allowed to trade one
        // tune row for another); held-out rows are judged together below.
        if (o.set == "tune")
            QVERIFY2(std::abs(o.step_err) <= o.tolerance, qPrintable(QString("step error %1").arg(o.step_err)));
        // The published runs ran: they fit (rows marked fit_check: false are the known
        // exceptions, explained in docs/accuracy.md).
        if (o.fit_check) QVERIFY(o.fits);
    }

    void held_out_targets() {
        const auto all = run_all();
        const Summary tune = summarise(all, "tune");
        const Summary held = summarise(all, "held_out");
        QVERIFY(tune.n > 0 && held.n >= 20);
        QVERIFY(tune.mean_abs <= 0.10);
        // The worst held-out row (torchtitan 8B TP 8 rowwise FP8, -23%) is inside the target;
        // the torchtitan 8B CP 2 run, which no mechanism found explains, sits at +19%
        // (docs/accuracy.md, "Misses").
        QVERIFY2(held.mean_abs <= 0.10, qPrintable(QString("held-out mean |error| %1").arg(held.mean_abs)));
        QVERIFY2(std::abs(held.worst) <= 0.25,
                 qPrintable(QString("held-out worst %1 (%2)").arg(held.worst).arg(held.worst_name.c_str())));
    }

    // Issue 27's goal for a category of three or more held-out runs, on the hybrid Mamba rows (a model
    // with a hybrid_override_pattern): mean |step error| <= 7%, worst <= 20%. Not met on the mean: the
    // five Nemotron 3 Nano rows of Megatron-Bridge 26.04.01 are 10-18% fast, mean 15.2%, worst -18.3%
    // (docs/accuracy.md, Misses). Kept from drifting: the worst holds the goal's 20%.
    void hybrid_mamba_held_out() {
        const auto table = load_table();
        const nlohmann::json models = table.value("models", nlohmann::json::object());
        std::set<std::string> hybrid;
        for (const auto& r : table.at("runs"))
            if (r.at("set") == "held_out" && model_of(r.at("model"), models).is_hybrid()) hybrid.insert(r.at("name"));
        QVERIFY(hybrid.size() >= 3);
        double mean = 0, worst = 0;
        for (const auto& o : run_all()) {
            if (!hybrid.count(o.name)) continue;
            mean += std::abs(o.step_err) / double(hybrid.size());
            worst = std::max(worst, std::abs(o.step_err));
        }
        qInfo("hybrid Mamba held out: %zu runs, mean |step error| %.1f%%, worst %.1f%%", hybrid.size(), 100 * mean,
              100 * worst);
        QVERIFY2(worst <= 0.20, qPrintable(QString("hybrid held-out worst |error| %1").arg(worst)));
        if (mean > 0.07)
            QEXPECT_FAIL("", "hybrid Mamba held-out mean |step error| above 7% (docs/accuracy.md, Misses)", Continue);
        QVERIFY2(mean <= 0.07, qPrintable(QString("hybrid held-out mean |error| %1").arg(mean)));
    }

    void llama3_405b_mfu() {
        // Dubey et al. 2024 Table 4: 38-43% BF16 MFU on 8K-16K H100s; the target band 0.38-0.48.
        // Not met since the row's schedule was read from the paper (V = 8, p. 11; it had assumed
        // v = 2): the estimate is faster than the run (docs/accuracy.md, Misses). Kept from
        // drifting further: the MFU stays above the published 0.41 by at most 20%.
        for (const auto& o : run_all()) {
            if (o.name.rfind("Llama 3 405B, 16K GPUs (", 0) != 0) continue;
            QVERIFY2(o.mfu >= 0.38 && o.mfu <= 0.41 * 1.20, qPrintable(QString("MFU %1").arg(o.mfu)));
            if (o.mfu > 0.48) QEXPECT_FAIL("", "Llama 3 405B 16K MFU above 0.48 (docs/accuracy.md, Misses)", Continue);
            QVERIFY2(o.mfu <= 0.48, qPrintable(QString("MFU %1").arg(o.mfu)));
            return;
        }
        QFAIL("the Llama 3 405B 16K row is missing");
    }

    void peak_memory_within_10_percent() {
        const auto all = run_all();
        const Summary held = summarise(all, "held_out");
        QVERIFY(held.mem_n > 0);
        // Known misses (docs/accuracy.md): torchtitan's 405B pp 8 runs reserve 11-19% more than
        // the model counts; every other held-out row (10 of 16) is within 10%. Mean, worst and that
        // count are kept from regressing.
        QVERIFY2(held.mem_mean_abs <= 0.08,
                 qPrintable(QString("held-out memory mean |error| %1").arg(held.mem_mean_abs)));
        QVERIFY2(held.mem_worst <= 0.20, qPrintable(QString("held-out memory worst |error| %1").arg(held.mem_worst)));
        QVERIFY2(held.mem_within >= 10,
                 qPrintable(QString("held-out memory rows within 10%: %1").arg(held.mem_within)));
        if (held.mem_worst > 0.10)
            QEXPECT_FAIL("", "held-out peak memory beyond 10% on some rows (docs/accuracy.md)", Continue);
        QVERIFY2(held.mem_worst <= 0.10, qPrintable(QString("held-out memory worst |error| %1").arg(held.mem_worst)));
    }
};

QTEST_APPLESS_MAIN(TestEstimateAccuracy)
#include "tst_estimate_accuracy.moc"
