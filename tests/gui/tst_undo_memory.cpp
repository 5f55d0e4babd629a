// Undo at scale: on 131,072 GPUs (16,384 nodes) an edit that leaves the cluster alone adds
// well under 1 MB to the undo history (the snapshots share one cluster), and undo/redo still
// restore each project exactly, including a step that does change the cluster. The nodes are
// copy-on-write (core/util/cow_vector.h): every state reads the one copy of them.
#include "guitest.h"
#include "project/project.h"
#include "projectdocument.h"
#include "scale_project.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <malloc.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

using paraplan::Project;

namespace {
// Bytes the heap hands out now (glibc), after returning what it can.
std::size_t heapInUse() {
    malloc_trim(0);
    return mallinfo2().uordblks;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

// `count` strings of `bytes` characters each, no two alike.
nlohmann::json notes(int count, int bytes, char fill) {
    nlohmann::json a = nlohmann::json::array();
    for (int i = 0; i < count; ++i) a.push_back(std::to_string(i) + std::string(std::size_t(bytes), fill));
    return a;
}
// gpt2-1node with about 100 MB of keys Paraplan does not know (80 MB at the top level, 20 MB
// among the layout's), written to `path`; returns the file's JSON.
nlohmann::json writeBigProject(const QString& path) {
    nlohmann::json j = paraplan::project_to_json(paraplan::load_example("gpt2-1node"));
    j["notes_from_another_tool"] = notes(80 * 1024, 1000, 'n');
    j["layout"]["x_sweep_history"] = notes(20 * 1024, 1000, 'l');
    j["training"]["x_comment"] = "kept";
    const std::string text = j.dump(2) + "\n";
    QFile f(path);
    if (text.size() < 100'000'000 || !f.open(QIODevice::WriteOnly) ||
        f.write(text.data(), qint64(text.size())) != qint64(text.size()))
        qFatal("cannot write the test project %s", qPrintable(path));
    return j;
}
}   // namespace

class TestUndoMemory : public QObject {
    Q_OBJECT

    static Project largeProject() { return scale_project(16384); }   // 131,072 GPUs

private slots:
    void layoutEditsShareTheCluster() {
        ProjectDocument doc;
        const Project start = largeProject();
        doc.reset(start, QString());
        QCOMPARE(doc.project().world_size(), 131072);

        // Warm up one edit and its undo so lazily built state does not count.
        QVERIFY(doc.edit(QStringLiteral("warm"), [](Project& p) { p.training.seq_len = 1024; }));
        doc.undoStack()->undo();
        // Opening and editing analyse on a worker: let the analyses in flight land, so that the
        // heap counts the undo history and not a transient analysis.
        QVERIFY(doc.waitForAnalysis());

        const int steps = 8;
        const auto fields = [](const Project& p) { return std::pair(p.training.micro_batch_size, p.training.seq_len); };
        std::vector<std::pair<int, int>> seen{fields(doc.project())};
        seen.reserve(steps + 1);
        const std::size_t before = heapInUse();
        for (int i = 0; i < steps; ++i) {
            QVERIFY(doc.edit(QStringLiteral("Set micro batch"), [i](Project& p) {
                p.training.micro_batch_size = i % 2 ? 1 : 2;
                p.training.seq_len = 2048 + 64 * i;
            }));
            seen.push_back(fields(doc.project()));
        }
        QVERIFY(doc.waitForAnalysis());
        const std::size_t after = heapInUse();
        QCOMPARE(doc.undoStack()->count(), steps);   // the undone warm-up step was dropped by the first edit
        const double perStep = (double(after) - double(before)) / steps;
        qInfo("heap per undo step at 131,072 GPUs: %.1f KiB", perStep / 1024.0);
        QCOMPARE(doc.historyClusters(), 0);   // every state shares the one cluster
        // ... and the open project its nodes with the project it was opened from: no edit or undo
        // state copied the 16,384 nodes (they are copy-on-write).
        QVERIFY(doc.project().cluster.nodes.shares_with(start.cluster.nodes));
        QVERIFY2(perStep < 1024.0 * 1024.0, qPrintable(QStringLiteral("%1 bytes per step").arg(perStep)));

        // Undo walks back through every project exactly; redo forward again.
        for (int i = steps; i > 0; --i) {
            QCOMPARE(fields(doc.project()), seen[std::size_t(i)]);
            doc.undoStack()->undo();
        }
        QVERIFY(doc.project() == start);
        for (int i = 1; i <= steps; ++i) {
            doc.undoStack()->redo();
            QCOMPARE(fields(doc.project()), seen[std::size_t(i)]);
            QVERIFY(doc.project().cluster == start.cluster);
        }
        QVERIFY(doc.project().cluster.nodes.shares_with(start.cluster.nodes));
    }

