// A journey on 131,072 GPUs through the real main window (issue 31, item 9: "a 131k-GPU project
// edited and undone many times with memory and time checked"). No bundled example is that large, so
// the project is tests/scale_project.h's at 16,384 nodes x 8 GPUs, written to a file with keys
// Paraplan does not know and opened as File > Open opens it. Then 32 edits as a person makes them:
// Layout fields typed and committed with Enter or Tab, choices turned with the arrow keys, a switch
// with Space, nodes selected with the mouse and deleted, a node dragged by its grip, a node renamed
// (F2) and the project renamed (Edit > Rename Project…) through their dialogs, a node template
// dropped. Every edit is undone with Ctrl+Z, ten are redone with Ctrl+Shift+Z and undone again.
// Checked:
//  - each step's outcome, and after undoing everything the saved file byte for byte (the unknown
//    keys included) and the Layout fields and canvas showing the opened values; each redo gives
//    back the project that edit made;
//  - time, per step: the GUI thread's longest time away from its event loop (StallMeter) and the
//    wall time from the input to the views refreshed with the step's analysis; bounds below;
//  - memory: the heap in use (glibc, after malloc_trim) per step: an edit that leaves the cluster
//    alone keeps under 1 MiB, one that changes the cluster keeps at most one copy of it (measured
//    here) plus 1 MiB, and undo and redo keep nothing new (the history is flat over a cycle).
// Run alone (RUN_SERIAL in tests/CMakeLists.txt): another process's load on the same cores would
// count as a stall.
#include "../scale_project.h"
#include "canvas/canvasview.h"
#include "canvas/clustercanvas.h"
#include "guitest.h"
#include "journey_input.h"
#include "plan/layoutpanel.h"
#include "canvas/nodeitem.h"
#include "projectdocument.h"
#include "stall_meter.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDrag>
#include <QElapsedTimer>
#include <QFile>
#include <QInputDialog>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <QThreadPool>
#include <QTimer>
#include <QUndoStack>

#include <malloc.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <vector>

using paraplan::Project;

namespace {
constexpr int kScreenW = 1280, kScreenH = 800;   // a small laptop, as tst_journeys
constexpr int kNodes = 16384;                    // x 8 GPUs = 131,072
constexpr double kMiB = 1024.0 * 1024.0;

// Bounds, and why:
//  - 300 ms: the longest the GUI thread may stay away from its event loop in any step, of its own
//    time (StallMeter::longestOwnMs: the wall-clock gap less the time it waited for a core, so a
//    loaded machine does not fail it; the wall-clock gap is printed beside it). Issue 31
//    states its 100 ms stall bound at 16,384 GPUs (tst_journeys holds that size to it); at 131,072
//    it measured edits at 0.1-0.3 s. The layout edits, undos and redos stay well under 100 ms of
//    the GUI thread's own work here, but an edit of the cluster checks its 16,384 nodes through
//    the file form on the GUI thread (60-90 ms of its CPU, 100-180 ms wall on this shared 2-core
//    machine; docs/benchmarks.md), so 100 ms is not met at this size and is not asserted.
//  - The time from the committing input to the views refreshed is reported, not asserted: on a
//    machine shared with builds it is mostly the worker's analysis waiting for a core.
//  - 1 MiB: the undo history a step that leaves the cluster alone may keep (tst_undo_memory's
//    bound at the document); a cluster edit may keep one copy of the cluster besides (measured
//    below), since the nodes are copy-on-write and a change copies them once.
constexpr double kStallMs = 300.0, kStepMiB = 1.0;

std::size_t heapInUse() {
    malloc_trim(0);
    const struct mallinfo2 m = mallinfo2();
    return m.uordblks + m.hblkhd;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// The project's file form, hashed: what the undo and redo checks compare, without keeping 32
// copies of a 16,384-node JSON on the heap being measured.
std::size_t digest(const Project& p) { return std::hash<std::string>{}(paraplan::project_to_json(p).dump()); }

// Answers the next text dialog (QInputDialog::getText, run in its own event loop) as a person
// does: the text selected, `text` typed over it, Enter.
class AnswerTextDialog {
public:
    explicit AnswerTextDialog(QString text) : text_(std::move(text)) {
        timer_.setInterval(10);
        QObject::connect(&timer_, &QTimer::timeout, &timer_, [this] {
            auto* d = shownDialog<QInputDialog>();
            if (!d || QApplication::activeWindow() != d) return;
            auto* edit = d->findChild<QLineEdit*>();
            ++answered_;
            if (!edit) return d->reject();
            edit->setFocus();
            QTest::keyClick(edit, Qt::Key_A, Qt::ControlModifier);
            QTest::keyClicks(edit, text_);
            QTest::keyClick(edit, Qt::Key_Return);
            if (d->isVisible()) d->reject();   // never left open: the test fails instead of hanging
        });
        timer_.start();
    }
    int answered() const { return answered_; }

private:
    QString text_;
    QTimer timer_;
    int answered_ = 0;
};

struct Step {
    QString name;
    double ms = 0, stallMs = 0, ownMs = 0, busyMs = 0, heapMiB = 0;   // StallMeter: wall, own, busy
    bool cluster = false;   // the step replaced the cluster (kept one more in the history)
};
double median(const std::vector<Step>& steps, double Step::*field) {
    std::vector<double> v;
    for (const Step& s : steps) v.push_back(s.*field);
    if (v.empty()) return 0;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

double worst(const std::vector<Step>& steps, double Step::*field) {
    double w = 0;
    for (const Step& s : steps) w = std::max(w, s.*field);
    return w;
}
}   // namespace

class TestJourney131k : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void editedAndUndoneAt131kGpus() {
        // --- The file: 131,072 GPUs and keys of another tool's. ---------------------------------
        nlohmann::json file = paraplan::project_to_json(scale_project(kNodes));
        file["x_other_tool"] = {{"sweep", "s-7"}, {"tags", {"a", "b"}}};
        file["layout"]["x_note"] = "kept";
        const QString path = tmp_.filePath(QStringLiteral("big.paraplan.json"));
        {
            QFile f(path);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write(QByteArray::fromStdString(file.dump(2)));
        }

        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec")));
        w.show();
        w.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&w));
        ProjectDocument* doc = w.document();
        QUndoStack* undo = doc->undoStack();
        const auto settle = [doc] {   // as tst_journeys: the views' refresh and deferred work
            const bool ok = doc->waitForAnalysis();
            QTest::qWait(300);
            return ok;
        };

