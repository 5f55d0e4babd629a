// The error band an estimate carries (estimate/error_band.h, estimate --json time.step_s_band):
// the held-out rows of the accuracy table are fixed (tests/data/estimate_held_out.json), the
// errors the library ships are those rows' errors as the model prices them today, and a band built
// without a run covers that run at the rate it states.
#include "accuracy_table.h"
#include "estimate/error_band.h"
#include "project/project.h"
#include "util/input_error.h"

#include <QtTest>

#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <set>

using namespace paraplan;
using namespace paraplan::estimate;
using namespace paraplan::accuracy_table;

namespace {

nlohmann::json load_json(const std::string& path) {
    std::ifstream f(path);
    return nlohmann::json::parse(f);
}

const std::string kShipped = PARAPLAN_SOURCE_DIR "/resources/catalog/held_out_errors.json";

// The held-out rows as resources/catalog/held_out_errors.json holds them.
nlohmann::json shipped_form(const std::vector<Outcome>& all) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& o : all) {
        if (o.set != "held_out") continue;
        runs.push_back({{"name", o.name},
                        {"family", o.kind.family},
                        {"precision", o.kind.precision},
                        {"framework", o.kind.framework},
                        {"arch", o.kind.arch},
                        {"error", std::round(o.step_err * 1e4) / 1e4}});
    }
    return {{"about",
             "Step errors (predicted / published - 1) of the held-out rows of tests/data/estimate_accuracy.json "
             "as the estimate prices them; written by tst_error_band with PARAPLAN_WRITE_HELD_OUT_ERRORS=1 and "
             "checked against the table on every run. estimate/error_band.h builds the error band from them."},
            {"runs", runs}};
}

}   // namespace

class TestErrorBand : public QObject {
    Q_OBJECT
private slots:
    // A held-out row is never tuned on: the table's held-out rows are exactly the registry's, each
    // with the day it was added, so moving one to "tune" or dropping it fails here.
    void held_out_rows_are_fixed() {
        const auto table = load_table();
        const auto registry = load_json(PARAPLAN_TEST_DATA "/estimate_held_out.json");
        std::set<std::string> listed, held;
        for (const auto& r : registry.at("rows")) {
            const std::string added = r.at("added");
            QVERIFY2(added.size() == 10 && added[4] == '-' && added[7] == '-',
                     qPrintable(QString::fromStdString(added)));
            QVERIFY(!r.at("commit").get<std::string>().empty());
            QVERIFY2(listed.insert(r.at("name")).second, "a row is listed twice");
        }
        for (const auto& r : table.at("runs"))
            if (r.at("set") == "held_out") held.insert(r.at("name"));
        for (const auto& n : listed)
            QVERIFY2(held.count(n), qPrintable("held out since it was added, now not: " + QString::fromStdString(n)));
        for (const auto& n : held)
            QVERIFY2(listed.count(n), qPrintable("a new held-out row needs its date in estimate_held_out.json: " +
                                                 QString::fromStdString(n)));
        QVERIFY(listed.size() >= 20);
    }

    // What the library ships is what the model prices today: a change to the model that moves a
    // held-out error moves the band with it (rewrite with PARAPLAN_WRITE_HELD_OUT_ERRORS=1).
    void shipped_errors_match_the_table() {
        const nlohmann::json want = shipped_form(run_all());
        if (std::getenv("PARAPLAN_WRITE_HELD_OUT_ERRORS")) {
            // One run a line, so that a change to the model shows as the runs it moved.
            std::ofstream out(kShipped);
            out << "{\n \"about\": " << want.at("about").dump() << ",\n \"runs\": [\n";
            const auto& runs = want.at("runs");
            for (std::size_t i = 0; i < runs.size(); ++i)
                out << "  " << runs[i].dump() << (i + 1 < runs.size() ? ",\n" : "\n");
            out << " ]\n}\n";
            QSKIP("wrote resources/catalog/held_out_errors.json");
        }
        const std::vector<HeldOutError>& shipped = held_out_errors();
        const auto& runs = want.at("runs");
        QCOMPARE(int(shipped.size()), int(runs.size()));
        for (std::size_t i = 0; i < runs.size(); ++i) {
            const auto& w = runs[i];
            const auto& s = shipped[i];
            const QString what = QString::fromStdString(s.name) +
                                 " (regenerate: PARAPLAN_WRITE_HELD_OUT_ERRORS=1 core_tst_error_band)";
            QVERIFY2(s.name == w.at("name"), qPrintable(what));
            QVERIFY2(s.kind.family == w.at("family") && s.kind.precision == w.at("precision") &&
                         s.kind.framework == w.at("framework") && s.kind.arch == w.at("arch"),
                     qPrintable(what));
            QVERIFY2(std::abs(s.error - w.at("error").get<double>()) < 1e-3, qPrintable(what));
        }
    }

