// The project's own GPUs (cluster.gpu_specs) in the app's GPU picker: the Layout panel's GPU type
// lists them before the catalog's, refreshed when the project gains one, and picking one with the
// keyboard sets every node to it (one undo step).
#include "catalog/catalog.h"
#include "guitest.h"
#include "plan/layoutpanel.h"
#include "projectdocument.h"

#include <QComboBox>
#include <QTest>
#include <QUndoStack>

class TestProjectGpus : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void pickerListsProjectGpus() {
        auto w = exampleWindow(tmp_, "llama3.1-70b-4nodes");
        w->show();
        QVERIFY(QTest::qWaitForWindowExposed(w.get()));
        auto* gpu = w->layoutPanel()->findChild<QComboBox*>(QStringLiteral("gpu"));
        QVERIFY(gpu);
        QVERIFY(gpu->findData(QStringLiteral("lab-h100")) < 0);
        const std::string before = w->document()->project().cluster.nodes.front().gpu;

        // The project gains a GPU of its own: an H100 at a lower clock.
        paraplan::GpuSpec lab = *paraplan::catalog::find_gpu("h100-sxm");
        lab.id = "lab-h100";
        lab.name = "Lab H100 at 600 W";
        lab.tflops_bf16 = 800;
        QVERIFY(w->document()->edit(QStringLiteral("Add a project GPU"),
                                    [&](paraplan::Project& p) { p.cluster.gpu_specs.push_back(lab); }));
        QTRY_COMPARE(gpu->itemData(0).toString(), QStringLiteral("lab-h100"));
        QVERIFY(gpu->itemText(0).contains(QStringLiteral("Lab H100 at 600 W")));
        QVERIFY(gpu->findData(QStringLiteral("h100-sxm")) > 0);   // the catalog's follow

        // Home picks the first entry, the project's GPU, for every node.
        gpu->setFocus();
        QTest::keyClick(gpu, Qt::Key_Home);
        QTRY_VERIFY(w->document()->project().cluster.nodes.front().gpu == "lab-h100");
        for (const auto& n : w->document()->project().cluster.nodes) QCOMPARE(n.gpu, std::string("lab-h100"));
        QCOMPARE(gpu->currentData().toString(), QStringLiteral("lab-h100"));

        w->document()->undoStack()->undo();
        QTRY_VERIFY(w->document()->project().cluster.nodes.front().gpu == before);
    }
};

QTEST_MAIN(TestProjectGpus)
#include "tst_project_gpus.moc"