        // --- Open, as File > Open does (the issue: 0.6 s), twice; the first also warms up. -------
        double openMs = 0, openedMs = 0;
        const auto open = [&] {
            QElapsedTimer t;
            t.start();
            if (!w.openFile(path) || !w.waitForOpen()) return false;   // read off the GUI thread
            openMs = double(t.nsecsElapsed()) / 1e6;
            if (!doc->waitForAnalysis()) return false;
            openedMs = double(t.nsecsElapsed()) / 1e6;
            qInfo("131,072 GPUs: opened in %.0f ms, its analysis shown at %.0f ms", openMs, openedMs);
            return settle();
        };
        QVERIFY(open());
        QCOMPARE(w.project().world_size(), 131072);
        // The heap once no worker runs (the analysis, the step playback, the autosave, which
        // serialises the whole project): a reading counts what is kept, not a transient.
        const auto idleHeap = [&] {
            QList<QThreadPool*> pools = w.findChildren<QThreadPool*>();
            pools << QThreadPool::globalInstance();
            const bool idle = QTest::qWaitFor(
                [&] {
                    return std::all_of(pools.begin(), pools.end(),
                                       [](QThreadPool* pool) { return pool->activeThreadCount() == 0; });
                },
                30000);
            QTest::qWait(20);   // what the workers handed back is delivered
            return idle ? heapInUse() : std::size_t(0);
        };
        // One layout edit and one cluster edit, undone: what is built once (caches, the history
        // view) is built before the heap is measured. Opening again drops their history.
        auto* tp = w.layoutPanel()->findChild<QComboBox*>(QStringLiteral("tp"));
        QVERIFY(tp && tp->lineEdit() && focus(tp->lineEdit()));
        QVERIFY(press(Qt::Key_A, Qt::ControlModifier));
        QTest::keyClicks(tp->lineEdit(), QStringLiteral("8"));
        QVERIFY(press(Qt::Key_Return) && settle());
        QVERIFY(w.canvas()->deleteNodes({1}) && settle());
        QVERIFY(focus(w.canvas()->view()));
        QVERIFY(press(Qt::Key_Z, Qt::ControlModifier) && press(Qt::Key_Z, Qt::ControlModifier) && settle());
        QVERIFY(open());
        QCOMPARE(undo->count(), 0);
        // The file as Paraplan writes it (its key order and indent): the reference for "byte for byte".
        const QString saved0 = tmp_.filePath(QStringLiteral("saved0.json"));
        QVERIFY(w.saveFile(saved0));
        const QByteArray original = readAll(saved0);
        QVERIFY(original.contains("\"x_other_tool\"") && original.contains("\"x_note\""));
        QVERIFY(original.contains("\"kept\""));
        const Project start = w.project();
        std::vector<std::size_t> digests{digest(start)};

