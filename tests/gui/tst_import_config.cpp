// File > Import Framework Config: a DeepSpeed JSON or Megatron arguments change the open
// project's layout as one undoable step; a broken file leaves the project as it was.
#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "guitest.h"
#include "mainwindow.h"
#include "project/project.h"
#include "projectdocument.h"

#include <QFile>
#include <QTest>
#include <QUndoStack>

class TestImportConfig : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    QString write(const QString& name, const QByteArray& text) {
        const QString path = tmp_.filePath(name);
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly)) return QString();
        f.write(text);
        return path;
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);
    }

    void deepspeedJsonIsOneUndoStep() {
        auto win = exampleWindow(tmp_, "gpt2-1node");
        MainWindow& w = *win;   // 8 GPUs
        const nlohmann::json before = paraplan::project_to_json(w.project());
        // 8 GPUs, micro batch 2, 4 accumulation steps -> global batch 64; ZeRO-3 with CPU offload.
        const QString path = write(QStringLiteral("ds_config.json"), R"({
            "train_batch_size": 64, "train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 4,
            "zero_optimization": {"stage": 3, "offload_optimizer": {"device": "cpu"}},
            "bf16": {"enabled": true}})");
        QVERIFY(!path.isEmpty());
        QVERIFY2(w.importConfigFile(path), qPrintable(w.lastError()));
        QVERIFY(win->document()->waitForAnalysis());   // the views follow the edit's analysis
        const auto& p = w.project();
        QCOMPARE(p.layout.framework, std::string("deepspeed"));
        QCOMPARE(p.layout.zero_stage, 3);
        QCOMPARE(p.layout.offload, paraplan::Offload::cpu);
        QCOMPARE(p.training.micro_batch_size, 2);
        QCOMPARE(p.training.global_batch_size, 64);
        QCOMPARE(p.cluster.nodes.size(), std::size_t(1));   // the cluster came from the open project
        QVERIFY(w.document()->undoStack()->undoText().contains(QStringLiteral("ds_config.json")));
        w.document()->undoStack()->undo();
        QVERIFY(w.document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(paraplan::project_to_json(w.project()), before);
    }

    void megatronArgsByHint() {
        auto win = exampleWindow(tmp_, "gpt2-1node");
        MainWindow& w = *win;
        const QString path = write(QStringLiteral("args.txt"),
                                   "--tensor-model-parallel-size 2 --pipeline-model-parallel-size 2 "
                                   "--micro-batch-size 1 --global-batch-size 16\n");
        QVERIFY2(w.importConfigFile(path, QStringLiteral("megatron")), qPrintable(w.lastError()));
        QVERIFY(win->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(w.project().layout.framework, std::string("megatron"));
        QCOMPARE(w.project().layout.tp, 2);
        QCOMPARE(w.project().layout.pp, 2);
        QCOMPARE(w.project().training.global_batch_size, 16);
    }

    void brokenFileKeepsProject() {
        auto win = exampleWindow(tmp_, "gpt2-1node");
        MainWindow& w = *win;
        const nlohmann::json before = paraplan::project_to_json(w.project());
        const QString path = write(QStringLiteral("broken.json"), "{\"zero_optimization\": {\"stage\": 3,,}");
        QVERIFY(!w.importConfigFile(path, QStringLiteral("deepspeed")));
        QVERIFY(win->document()->waitForAnalysis());   // the views follow the edit's analysis
        QVERIFY2(w.lastError().contains(QStringLiteral("unchanged")), qPrintable(w.lastError()));
        QCOMPARE(paraplan::project_to_json(w.project()), before);
        QCOMPARE(w.document()->undoStack()->count(), 0);
        QVERIFY(!w.importConfigFile(tmp_.filePath(QStringLiteral("missing.json")), QStringLiteral("deepspeed")));
        QVERIFY(win->document()->waitForAnalysis());   // the views follow the edit's analysis
        QCOMPARE(paraplan::project_to_json(w.project()), before);
        // Not a regular file: refused at once, naming it and why (it used to read forever).
        QVERIFY(!w.importConfigFile(QStringLiteral("/dev/zero"), QStringLiteral("deepspeed")));
        QVERIFY2(w.lastError().contains(QStringLiteral("/dev/zero")) &&
                     w.lastError().contains(QStringLiteral("not a regular file")),
                 qPrintable(w.lastError()));
        QCOMPARE(paraplan::project_to_json(w.project()), before);
    }
};

QTEST_MAIN(TestImportConfig)
#include "tst_import_config.moc"
