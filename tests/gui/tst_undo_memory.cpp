// Undo at scale: on 131,072 GPUs (16,384 nodes) an edit that leaves the cluster alone adds
// well under 1 MB to the undo history (the snapshots share one cluster), and undo/redo still
// restore each project exactly, including a step that does change the cluster. The nodes are
// copy-on-write (core/util/cow_vector.h): every state reads the one copy of them.
#include "project/project.h"
#include "projectdocument.h"
#include "scale_project.h"

#include <QCoreApplication>
#include <QTest>
#include <QUndoStack>

#include <malloc.h>

#include <utility>
#include <vector>

using paraplan::Project;

namespace {
// Bytes the heap hands out now (glibc), after returning what it can.
std::size_t heapInUse() {
    malloc_trim(0);
    return mallinfo2().uordblks;
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