        // What one copy of the cluster costs: a copy of it changed in one node (the nodes are
        // copy-on-write: the change copies all 16,384). A cluster edit may keep this much.
        double clusterMiB = 0;
        {
            paraplan::Cluster copy = start.cluster;
            const std::size_t before = idleHeap();   // no worker starts until the event loop runs
            copy.nodes[0].name = "copied";
            clusterMiB = (double(heapInUse()) - double(before)) / kMiB;
        }
        qInfo("131,072 GPUs: one copy of the cluster's 16,384 nodes: %.2f MiB", clusterMiB);
        QVERIFY(clusterMiB > 0.5);   // it measured a copy

        // The heap with the opened project shown and no history: after undoing every edit the same
        // project is shown again, so what the heap holds more then is the history.
        const std::size_t heapOpened = idleHeap();

        // --- Each step measured: its stalls from its first input until 300 ms after its analysis
        // was shown; its time from the input that commits it (Enter, Tab, the arrow, Delete, the
        // drop) until then (`committing()` marks it; a step that does not, from its first input).
        std::vector<Step> edits, undos, redos;
        QElapsedTimer clock;
        const auto committing = [&clock] { clock.start(); };
        const auto measure = [&](std::vector<Step>& into, const QString& name, const std::function<bool()>& body) {
            const int clusters = doc->historyClusters();
            const std::size_t heapBefore = idleHeap();
            Step s{name};
            bool ok = false;
            {
                StallMeter meter;
                QTest::qWait(20);   // its timer has ticked: the body's own time is a gap it measures
                clock.start();
                ok = body() && doc->waitForAnalysis();
                s.ms = double(clock.nsecsElapsed()) / 1e6;
                QTest::qWait(300);
                s.stallMs = meter.longestMs();
                s.ownMs = meter.longestOwnMs();
                s.busyMs = meter.longestBusyMs();
            }
            s.heapMiB = (double(idleHeap()) - double(heapBefore)) / kMiB;
            s.cluster = doc->historyClusters() != clusters;
            qInfo("131,072 GPUs, %-44s %6.0f ms, stall %6.1f ms (own %5.1f, busy %5.1f), heap %+7.2f MiB%s",
                  qPrintable(name + QLatin1Char(':')), s.ms, s.stallMs, s.ownMs, s.busyMs, s.heapMiB,
                  s.cluster ? " (cluster)" : "");
            into.push_back(s);
            return ok;
        };
        const auto edit = [&](const QString& name, const std::function<bool()>& body) {
            const int count = undo->count();
            const bool ok = measure(edits, name, body) && undo->count() == count + 1;
            digests.push_back(digest(w.project()));
            return ok;
        };

