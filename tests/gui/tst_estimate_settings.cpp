// The estimate's own settings in the Layout dock (issue #13): FP8 with its recipe and
// all-gather, the kernel stack, the mixture-of-experts fields and the cluster profile are
// edited there as undo steps, and reach the estimate every view shows. A profile that
// cannot be read is a finding naming the file, never a silent fall-back to none.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "plan/diagnosticspanel.h"
#include "estimate/moe.h"
#include "estimate/profile.h"
#include "guitest.h"
#include "plan/layoutpanel.h"
#include "mainwindow.h"
#include "views/memoryview.h"
#include "plan/plannerpanel.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QProcess>
#include <QSignalSpy>
#include <QApplication>
#include <QTest>

#include <algorithm>

namespace {

const QString kCalibrate = QStringLiteral(PARAPLAN_TEST_DATA "/calibrate/torchtitan-h100-500w/");

// The step time every view shows: the memory and time view's estimate, read after it refreshed.
double shownStep(MainWindow& w) {
    if (!w.document()->waitForAnalysis()) return -1;
    w.memoryView()->refresh();
    const auto& e = w.memoryView()->estimate();
    return e ? e->time.step_s : -1;
}

// Picks the combo entry whose data (else text) is `value` by typing its text on the closed
// combo, as a user does (one activation, so one undo step). False when there is no such entry;
// what the choice did is for the caller to check (the project's field).
bool choose(QComboBox* c, const QString& value) {
    int to = c->findData(value);
    if (to < 0) to = c->findText(value);
    if (to < 0) return false;
    c->setFocus();
    QTest::qWait(QApplication::keyboardInputInterval() + 10);   // a new search, not the last one's tail
    QTest::keyClicks(c, c->itemText(to));
    return true;
}

template <class T>
T* field(MainWindow& w, const char* name) {
    return w.layoutPanel()->findChild<T*>(QString::fromLatin1(name));
}

const paraplan::Diagnostic* finding(const std::vector<paraplan::Diagnostic>& ds, const std::string& rule) {
    const auto it = std::find_if(ds.begin(), ds.end(), [&](const auto& d) { return d.rule == rule; });
    return it == ds.end() ? nullptr : &*it;
}

}   // namespace