    void clusterEditIsUndoneExactly() {
        ProjectDocument doc;
        const Project start = largeProject();
        doc.reset(start, QString());
        QVERIFY(doc.edit(QStringLiteral("Rename node"), [](Project& p) { p.cluster.nodes[77].name = "renamed"; }));
        QCOMPARE(doc.historyClusters(), 1);   // the replaced cluster, kept for undo
        QVERIFY(doc.edit(QStringLiteral("Set tp"), [](Project& p) { p.training.seq_len = 4096; }));
        QCOMPARE(QString::fromStdString(doc.project().cluster.nodes[77].name), QStringLiteral("renamed"));
        doc.undoStack()->undo();
        QCOMPARE(QString::fromStdString(doc.project().cluster.nodes[77].name), QStringLiteral("renamed"));
        QCOMPARE(doc.project().training.seq_len, start.training.seq_len);
        doc.undoStack()->undo();
        QVERIFY(doc.project() == start);
        doc.undoStack()->redo();
        doc.undoStack()->redo();
        QCOMPARE(QString::fromStdString(doc.project().cluster.nodes[77].name), QStringLiteral("renamed"));
        QCOMPARE(doc.project().training.seq_len, 4096);
    }

    // Field changes (the Layout panel's and the fixes' JSON pointers): those outside the cluster
    // leave it shared and still go through the loader's checks; those inside it replace it.
    void fieldChangesOutsideTheClusterLeaveItShared() {
        ProjectDocument doc;
        const Project start = largeProject();
        doc.reset(start, QString());
        QVERIFY(doc.applyChanges(QStringLiteral("Set tp"), {{"/layout/tp", 8}, {"/training/seq_len", 4096}}));
        QCOMPARE(doc.project().layout.tp, 8);
        QCOMPARE(doc.project().training.seq_len, 4096);
        QVERIFY(doc.project().cluster == start.cluster);
        QCOMPARE(doc.historyClusters(), 0);
        // The loader still checks the changed fields, and says where.
        QString err;
        QVERIFY(!doc.applyChanges(QStringLiteral("Bad"), {{"/layout/tp", "eight"}}, &err));
        QVERIFY2(err.contains(QStringLiteral("/layout/tp")), qPrintable(err));
        QVERIFY(!doc.applyChanges(QStringLiteral("Bad"), {{"/training/nope/x", 1}}, &err));
        QCOMPARE(doc.undoStack()->count(), 1);
        // A pointer into the cluster replaces it (checked too), and undo brings the old one back.
        QVERIFY(doc.applyChanges(QStringLiteral("Network"), {{"/cluster/network/inter_node_gbps", 800.0}}));
        QCOMPARE(doc.project().cluster.network.inter_node_gbps, 800.0);
        QCOMPARE(doc.historyClusters(), 1);
        QVERIFY(!doc.applyChanges(QStringLiteral("Bad"), {{"/cluster/nodes/3/gpus", -1}}, &err));
        QVERIFY2(err.contains(QStringLiteral("/cluster/nodes/3/gpus")), qPrintable(err));
        doc.undoStack()->undo();
        doc.undoStack()->undo();
        QVERIFY(doc.project() == start);
    }

    // A file with 100 MB of keys Paraplan does not know (kept only to be written back): 28 edits
    // (Layout panel fields and whole-project edits, one of them a cluster edit) each take under
    // 50 ms and 10 MB, undo brings back the file byte for byte, and the keys stay as they were.
    // Before the keys were shared between states, each edit copied them about four times
    // (1.3-4.5 s and ~176 MB an edit).
    void unknownKeysCostNothingPerEdit() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const QString file = dir.filePath(QStringLiteral("big.paraplan.json"));
        const nlohmann::json j = writeBigProject(file);
        ProjectDocument doc;
        doc.open(file);
        // The file as Paraplan writes it (its own key order and indent): the reference for "byte for byte".
        const QString saved0 = dir.filePath(QStringLiteral("saved0.json"));
        doc.saveAs(saved0);
        const QByteArray original = readAll(saved0);
        QVERIFY(original.size() > 100'000'000);
        QVERIFY(doc.waitForAnalysis());
        const Project start = doc.project();
        QVERIFY(start.extra.shares_with(doc.project().extra));