        // Layout fields, as typed or turned from the keyboard.
        LayoutPanel* panel = w.layoutPanel();
        const auto field = [panel](const char* name) { return panel->findChild<QWidget*>(QLatin1String(name)); };
        const auto type = [&](const char* name, const QString& text, Qt::Key commit) {
            QWidget* f = field(name);
            if (auto* c = qobject_cast<QComboBox*>(f); c && c->lineEdit()) f = c->lineEdit();
            if (!f || !focus(f) || !press(Qt::Key_A, Qt::ControlModifier)) return false;
            QTest::keyClicks(QApplication::focusWidget(), text);
            committing();
            return press(commit);
        };
        const auto key = [&](const char* name, Qt::Key k) {
            QWidget* f = field(name);
            if (!f || !focus(f)) return false;
            committing();
            return press(k);
        };
        const auto layoutRound = [&](int round) {
            const bool first = round == 0;
            const Qt::Key enter = Qt::Key_Return, tab = Qt::Key_Tab;
            const int tpV = first ? 8 : 2, ppV = first ? 32 : 16, gbsV = first ? 65536 : 32768;
            const int seqV = first ? 2048 : 4096, mbsV = first ? 2 : 1, zeroV = first ? 1 : 2;
            const int mbV = first ? 128 : 64;
            const paraplan::Recompute recompute = first ? paraplan::Recompute::selective : paraplan::Recompute::full;
            const paraplan::Offload offload = first ? paraplan::Offload::cpu : paraplan::Offload::nvme;
            const paraplan::Precision precision = first ? paraplan::Precision::fp16 : paraplan::Precision::tf32;
            // The schedule combo lists its table's names (gpipe, 1f1b, ...): Up from 1f1b, Down back.
            const paraplan::Schedule schedule = first ? paraplan::Schedule::gpipe : paraplan::Schedule::one_f_one_b;
            bool ok = true;
            ok = ok && edit(QStringLiteral("tp typed %1, Enter").arg(tpV), [&] {
                     return type("tp", QString::number(tpV), first ? enter : tab) && w.project().layout.tp == tpV;
                 });
            ok = ok && edit(QStringLiteral("pp typed %1").arg(ppV), [&] {
                     return type("pp", QString::number(ppV), first ? tab : enter) && w.project().layout.pp == ppV;
                 });
            ok = ok && edit(QStringLiteral("global batch typed %1").arg(gbsV), [&] {
                     return type("global_batch_size", QString::number(gbsV), first ? enter : tab) &&
                            w.project().training.global_batch_size == gbsV;
                 });
            ok = ok && edit(QStringLiteral("sequence length typed %1").arg(seqV), [&] {
                     return type("seq_len", QString::number(seqV), first ? tab : enter) &&
                            w.project().training.seq_len == seqV;
                 });
            ok = ok && edit(QStringLiteral("microbatch size typed %1").arg(mbsV), [&] {
                     return type("micro_batch_size", QString::number(mbsV), first ? enter : tab) &&
                            w.project().training.micro_batch_size == mbsV;
                 });
            ok = ok && edit(QStringLiteral("ZeRO stage typed %1").arg(zeroV), [&] {
                     return type("zero_stage", QString::number(zeroV), first ? tab : enter) &&
                            w.project().layout.zero_stage == zeroV;
                 });
            ok = ok && edit(QStringLiteral("recompute: Down"), [&] {
                     return key("recompute", Qt::Key_Down) && w.project().layout.recompute == recompute;
                 });
            ok = ok && edit(QStringLiteral("precision: Up"), [&] {
                     return key("precision", Qt::Key_Up) && w.project().training.precision == precision;
                 });
            const bool flash = w.project().layout.flash_attention;
            ok = ok && edit(QStringLiteral("flash attention: Space"), [&] {
                     return key("flash_attention", Qt::Key_Space) && w.project().layout.flash_attention != flash;
                 });
            ok = ok &&
                 edit(QStringLiteral("schedule: %1").arg(first ? QStringLiteral("Up") : QStringLiteral("Down")), [&] {
                     return key("schedule", first ? Qt::Key_Up : Qt::Key_Down) &&
                            w.project().layout.schedule == schedule;
                 });
            ok = ok && edit(QStringLiteral("microbatches typed %1").arg(mbV), [&] {
                     return type("num_microbatches", QString::number(mbV), first ? enter : tab) &&
                            w.project().layout.num_microbatches == mbV;
                 });
            ok = ok && edit(QStringLiteral("offload: Down"),
                            [&] { return key("offload", Qt::Key_Down) && w.project().layout.offload == offload; });
            return ok;
        };