class TestEstimateSettings : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    std::unique_ptr<MainWindow> shown(const char* example) { return shownExampleWindow(tmp_, example); }

    // The project of the cluster the profile was fitted on (128 H100s, Llama 3.1 8B, FSDP).
    std::unique_ptr<MainWindow> calibratedClusterWindow() {
        auto w = exampleWindow(tmp_, "gpt2-1node");
        w->setProject(paraplan::load_project((kCalibrate + "llama3.1-8b-fsdp-128gpu.paraplan.json").toStdString()),
                      QString());
        w->show();
        if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
        return w;
    }
    static bool runPlanner(PlannerPanel* p) {
        QApplication::processEvents();   // the search the panel starts when first shown
        if (p->isRunning()) {
            QSignalSpy first(p, &PlannerPanel::finished);
            if (!first.wait(60'000)) return false;
        }
        QSignalSpy started(p, &PlannerPanel::started), done(p, &PlannerPanel::finished);
        p->run();
        if (started.isEmpty()) return false;   // refused to start
        return !done.isEmpty() || done.wait(60'000);
    }
    static double bestPlannedStep(const PlannerPanel* p) {
        double best = -1;
        for (const auto& e : p->result().results)
            if (best < 0 || e.step_s < best) best = e.step_s;
        return best;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
        // The user's profiles folder (profile_dir()) lies in this test's own config folder.
        qputenv("XDG_CONFIG_HOME", tmp_.filePath(QStringLiteral("config")).toUtf8());
        QVERIFY(QDir().mkpath(QString::fromStdString(paraplan::estimate::profile_dir())));
        // The profile "titan", fitted by the real calibrate from a recorded torchtitan log.
        QProcess cal;
        cal.start(QStringLiteral(PARAPLAN_CLI), {QStringLiteral("calibrate"), kCalibrate + "runs-fit.csv",
                                                 QStringLiteral("--name"), QStringLiteral("titan")});
        QVERIFY(cal.waitForFinished(120000));
        QVERIFY2(cal.exitCode() == 0, cal.readAllStandardError().constData());
        QVERIFY(QFile::exists(QString::fromStdString(paraplan::estimate::profile_path("titan"))));
    }

    void fp8ChangesTheShownStepTime() {
        auto w = shown("llama3.1-70b-4nodes");   // 32 H100s, bf16
        QVERIFY(w);
        auto* fp8 = field<QCheckBox>(*w, "fp8");
        auto* recipe = field<QComboBox>(*w, "fp8_recipe");
        auto* gather = field<QCheckBox>(*w, "fp8_all_gather");
        QVERIFY(fp8 && recipe && gather);
        QVERIFY(!w->project().layout.fp8);
        QVERIFY(!recipe->isEnabled() && !gather->isEnabled());   // only with FP8 on
        const double bf16 = shownStep(*w);
        QVERIFY(bf16 > 0);

        fp8->click();
        const double withFp8 = shownStep(*w);
        QVERIFY(w->project().layout.fp8);
        QVERIFY(recipe->isEnabled() && gather->isEnabled());
        // FP8 linear layers only (attention, norms, communication stay 16-bit): faster, by far less than 2x.
        QVERIFY2(withFp8 < 0.97 * bf16 && withFp8 > 0.5 * bf16,
                 qPrintable(QStringLiteral("%1 s with FP8, %2 s bf16").arg(withFp8).arg(bf16)));
        QCOMPARE(w->document()->analysis()->estimate->time.step_s, withFp8);
        QCOMPARE(w->document()->undoStack()->undoText(), QStringLiteral("Set fp8 to on"));

        w->document()->undoStack()->undo();
        QCOMPARE(shownStep(*w), bf16);
        QVERIFY(!fp8->isChecked());
        QVERIFY(!recipe->isEnabled());
    }

    void recipeIsWrittenAndUndone() {
        auto w = shown("llama3.1-70b-4nodes");
        QVERIFY(w);
        field<QCheckBox>(*w, "fp8")->click();
        QVERIFY(w->document()->waitForAnalysis());
        auto* recipe = field<QComboBox>(*w, "fp8_recipe");
        QCOMPARE(recipe->currentText(), QStringLiteral("tensorwise"));
        QVERIFY(choose(recipe, QStringLiteral("rowwise")));
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.fp8_recipe, paraplan::Fp8Recipe::rowwise);
        QCOMPARE(w->document()->undoStack()->undoText(), QStringLiteral("Set fp8_recipe to rowwise"));
        QVERIFY(paraplan::project_to_json(w->project())["layout"]["fp8_recipe"] == "rowwise");

        w->document()->undoStack()->undo();
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.fp8_recipe, paraplan::Fp8Recipe::tensorwise);
        QCOMPARE(recipe->currentText(), QStringLiteral("tensorwise"));
        QVERIFY(w->project().layout.fp8);   // only the recipe step was undone

        // The all-gather switch writes its field too.
        field<QCheckBox>(*w, "fp8_all_gather")->click();
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(w->project().layout.fp8_all_gather);
    }

    void kernelStackShowsWhatAutoMeans() {
        auto w = shown("gpt2-1node");
        QVERIFY(w);
        auto* k = field<QComboBox>(*w, "kernels");
        QVERIFY(k);
        QCOMPARE(k->currentData().toString(), QStringLiteral("auto"));
        const QString resolved = QLatin1String(paraplan::to_string(paraplan::kernel_stack(w->project().layout)));
        QVERIFY(k->currentText().contains(resolved));
        const double before = shownStep(*w);
        const QString other = resolved == QLatin1String("te") ? QStringLiteral("eager") : QStringLiteral("te");
        QVERIFY(choose(k, other));
        const double after = shownStep(*w);
        QCOMPARE(QString(QLatin1String(paraplan::to_string(w->project().layout.kernels))), other);
        QVERIFY2(after != before, qPrintable(QStringLiteral("%1 s with %2 and %3").arg(after).arg(other).arg(before)));
        // "auto" follows the framework: Megatron builds its layers from Transformer Engine.
        QVERIFY(choose(k, QStringLiteral("auto")));
        QVERIFY(w->document()->applyChanges(QStringLiteral("megatron"), {{"/layout/framework", "megatron"}}));
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(k->itemText(0), QStringLiteral("auto (te)"));
    }

    void moeFieldsOnlyForModelsWithExperts() {
        auto dense = shown("llama3.1-70b-4nodes");
        QVERIFY(dense);
        QVERIFY(!field<QComboBox>(*dense, "moe_dispatcher")->isVisibleTo(dense->layoutPanel()));
        dense.reset();

        auto w = shown("mixtral-8x7b-2nodes-ep");
        QVERIFY(w);
        auto* imbalance = field<QDoubleSpinBox>(*w, "moe_imbalance");
        QVERIFY(imbalance && imbalance->isVisibleTo(w->layoutPanel()));
        QCOMPARE(w->project().layout.moe_imbalance, 0.0);
        QCOMPARE(imbalance->text(), QStringLiteral("default (%1)").arg(paraplan::estimate::kDefaultMoeImbalance));
        const double assumed = shownStep(*w);
        // Perfectly balanced routing: the busiest expert GPU no longer waits for extra tokens.
        imbalance->setValue(1.0);
        const double balanced = shownStep(*w);
        QCOMPARE(w->project().layout.moe_imbalance, 1.0);
        QVERIFY2(balanced < assumed, qPrintable(QStringLiteral("%1 vs %2").arg(balanced).arg(assumed)));
        // Back to the minimum: the project's 0 ("default") again.
        imbalance->setValue(imbalance->minimum());
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.moe_imbalance, 0.0);

        auto* capacity = field<QDoubleSpinBox>(*w, "moe_capacity_factor");
        QCOMPARE(capacity->text(), QStringLiteral("dropless"));
        capacity->setValue(1.25);
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.moe_capacity_factor, 1.25);
        QVERIFY(choose(field<QComboBox>(*w, "moe_dispatcher"), QStringLiteral("allgather")));
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.moe_dispatcher, paraplan::MoeDispatcher::allgather);
        field<QCheckBox>(*w, "moe_overlap")->click();
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(w->project().layout.moe_overlap);
    }

    // Megatron's --tp-comm-overlap is a checkbox in FP8 and kernels: ticking it hides part of the
    // tp 8 collectives behind the GEMMs, so the shown step falls; it is off while tp is 1 unless set.
    void tpCommOverlapChangesTheShownStepTime() {
        auto w = shown("llama3.1-70b-4nodes");   // tp 8, split_gather
        QVERIFY(w);
        auto* overlap = field<QCheckBox>(*w, "tp_comm_overlap");
        auto* async = field<QCheckBox>(*w, "enable_async_tensor_parallel");
        QVERIFY(overlap && async);
        QVERIFY(overlap->isEnabled() && !overlap->isChecked());
        QVERIFY(choose(field<QComboBox>(*w, "framework"), QStringLiteral("megatron")));
        QVERIFY(w->document()->waitForAnalysis());
        QCOMPARE(w->project().layout.framework, std::string("megatron"));
        const double exposed = shownStep(*w);
        overlap->click();
        const double hidden = shownStep(*w);
        QVERIFY(w->project().layout.tp_comm_overlap);
        QVERIFY2(hidden < 0.95 * exposed, qPrintable(QStringLiteral("%1 vs %2").arg(hidden).arg(exposed)));
        // torchtitan's switch does nothing under Megatron.
        async->click();
        QVERIFY(w->project().layout.enable_async_tensor_parallel);
        QCOMPARE(shownStep(*w), hidden);
        // One undo step per click.
        QTest::keyClick(w.get(), Qt::Key_Z, Qt::ControlModifier);
        QTest::keyClick(w.get(), Qt::Key_Z, Qt::ControlModifier);
        QVERIFY(!w->project().layout.tp_comm_overlap);
        QCOMPARE(shownStep(*w), exposed);

        auto small = shown("mixtral-8x7b-2nodes-ep");
        QVERIFY(small);
        QCOMPARE(small->project().layout.tp, 1);
        QVERIFY(!field<QCheckBox>(*small, "tp_comm_overlap")->isEnabled());
        QVERIFY(!field<QCheckBox>(*small, "enable_async_tensor_parallel")->isEnabled());
        // Set at tp 1 (a file says so): the box is on and can be clicked off.
        QVERIFY(small->document()->applyChanges(QStringLiteral("overlap"), {{"/layout/tp_comm_overlap", true}}));
        QVERIFY(small->document()->waitForAnalysis());
        auto* unused = field<QCheckBox>(*small, "tp_comm_overlap");
        QVERIFY(unused->isEnabled() && unused->isChecked());
        unused->click();
        QVERIFY(small->document()->waitForAnalysis());
        QVERIFY(!small->project().layout.tp_comm_overlap);
        QVERIFY(!unused->isEnabled());
    }

    // A profile fitted by the real `paraplan-cli calibrate` from a recorded torchtitan log,
    // then one written elsewhere and opened as a file.
    void profileFromCalibrateChangesTheEstimate() {
        auto w = calibratedClusterWindow();
        QVERIFY(w);
        auto* profile = field<QComboBox>(*w, "profile");
        QVERIFY(profile);
        QCOMPARE(profile->currentData().toString(), QString());    // none
        QVERIFY(profile->findData(QStringLiteral("titan")) > 0);   // found in the profiles folder
        const double plain = shownStep(*w);
        QVERIFY(plain > 0);

        QVERIFY(choose(profile, QStringLiteral("titan")));
        const double fitted = shownStep(*w);
        QCOMPARE(paraplan::estimate::project_profile(w->project()).value_or(""), std::string("titan"));
        // The fit found this cluster slower than the built-in constants (power-capped H100s).
        QVERIFY2(fitted > 1.05 * plain, qPrintable(QStringLiteral("%1 vs %2").arg(fitted).arg(plain)));
        QCOMPARE(w->document()->analysis()->estimate->hardware.gemm_scale,
                 paraplan::estimate::load_profile("titan").gemm);

        // Open file...: a profile kept anywhere, written as profile_to_json writes it.
        paraplan::estimate::Profile slow;
        slow.name = "half-speed";
        slow.gemm = 0.5;
        const QString file = tmp_.filePath(QStringLiteral("elsewhere/half-speed.json"));
        paraplan::estimate::save_profile(slow, file.toStdString());
        w->layoutPanel()->setProfileFileChooser([file] { return file; });
        QVERIFY(choose(profile, QStringLiteral("Open file...")));
        const double half = shownStep(*w);
        QCOMPARE(QString::fromStdString(paraplan::estimate::project_profile(w->project()).value_or("")), file);
        QVERIFY2(half > fitted, qPrintable(QStringLiteral("%1 vs %2").arg(half).arg(fitted)));
        QCOMPARE(profile->currentText(), QStringLiteral("half-speed.json"));

        // Each choice is one undo step; undo goes back to the named profile, then to none.
        w->document()->undoStack()->undo();
        QCOMPARE(shownStep(*w), fitted);
        QCOMPARE(profile->currentData().toString(), QStringLiteral("titan"));
        w->document()->undoStack()->undo();
        QCOMPARE(shownStep(*w), plain);
        QVERIFY(!paraplan::estimate::project_profile(w->project()));
        QVERIFY(!w->project().extra.contains("estimate"));
    }

    // The planner searches with the project's profile: its step times follow the choice, a change
    // of profile makes earlier results stale, and an unreadable profile stops it with the file named.
    void plannerUsesTheProfile() {
        auto w = calibratedClusterWindow();
        QVERIFY(w);
        PlannerPanel* planner = w->plannerPanel();
        planner->setConstraints(QStringLiteral("tp=1,pp=1,mbs=2"));
        QVERIFY2(runPlanner(planner), qPrintable(planner->summaryText()));
        const double plain = bestPlannedStep(planner);
        QVERIFY(plain > 0);
        QVERIFY(!planner->isStale());

        QVERIFY(w->layoutPanel()->setProfile(QStringLiteral("titan")));
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(planner->isStale());
        QVERIFY(runPlanner(planner));
        const double fitted = bestPlannedStep(planner);
        QVERIFY2(fitted > 1.05 * plain, qPrintable(QStringLiteral("%1 vs %2").arg(fitted).arg(plain)));

        const QString bad = tmp_.filePath(QStringLiteral("planner-bad.json"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"gemm\": -2}\n");   // JSON, but not a multiplier
        }
        QVERIFY(w->layoutPanel()->setProfile(bad));
        QVERIFY(w->document()->waitForAnalysis());
        QVERIFY(!runPlanner(planner));
        QVERIFY2(planner->summaryText().contains(bad) && planner->summaryText().contains(QStringLiteral("gemm")),
                 qPrintable(planner->summaryText()));
        const auto* d = finding(w->document()->diagnostics(), "estimate.profile");
        QVERIFY(d);
        QVERIFY2(QString::fromStdString(d->message).contains(bad), d->message.c_str());
    }

    void malformedProfileIsAFindingNamingTheFile() {
        const QString bad = tmp_.filePath(QStringLiteral("bad-profile.json"));
        {
            QFile f(bad);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"paraplan_profile\": 1, \"gemm\": 0.8,\n");   // cut off
        }
        auto w = shown("llama3.1-70b-4nodes");
        QVERIFY(w);
        const double plain = shownStep(*w);
        const auto* summary = w->findChild<QLabel*>(QStringLiteral("statusSummary"));
        const auto* dock = w->findChild<QDockWidget*>(QStringLiteral("diagnosticsDock"));
        QVERIFY(summary && dock);
        const auto warnings = [](int n) {
            return n == 1 ? QStringLiteral("1 warning") : QStringLiteral("%1 warnings").arg(n);
        };
        const int errors = w->diagnosticsPanel()->count(paraplan::Severity::Error);
        const int before = w->diagnosticsPanel()->count(paraplan::Severity::Warning);
        w->layoutPanel()->setProfileFileChooser([bad] { return bad; });
        QVERIFY(choose(field<QComboBox>(*w, "profile"), QStringLiteral("Open file...")));
        QVERIFY(w->document()->waitForAnalysis());

        // No estimate from a profile that cannot be read, and the findings say which file and why.
        const auto a = w->document()->analysis();
        QVERIFY(!a->estimate);
        QVERIFY(QString::fromStdString(a->estimate_error).contains(bad));
        const auto* d = finding(w->diagnosticsPanel()->diagnostics(), "estimate.profile");
        QVERIFY(d);
        QVERIFY2(QString::fromStdString(d->message).contains(bad) &&
                     QString::fromStdString(d->message).contains(QStringLiteral("not JSON")),
                 d->message.c_str());
        QCOMPARE(d->fields, std::vector<std::string>{"/estimate/profile"});
        // The status bar and the dock title count the finding the list shows.
        QCOMPARE(w->diagnosticsPanel()->count(paraplan::Severity::Warning), before + 1);
        QVERIFY2(summary->text().endsWith(QStringLiteral(" · ") + warnings(before + 1)), qPrintable(summary->text()));
        QCOMPARE(dock->windowTitle(), QStringLiteral("Diagnostics (%1)").arg(errors + before + 1));
        QVERIFY(w->layoutPanel()->fieldWidget(QStringLiteral("/estimate/profile"))->property("invalid").toBool());
        w->memoryView()->refresh();
        QVERIFY(!w->memoryView()->estimate());
        QVERIFY(w->memoryView()->errorText().contains(bad));

        // A named profile that is not there: its name and the path looked for.
        QVERIFY(w->layoutPanel()->setProfile(QStringLiteral("no-such-cluster")));
        QVERIFY(w->document()->waitForAnalysis());
        d = finding(w->document()->diagnostics(), "estimate.profile");
        QVERIFY(d);
        QVERIFY2(QString::fromStdString(d->message)
                     .contains(QString::fromStdString(paraplan::estimate::profile_path("no-such-cluster"))),
                 d->message.c_str());
        QVERIFY(field<QComboBox>(*w, "profile")->currentText().contains(QStringLiteral("missing")));

        // Its fix estimates without a profile again.
        QVERIFY(!d->fixes.empty());
        QVERIFY(w->document()->applyChanges(QString::fromStdString(d->fixes[0].label), d->fixes[0].changes));
        QCOMPARE(shownStep(*w), plain);
        QVERIFY(!finding(w->document()->diagnostics(), "estimate.profile"));
        QCOMPARE(w->diagnosticsPanel()->count(paraplan::Severity::Warning), before);
        QCOMPARE(summary->text().contains(QStringLiteral("warning")), before > 0);
    }
};

QTEST_MAIN(TestEstimateSettings)
#include "tst_estimate_settings.moc"