        const int edits = 28;
        double worstMs = 0, worstMiB = 0;
        for (int i = 0; i < edits; ++i) {
            QVERIFY(doc.waitForAnalysis());   // the worker's transient allocations are not the edit's
            const std::size_t before = heapInUse();
            QElapsedTimer t;
            t.start();
            bool ok = false;
            if (i == 13) {   // a cluster edit: the whole project makes the trip through the file form
                ok = doc.edit(QStringLiteral("Rename node"),
                              [i](Project& p) { p.cluster.nodes[0].name = "n" + std::to_string(i); });
            } else if (i % 2) {   // what the Layout panel does
                ok = doc.applyChanges(QStringLiteral("Set tokens"), {{"/training/train_tokens", 1'000'000'000LL + i}});
            } else {
                ok = doc.edit(QStringLiteral("Set sequence"), [i](Project& p) { p.training.seq_len = 1088 + 64 * i; });
            }
            const double ms = double(t.nsecsElapsed()) / 1e6;
            QVERIFY(ok);
            QVERIFY(doc.waitForAnalysis());
            const double mib = (double(heapInUse()) - double(before)) / (1024.0 * 1024.0);
            worstMs = std::max(worstMs, ms);
            worstMiB = std::max(worstMiB, mib);
            QVERIFY2(ms < 50.0, qPrintable(QStringLiteral("edit %1 took %2 ms").arg(i).arg(ms)));
            QVERIFY2(mib < 10.0, qPrintable(QStringLiteral("edit %1 kept %2 MiB").arg(i).arg(mib)));
            QVERIFY(doc.project().extra.shares_with(start.extra));
            QVERIFY(doc.project().layout.extra.shares_with(start.layout.extra));
        }
        qInfo("28 edits with 100 MB of unknown keys: worst %.1f ms, %.2f MiB", worstMs, worstMiB);
        QCOMPARE(doc.undoStack()->count(), edits);

        // A change that names a key the loader does not know writes it beside the others.
        QVERIFY(doc.applyChanges(QStringLiteral("Note"), {{"/layout/x_reviewer", "ana"}}));
        QCOMPARE(doc.project().layout.extra->value("x_reviewer", std::string()), std::string("ana"));
        QCOMPARE(doc.project().layout.extra->at("x_sweep_history").size(), std::size_t(20 * 1024));
        doc.undoStack()->undo();
        QVERIFY(doc.project().layout.extra.shares_with(start.layout.extra));

        // Undo everything: the project and the file are the ones opened, byte for byte.
        while (doc.undoStack()->canUndo()) doc.undoStack()->undo();
        QVERIFY(doc.project() == start);
        const QString saved1 = dir.filePath(QStringLiteral("saved1.json"));
        doc.saveAs(saved1);
        QVERIFY(readAll(saved1) == original);
        // Redo everything: the unknown keys are written exactly as they came in.
        while (doc.undoStack()->canRedo()) doc.undoStack()->redo();
        const QString saved2 = dir.filePath(QStringLiteral("saved2.json"));
        doc.saveAs(saved2);
        const auto back = nlohmann::json::parse(readAll(saved2).toStdString());
        QVERIFY(back["notes_from_another_tool"] == j["notes_from_another_tool"]);
        QVERIFY(back["layout"]["x_sweep_history"] == j["layout"]["x_sweep_history"]);
        QCOMPARE(back["training"]["x_comment"].get<std::string>(), std::string("kept"));
        QCOMPARE(back["training"]["seq_len"].get<int>(), 1088 + 64 * 26);
    }

    // The same file in the main window: 28 Layout panel edits, each with the window's own work
    // on the GUI thread (fields, title, views marked stale), stay under 50 ms and 10 MB.
    void unknownKeysInTheWindow() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        isolateSettings(dir);
        const QString file = dir.filePath(QStringLiteral("big.paraplan.json"));
        writeBigProject(file);
        MainWindow w(nullptr, dir.filePath(QStringLiteral("rec")));
        w.setAttribute(Qt::WA_DontShowOnScreen);
        w.show();
        w.resize(1280, 800);
        QVERIFY(w.openFile(file));
        QVERIFY(w.waitForOpen());
        QVERIFY(w.document()->waitForAnalysis());
        const Project start = w.project();
        double worstMs = 0, worstMiB = 0;
        for (int i = 0; i < 28; ++i) {
            QVERIFY(w.document()->waitForAnalysis());
            QCoreApplication::processEvents();
            const std::size_t before = heapInUse();
            QElapsedTimer t;
            t.start();
            QVERIFY(w.document()->applyChanges(QStringLiteral("Set tokens"),
                                               {{"/training/train_tokens", 2'000'000'000LL + i}}));
            const double ms = double(t.nsecsElapsed()) / 1e6;
            QVERIFY(w.document()->waitForAnalysis());
            QCoreApplication::processEvents();
            const double mib = (double(heapInUse()) - double(before)) / (1024.0 * 1024.0);
            worstMs = std::max(worstMs, ms);
            worstMiB = std::max(worstMiB, mib);
            QVERIFY2(ms < 50.0, qPrintable(QStringLiteral("edit %1 took %2 ms").arg(i).arg(ms)));
            QVERIFY2(mib < 10.0, qPrintable(QStringLiteral("edit %1 kept %2 MiB").arg(i).arg(mib)));
        }
        qInfo("28 edits in the window with 100 MB of unknown keys: worst %.1f ms, %.2f MiB", worstMs, worstMiB);
        QVERIFY(w.project().extra.shares_with(start.extra));
        while (w.document()->undoStack()->canUndo()) w.document()->undoStack()->undo();
        QVERIFY(w.project() == start);
    }

    void noOpEditAddsNoStep() {
        ProjectDocument doc;
        doc.reset(paraplan::load_example("gpt2-1node"), QString());
        QVERIFY(doc.edit(QStringLiteral("nothing"), [](Project&) {}));
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(!doc.isModified());
    }
};

QTEST_MAIN(TestUndoMemory)
#include "tst_undo_memory.moc"