        // The canvas: a node found with Ctrl+G, then the mouse on what shows.
        ClusterCanvas* canvas = w.canvas();
        CanvasView* view = canvas->view();
        QWidget* port = view->viewport();
        const auto goTo = [&](const QString& name) {
            if (!focus(view) || !press(Qt::Key_G, Qt::ControlModifier)) return false;
            QTest::keyClicks(QApplication::focusWidget(), name);
            if (!press(Qt::Key_Return)) return false;
            QTest::qWait(50);   // the frame drawn at the new zoom (its level of detail) before a click
            return true;
        };
        // Where a point of node `n`'s item shows in the viewport; nullopt when out of sight.
        const auto shown = [&](int n, QPointF itemPos) -> std::optional<QPoint> {
            const QPoint at = view->mapFromScene(canvas->nodeItems()[std::size_t(n)]->mapToScene(itemPos));
            return port->rect().adjusted(4, 4, -4, -4).contains(at) ? std::optional(at) : std::nullopt;
        };
        const auto title = [&](int n) {   // the title bar, away from the grip: a press there selects
            return shown(
                n, QPointF(canvas->nodeItems()[std::size_t(n)]->boundingRect().width() / 2, NodeItem::kHeader / 2.0));
        };
        const auto indexOf = [&](const std::string& name) {
            for (std::size_t i = 0; i < w.project().cluster.nodes.size(); ++i)
                if (w.project().cluster.nodes[i].name == name) return int(i);
            return -1;
        };
        // A node beside node `n` whose title bar shows, or -1; the view zoomed out a wheel notch at
        // a time (at most five: the grips still show) until one does.
        const auto neighbour = [&](int n) {
            for (int notch = 0; notch <= 5; ++notch) {
                if (notch > 0) {
                    wheel(port, -1);
                    QTest::qWait(50);
                }
                for (int d : {1, -1, 2, -2, 3, -3})
                    if (n + d >= 0 && n + d < int(w.project().cluster.nodes.size()) && title(n + d)) return n + d;
            }
            return -1;
        };
        const auto deleteTwo = [&](const std::string& name) {
            return edit(
                QStringLiteral("Ctrl+G %1, click it and a neighbour, Delete").arg(QString::fromStdString(name)), [&] {
                    const std::size_t before = w.project().cluster.nodes.size();
                    const int n = indexOf(name);
                    if (n < 0 || !goTo(QString::fromStdString(name))) return false;
                    const int m = neighbour(n);
                    if (m < 0 || !title(n)) return false;
                    QTest::mouseClick(port, Qt::LeftButton, {}, *title(n));
                    QTest::mouseClick(port, Qt::LeftButton, Qt::ControlModifier, *title(m));
                    if (canvas->selectedNodes() != std::vector<int>{std::min(n, m), std::max(n, m)}) return false;
                    if (!focus(view)) return false;
                    committing();
                    return press(Qt::Key_Delete) && w.project().cluster.nodes.size() == before - 2 && indexOf(name) < 0;
                });
        };
        // Node `name` dragged by its grip onto a neighbour: it takes the neighbour's place. Offscreen
        // a QDrag ends as soon as it starts, so its data is dropped where the mouse let go, as the
        // window system delivers a drop.
        const auto dragNode = [&](const std::string& name) {
            return edit(QStringLiteral("node %1 dragged by its grip").arg(QString::fromStdString(name)), [&] {
                const int n = indexOf(name);
                if (n < 0 || !goTo(QString::fromStdString(name))) return false;
                const int m = neighbour(n);
                const auto grip = shown(n, canvas->nodeItems()[std::size_t(n)]->gripRect().center());
                if (m < 0 || !grip) return false;
                const auto to = shown(m, canvas->nodeItems()[std::size_t(m)]->boundingRect().center());
                if (!to) return false;
                QTest::mousePress(port, Qt::LeftButton, {}, *grip);
                QMimeData carried;
                for (int step = 1; step <= NodeItem::reorderDragDistance() + 4; ++step) {
                    QTest::mouseMove(port, *grip + QPoint(step, 0));
                    if (auto* drag = port->findChild<QDrag*>(); drag && drag->mimeData())
                        for (const QString& f : drag->mimeData()->formats())
                            carried.setData(f, drag->mimeData()->data(f));
                }
                QTest::mouseRelease(port, Qt::LeftButton, {}, *to);
                if (carried.formats().isEmpty()) return false;   // no drag started
                committing();
                return dropMime(port, *to, carried, Qt::MoveAction) && indexOf(name) == m;
            });
        };
        const auto renameNode = [&](const std::string& name, const QString& to) {
            return edit(QStringLiteral("node %1 renamed (F2)").arg(QString::fromStdString(name)), [&] {
                const int n = indexOf(name);
                if (n < 0 || !goTo(QString::fromStdString(name)) || !title(n)) return false;
                QTest::mouseClick(port, Qt::LeftButton, {}, *title(n));
                AnswerTextDialog answer(to);
                if (!focus(view)) return false;
                committing();                           // the dialog's typing and Enter included
                if (!press(Qt::Key_F2)) return false;   // returns when the dialog closed
                return answer.answered() == 1 && w.project().cluster.nodes[std::size_t(n)].name == to.toStdString();
            });
        };
        const auto renameProject = [&](const QString& to) {
            return edit(QStringLiteral("project renamed (Edit > Rename Project)"), [&] {
                auto* a = w.findChild<QAction*>(QStringLiteral("renameProjectAction"));
                if (!a) return false;
                AnswerTextDialog answer(to);
                committing();
                a->trigger();   // as the menu item does; returns when the dialog closed
                return answer.answered() == 1 && w.project().name == to.toStdString();
            });
        };
        const auto dropNode = [&] {
            return edit(QStringLiteral("node template dropped on the canvas"), [&] {
                const std::size_t before = w.project().cluster.nodes.size();
                return dropTemplate(port, QPoint(20, port->height() - 20), w.project().cluster.nodes[0].gpu, 8) &&
                       w.project().cluster.nodes.size() == before + 1;
            });
        };