    // Leave one out: each held-out run's band is built from the others, and the run's published
    // step must fall inside it at least as often as the bands say they would, less two binomial
    // standard deviations for a sample this small.
    void band_covers_runs_it_was_not_built_from() {
        const std::vector<HeldOutError>& all = held_out_errors();
        QVERIFY(all.size() >= 20);
        int inside = 0;
        double expected = 0, variance = 0;
        for (std::size_t i = 0; i < all.size(); ++i) {
            std::vector<HeldOutError> others = all;
            others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
            const double predicted = 10.0;
            const double published = predicted / (1 + all[i].error);
            const StepBand b = step_band(predicted, all[i].kind, others);
            QVERIFY(b.runs >= kMinBandRuns);
            QVERIFY(b.low_s <= b.high_s);
            inside += published >= b.low_s * (1 - 1e-9) && published <= b.high_s * (1 + 1e-9);
            expected += b.coverage;
            variance += b.coverage * (1 - b.coverage);
        }
        qInfo("leave-one-out: %d of %zu held-out runs inside their band; the bands state %.1f", inside, all.size(),
              expected);
        QVERIFY2(inside >= expected - 2 * std::sqrt(variance),
                 qPrintable(QString("%1 inside, %2 stated").arg(inside).arg(expected)));
    }

    // The band's arithmetic and its groupings on hand-made runs: the narrowest grouping with three
    // runs wins, the ends are the predicted step over (1 + the largest and smallest error).
    void band_takes_the_narrowest_grouping_with_three_runs() {
        const RunKind h100{"dense", "fp8", "megatron", "hopper"};
        std::vector<HeldOutError> runs = {
            {"a", h100, 0.10},
            {"b", h100, -0.05},
            {"c", {"dense", "fp8", "megatron", "blackwell"}, 0.20},
            {"d", {"dense", "bf16", "torchtitan", "hopper"}, -0.20},
        };
        // Two runs share everything with h100: not enough, so the architecture is dropped.
        StepBand b = step_band(10, h100, runs);
        QCOMPARE(b.runs, 3);
        QCOMPARE(b.alike, (std::vector<std::string>{"family", "precision", "framework"}));
        QCOMPARE(b.low_error, -0.05);
        QCOMPARE(b.high_error, 0.20);
        QVERIFY(std::abs(b.low_s - 10 / 1.20) < 1e-12);
        QVERIFY(std::abs(b.high_s - 10 / 0.95) < 1e-12);
        QVERIFY(std::abs(b.coverage - 0.5) < 1e-12);
        // A third Hopper FP8 Megatron run: now the narrowest grouping holds three.
        runs.push_back({"e", h100, 0.02});
        b = step_band(10, h100, runs);
        QCOMPARE(b.alike.size(), std::size_t(4));
        QCOMPARE(b.high_error, 0.10);
        // A MoE run has no MoE neighbours here: every field is dropped, all five runs.
        b = step_band(10, {"moe", "fp8", "megatron", "hopper"}, runs);
        QVERIFY(b.alike.empty());
        QCOMPARE(b.runs, 5);
        // Too few runs in all: no band, the prediction alone.
        b = step_band(10, h100, std::span(runs).first(2));
        QCOMPARE(b.low_s, 10.0);
        QCOMPARE(b.high_s, 10.0);
    }

    void bad_shipped_file_names_the_field() {
        try {
            parse_held_out_errors(R"({"runs": [{"name": "x", "family": "dense", "precision": "fp4",
                                     "framework": "megatron", "arch": "hopper", "error": 0.1}]})");
            QFAIL("fp4 accepted");
        } catch (const InputError& e) {
            QVERIFY2(QString(e.what()).contains("/runs/0/precision"), e.what());
        }
    }

    // estimate --json carries the band around the step it prints.
    void estimate_json_carries_the_band() {
        const Project p = load_project(PARAPLAN_SOURCE_DIR "/resources/examples/llama3.1-70b-4nodes.paraplan.json");
        const Estimate e = estimate_project(p);
        const nlohmann::json j = to_json(e);
        const auto& band = j.at("time").at("step_s_band");
        QCOMPARE(band.size(), std::size_t(2));
        const double step = j.at("time").at("step_s");
        QVERIFY(band[0].get<double>() > 0 && band[0].get<double>() <= band[1].get<double>());
        QVERIFY(band[0].get<double>() < step * 1.5 && band[1].get<double>() > step / 1.5);
        QVERIFY(j.at("time").at("step_s_band_basis").at("runs").get<int>() >= kMinBandRuns);
    }
};

QTEST_APPLESS_MAIN(TestErrorBand)
#include "tst_error_band.moc"