        // --- 32 edits. --------------------------------------------------------------------------
        QVERIFY(w.raiseView(QStringLiteral("layout")));
        QVERIFY(layoutRound(0));
        QVERIFY(deleteTwo("n5"));
        QVERIFY(dragNode("n40"));
        QVERIFY(renameNode("n77", QStringLiteral("spare-77")));
        QVERIFY(renameProject(QStringLiteral("journey at 131k")));
        QVERIFY(dropNode());
        QVERIFY(w.raiseView(QStringLiteral("layout")));
        QVERIFY(layoutRound(1));
        QVERIFY(edit(QStringLiteral("framework: Down"), [&] {
            return key("framework", Qt::Key_Down) && w.project().layout.framework != start.layout.framework;
        }));
        QVERIFY(deleteTwo("n9000"));
        QVERIFY(dragNode("n16000"));
        const int n = int(edits.size());
        QCOMPARE(n, 32);
        QCOMPARE(undo->count(), n);

        // --- Ctrl+Z to the start: each step gives back the project before its edit. ------------
        for (int i = n; i > 0; --i) {
            QVERIFY(focus(view));
            QVERIFY(measure(undos, QStringLiteral("Ctrl+Z of ") + edits[std::size_t(i - 1)].name,
                            [&] { return press(Qt::Key_Z, Qt::ControlModifier) && undo->index() == i - 1; }));
            QCOMPARE(digest(w.project()), digests[std::size_t(i - 1)]);
        }
        QVERIFY(!undo->canUndo());
        QVERIFY(undo->isClean());
        QVERIFY(!doc->isModified());
        const std::size_t heapUndone = idleHeap();
        // The saved file, byte for byte, the unknown keys among it.
        const QString saved1 = tmp_.filePath(QStringLiteral("saved1.json"));
        QVERIFY(w.saveFile(saved1));
        QVERIFY(readAll(saved1) == original);
        QVERIFY(w.project() == start);
        // The window shows what was opened.
        const auto text = [&](const char* name) {
            auto* c = qobject_cast<QComboBox*>(field(name));
            return c ? c->currentText().toStdString() : std::string("?");
        };
        const auto value = [&](const char* name) {
            auto* s = qobject_cast<QSpinBox*>(field(name));
            return s ? s->value() : -1;
        };
        QCOMPARE(text("tp"), std::to_string(start.layout.tp));
        QCOMPARE(text("pp"), std::to_string(start.layout.pp));
        QCOMPARE(text("framework"), start.layout.framework);
        QCOMPARE(text("recompute"), std::string(to_string(start.layout.recompute)));
        QCOMPARE(text("precision"), std::string(to_string(start.training.precision)));
        QCOMPARE(text("offload"), std::string(to_string(start.layout.offload)));
        QCOMPARE(text("schedule"), std::string(to_string(start.layout.schedule)));
        QCOMPARE(value("global_batch_size"), start.training.global_batch_size);
        QCOMPARE(value("seq_len"), start.training.seq_len);
        QCOMPARE(value("micro_batch_size"), start.training.micro_batch_size);
        QCOMPARE(value("zero_stage"), start.layout.zero_stage);
        QCOMPARE(value("num_microbatches"), start.layout.num_microbatches);
        auto* flash = qobject_cast<QCheckBox*>(field("flash_attention"));
        QVERIFY(flash && flash->isChecked() == start.layout.flash_attention);
        QVERIFY2(w.windowTitle().contains(QString::fromStdString(start.name)), qPrintable(w.windowTitle()));
        QCOMPARE(canvas->nodeItems().size(), std::size_t(kNodes));

        // --- Ctrl+Shift+Z ten times, each the project its edit made; Ctrl+Z back. --------------
        QVERIFY(focus(view));
        const int redone = 10;
        for (int i = 1; i <= redone; ++i) {
            QVERIFY(measure(redos, QStringLiteral("Ctrl+Shift+Z of ") + edits[std::size_t(i - 1)].name, [&] {
                return press(Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier) && undo->index() == i;
            }));
            QCOMPARE(digest(w.project()), digests[std::size_t(i)]);
        }
        for (int i = redone; i > 0; --i)
            QVERIFY(measure(undos, QStringLiteral("Ctrl+Z again of ") + edits[std::size_t(i - 1)].name,
                            [&] { return press(Qt::Key_Z, Qt::ControlModifier) && undo->index() == i - 1; }));
        QVERIFY(w.project() == start);
        const std::size_t heapCycled = idleHeap();

        // --- Time. -------------------------------------------------------------------------------
        std::vector<Step> layoutEdits, clusterSteps;
        for (const Step& s : edits) (s.cluster ? clusterSteps : layoutEdits).push_back(s);
        for (const auto& [what, steps] :
             {std::pair{"layout edits", &layoutEdits}, std::pair{"cluster edits", &clusterSteps},
              std::pair{"undos", &undos}, std::pair{"redos", &redos}})
            qInfo(
                "131,072 GPUs, %d %s, median (max): input to views %.0f ms (%.0f), stall %.1f ms (%.1f), "
                "own %.1f ms (%.1f), busy %.1f ms (%.1f)",
                int(steps->size()), what, median(*steps, &Step::ms), worst(*steps, &Step::ms),
                median(*steps, &Step::stallMs), worst(*steps, &Step::stallMs), median(*steps, &Step::ownMs),
                worst(*steps, &Step::ownMs), median(*steps, &Step::busyMs), worst(*steps, &Step::busyMs));
        QStringList over;
        for (const auto* steps : {&edits, &undos, &redos})
            for (const Step& s : *steps) {
                if (s.ownMs >= kStallMs)
                    over << QStringLiteral("%1: stall %2 ms of its own (wall %3)")
                                .arg(s.name)
                                .arg(s.ownMs, 0, 'f', 1)
                                .arg(s.stallMs, 0, 'f', 1);
            }
        // --- Memory: the opened project is shown at the three readings, so what differs is history.
        // Per step the heap also swings with the analysis of the state shown (tens of MiB between
        // two layouts at this size), which is why the bounds are on the same state.
        int clusterEdits = 0;
        for (const Step& s : edits) clusterEdits += s.cluster;
        QCOMPARE(clusterEdits, 6);                         // two deletes, two drags, a rename, a drop
        QVERIFY(heapOpened && heapUndone && heapCycled);   // each read with no worker running
        const double historyMiB = (double(heapUndone) - double(heapOpened)) / kMiB;
        const double cycleMiB = (double(heapCycled) - double(heapUndone)) / kMiB;
        const double historyBound = (n - clusterEdits) * kStepMiB + clusterEdits * (clusterMiB + kStepMiB);
        qInfo(
            "131,072 GPUs: the history of %d edits (%d of the cluster) holds %.2f MiB (bound %.1f); "
            "10 redos and their undos then %+.2f MiB",
            n, clusterEdits, historyMiB, historyBound, cycleMiB);
        if (historyMiB >= historyBound) over << QStringLiteral("the history holds %1 MiB").arg(historyMiB, 0, 'f', 2);
        if (std::abs(cycleMiB) >= kStepMiB)
            over << QStringLiteral("redo and undo again: heap %1 MiB").arg(cycleMiB, 0, 'f', 2);
        QVERIFY2(over.isEmpty(), qPrintable(over.join(QStringLiteral("; "))));
    }
};

PARAPLAN_SCREEN_TEST_MAIN(TestJourney131k, "laptop", kScreenW, kScreenH)

#include "tst_journey_131k.moc"
