// `paraplan --screenshot out.png [--view v]` renders the window offscreen: each
// image has the requested size and is not blank (its pixels vary). The options the
// documentation pictures use (--grab-view, --set, --colour, --group, --select-rank,
// --dry-run, --no-palette, --export-format, --invoke, --wait, --compare, --new, --new-dialog, --add-node) change what
// is drawn, and bad values are usage errors (exit 2).
#include "canvas/clustercanvas.h"
#include "canvas/clusterpalette.h"
#include "guitest.h"
#include "newprojectdialog.h"
#include "projectdocument.h"
#include "screenshot_harness.h"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include <cmath>

class TestScreenshot : public QObject {
    Q_OBJECT
    QTemporaryDir tmp_;

    // Variance of the grey level over a sample of pixels.
    static double variance(const QImage& img) {
        double sum = 0, sum2 = 0;
        int n = 0;
        for (int y = 0; y < img.height(); y += 3)
            for (int x = 0; x < img.width(); x += 3) {
                const double g = qGray(img.pixel(x, y));
                sum += g;
                sum2 += g * g;
                ++n;
            }
        const double mean = sum / n;
        return sum2 / n - mean * mean;
    }

    struct Shot {
        int code = -1;
        QByteArray err;
        QImage img;
    };
    // Runs paraplan --screenshot with `args` and reads the image back.
    Shot shot(const QString& name, const QStringList& args) {
        const QString out = tmp_.filePath(name + QStringLiteral(".png"));
        QFile::remove(out);
        QProcess p;
        p.start(QStringLiteral(PARAPLAN_GUI), QStringList{QStringLiteral("--screenshot"), out} + args);
        if (!p.waitForFinished(120'000)) return {};
        return {p.exitCode(), p.readAllStandardError(), QImage(out)};
    }

private slots:
    void initTestCase() {
        QVERIFY(tmp_.isValid());
        isolateSettings(tmp_);   // the in-process windows below
    }

    // The user guide's first pictures: File > New…'s form, and the cluster its project grows into
    // when nodes are added from palette templates (--new, --add-node).
    void newProjectAndAddedNodes() {
        const Shot form = shot(QStringLiteral("new-dialog"),
                               {QStringLiteral("--new-dialog"), QStringLiteral("--size"), QStringLiteral("640x340")});
        QCOMPARE(form.code, 0);
        QCOMPARE(form.img.size(), QSize(640, 340));
        QVERIFY2(variance(form.img) > 100, qPrintable(QString::number(variance(form.img))));

        const QStringList canvas{QStringLiteral("--new"),       QStringLiteral("--view"), QStringLiteral("canvas"),
                                 QStringLiteral("--grab-view"), QStringLiteral("--size"), QStringLiteral("900x420")};
        const Shot one = shot(QStringLiteral("new-1"), canvas);
        const QStringList three{QStringLiteral("--add-node"), QStringLiteral("8 × h100-sxm"),
                                QStringLiteral("--add-node"), QStringLiteral("8 × h100-sxm")};
        const Shot more = shot(QStringLiteral("new-3"), canvas + three);
        QCOMPARE(one.code, 0);
        QCOMPARE(more.code, 0);
        QCOMPARE(more.img.size(), QSize(900, 420));
        QVERIFY(one.img != more.img);

        // A name the palette does not list, or a GPU (not a node template), is a usage error.
        const Shot typo = shot(QStringLiteral("new-typo"),
                               canvas + QStringList{QStringLiteral("--add-node"), QStringLiteral("8 x h100-sxm")});
        QCOMPARE(typo.code, 2);
        QVERIFY2(typo.err.contains("no node template \"8 x h100-sxm\""), typo.err.constData());
        QVERIFY(typo.img.isNull());
        const Shot gpu = shot(QStringLiteral("new-gpu"),
                              canvas + QStringList{QStringLiteral("--add-node"), QStringLiteral("h100-sxm")});
        QCOMPARE(gpu.code, 2);
        QVERIFY2(gpu.err.contains("is not a node template"), gpu.err.constData());
    }

    // The harness adds each --add-node through Edit > Add Node with the template selected in
    // the palette: the window it renders holds those nodes, in that order, each one undo step.
    void addNodesBuildTheRenderedCluster() {
        MainWindow w(nullptr, tmp_.filePath(QStringLiteral("rec")));
        w.setProject(NewProjectDialog().project(), QString());
        QCOMPARE(w.project().cluster.nodes.size(), std::size_t(1));
        ScreenshotRequest req;
        req.out = tmp_.filePath(QStringLiteral("inproc.png"));
        req.size = QSize(1280, 800);
        req.addNodes = {QStringLiteral("8 × h100-sxm"), QStringLiteral("4 × a100-80g")};
        ScreenshotHarness harness(&w, req);
        QSignalSpy done(&harness, &ScreenshotHarness::finished);
        harness.start();
        QVERIFY(done.wait(120'000));
        QCOMPARE(done.first().first().toInt(), 0);
        QCOMPARE(QImage(req.out).size(), QSize(1280, 800));
        const auto& nodes = w.project().cluster.nodes;
        QCOMPARE(nodes.size(), std::size_t(3));
        QCOMPARE(nodes[1].gpu, std::string("h100-sxm"));
        QCOMPARE(nodes[1].gpus, 8);
        QCOMPARE(nodes[2].gpu, std::string("a100-80g"));
        QCOMPARE(nodes[2].gpus, 4);
        QCOMPARE(w.canvas()->nodeItems().size(), std::size_t(3));   // the canvas drawn shows them
        QCOMPARE(w.canvas()->paletteList()->currentItem()->text(), QStringLiteral("4 × a100-80g"));
        QCOMPARE(w.document()->undoStack()->count(), 2);
        QCOMPARE(w.document()->undoStack()->text(1), QStringLiteral("Add node (4 × a100-80g)"));

        MainWindow bad(nullptr, tmp_.filePath(QStringLiteral("rec-bad")));
        bad.setProject(NewProjectDialog().project(), QString());
        req.out = tmp_.filePath(QStringLiteral("inproc-bad.png"));
        req.addNodes = {QStringLiteral("8 × h100-sxm"), QStringLiteral("Node templates")};   // a heading
        ScreenshotHarness refused(&bad, req);
        QSignalSpy failed(&refused, &ScreenshotHarness::finished);
        refused.start();
        QVERIFY(failed.wait(120'000));
        QCOMPARE(failed.first().first().toInt(), 2);
        QVERIFY(!QFile::exists(req.out));
    }

    // --grab-view renders one view alone at exactly --size.
    void grabView_data() {
        QTest::addColumn<QString>("view");
        for (const char* v :
             {"canvas", "grid", "timeline", "memory", "diagnostics", "layout", "explain", "run", "gpus"})
            QTest::newRow(v) << QString::fromLatin1(v);
    }
    void grabView() {
        QFETCH(QString, view);
        const Shot s = shot(
            QStringLiteral("grab-") + view,
            {QStringLiteral("--view"), view, QStringLiteral("--grab-view"), QStringLiteral("--example"),
             QStringLiteral("llama3.1-70b-4nodes"), QStringLiteral("--size"), QStringLiteral("700x450")});
        QCOMPARE(s.code, 0);
        QVERIFY(!s.img.isNull());
        QCOMPARE(s.img.size(), QSize(700, 450));
        QVERIFY2(variance(s.img) > 100, qPrintable(QString::number(variance(s.img))));
    }

    // The same view with different options draws different pictures.
    void optionsChangeThePicture() {
        const QStringList grid{QStringLiteral("--view"),
                               QStringLiteral("grid"),
                               QStringLiteral("--grab-view"),
                               QStringLiteral("--example"),
                               QStringLiteral("llama3.1-70b-4nodes"),
                               QStringLiteral("--size"),
                               QStringLiteral("600x400")};
        const Shot byTp = shot(QStringLiteral("grid-tp"),
                               grid + QStringList{QStringLiteral("--colour"), QStringLiteral("tp")});
        const Shot byPp = shot(QStringLiteral("grid-pp"),
                               grid + QStringList{QStringLiteral("--colour"), QStringLiteral("pp")});
        const Shot sel = shot(
            QStringLiteral("grid-sel"),
            grid + QStringList{QStringLiteral("--colour"), QStringLiteral("tp"), QStringLiteral("--group"),
                               QStringLiteral("pp"), QStringLiteral("--select-rank"), QStringLiteral("3")});
        QCOMPARE(byTp.code, 0);
        QCOMPARE(byPp.code, 0);
        QCOMPARE(sel.code, 0);
        QVERIFY(byTp.img != byPp.img);
        QVERIFY(byTp.img != sel.img);

        const QStringList tl{QStringLiteral("--view"),    QStringLiteral("timeline"),   QStringLiteral("--grab-view"),
                             QStringLiteral("--example"), QStringLiteral("gpt2-1node"), QStringLiteral("--size"),
                             QStringLiteral("800x300")};
        const Shot f1b = shot(QStringLiteral("tl-1f1b"), tl);
        const Shot zbv = shot(QStringLiteral("tl-zbv"),
                              tl + QStringList{QStringLiteral("--set"), QStringLiteral("/layout/schedule=zbv"),
                                               QStringLiteral("--set"), QStringLiteral("/layout/chunks=2")});
        QCOMPARE(f1b.code, 0);
        QCOMPARE(zbv.code, 0);
        QCOMPARE(zbv.img.size(), QSize(800, 300));
        QVERIFY(f1b.img != zbv.img);

        const QStringList run{QStringLiteral("--view"),    QStringLiteral("run"),        QStringLiteral("--grab-view"),
                              QStringLiteral("--example"), QStringLiteral("gpt2-1node"), QStringLiteral("--size"),
                              QStringLiteral("800x300")};
        const Shot idle = shot(QStringLiteral("run-idle"), run);
        const Shot dry = shot(QStringLiteral("run-dry"), run + QStringList{QStringLiteral("--dry-run")});
        QCOMPARE(dry.code, 0);
        QVERIFY(idle.img != dry.img);
        // --invoke calls a slot of the view's widget: the Run panel's dryRun draws what --dry-run draws.
        const Shot invoked = shot(QStringLiteral("run-invoke"),
                                  run + QStringList{QStringLiteral("--invoke"), QStringLiteral("dryRun"),
                                                    QStringLiteral("--wait"), QStringLiteral("100")});
        QCOMPARE(invoked.code, 0);
        QVERIFY(invoked.img != idle.img);

        const QStringList canvas{QStringLiteral("--view"),      QStringLiteral("canvas"),
                                 QStringLiteral("--grab-view"), QStringLiteral("--example"),
                                 QStringLiteral("gpt2-1node"),  QStringLiteral("--size"),
                                 QStringLiteral("800x300")};
        const Shot withPalette = shot(QStringLiteral("canvas-palette"), canvas);
        const Shot noPalette = shot(QStringLiteral("canvas-nopalette"),
                                    canvas + QStringList{QStringLiteral("--no-palette")});
        QCOMPARE(noPalette.code, 0);
        QCOMPARE(noPalette.img.size(), QSize(800, 300));
        QVERIFY(withPalette.img != noPalette.img);
    }

    // --colour names the group a --select-rank highlights, unless --group names another: the
    // rank grid's selection recolours the canvas by the grid's group kind, which was tp (the
    // concepts guide's ep, pp and sp pictures showed tp groups under their captions).
    void colourNamesTheSelectedGroup() {
        const QStringList canvas{QStringLiteral("--view"),        QStringLiteral("canvas"),
                                 QStringLiteral("--grab-view"),   QStringLiteral("--no-palette"),
                                 QStringLiteral("--example"),     QStringLiteral("mixtral-8x7b-2nodes-ep"),
                                 QStringLiteral("--size"),        QStringLiteral("860x280"),
                                 QStringLiteral("--select-rank"), QStringLiteral("0"),
                                 QStringLiteral("--colour"),      QStringLiteral("ep")};
        const Shot byColour = shot(QStringLiteral("select-ep"), canvas);
        const Shot epGroup = shot(QStringLiteral("select-ep-group"),
                                  canvas + QStringList{QStringLiteral("--group"), QStringLiteral("ep")});
        const Shot tpGroup = shot(QStringLiteral("select-tp-group"),
                                  canvas + QStringList{QStringLiteral("--group"), QStringLiteral("tp")});
        for (const Shot* s : {&byColour, &epGroup, &tpGroup}) {
            QCOMPARE(s->code, 0);
            QCOMPARE(s->img.size(), QSize(860, 280));
        }
        QVERIFY2(byColour.img == epGroup.img, "--colour ep --select-rank 0 does not show the ep group");
        QVERIFY(byColour.img != tpGroup.img);   // an explicit --group still wins
    }

    // --export-format renders the Export dialog at --size, and the format changes the preview.
    void exportDialog() {
        const QStringList base{QStringLiteral("--example"), QStringLiteral("llama3.1-70b-4nodes"),
                               QStringLiteral("--size"), QStringLiteral("900x500"), QStringLiteral("--export-format")};
        const Shot meg = shot(QStringLiteral("export-megatron"), base + QStringList{QStringLiteral("megatron")});
        const Shot cai = shot(QStringLiteral("export-colossalai"), base + QStringList{QStringLiteral("colossalai")});
        QCOMPARE(meg.code, 0);
        QCOMPARE(cai.code, 0);
        QCOMPARE(meg.img.size(), QSize(900, 500));
        QVERIFY2(variance(meg.img) > 100, qPrintable(QString::number(variance(meg.img))));
        QVERIFY(meg.img != cai.img);
        const Shot bad = shot(QStringLiteral("export-bad"), base + QStringList{QStringLiteral("nonsense")});
        QCOMPARE(bad.code, 2);
        QVERIFY(bad.err.contains("unknown export format"));
    }

    // --compare FILE puts the open project and the file side by side in the Compare view: the
    // view draws its columns (different from the empty view); a file that does not load is a
    // usage error naming it.
    void compareCandidates() {
        const QString example = QStringLiteral(PARAPLAN_SOURCE_DIR
                                               "/resources/examples/llama3.1-70b-4nodes.paraplan.json");
        const QStringList view{QStringLiteral("--example"),   QStringLiteral("llama3.1-70b-4nodes"),
                               QStringLiteral("--view"),      QStringLiteral("compare"),
                               QStringLiteral("--grab-view"), QStringLiteral("--size"),
                               QStringLiteral("900x500")};
        const Shot empty = shot(QStringLiteral("compare0"), view);
        QCOMPARE(empty.code, 0);
        const Shot two = shot(QStringLiteral("compare2"), view + QStringList{QStringLiteral("--compare"), example});
        QCOMPARE(two.code, 0);
        QCOMPARE(two.img.size(), QSize(900, 500));
        QVERIFY(two.img != empty.img);
        QVERIFY2(variance(two.img) > 100, qPrintable(QString::number(variance(two.img))));
        const Shot bad = shot(
            QStringLiteral("compare-bad"),
            view + QStringList{QStringLiteral("--compare"), tmp_.filePath(QStringLiteral("nosuch.json"))});
        QCOMPARE(bad.code, 2);
        QVERIFY2(bad.err.contains("--compare") && bad.err.contains("nosuch.json"), bad.err.constData());
        QVERIFY(bad.img.isNull());
    }

    void badOptionsAreUsageErrors() {
        const QString ex = QStringLiteral("gpt2-1node");
        Shot s = shot(QStringLiteral("bad1"),
                      {QStringLiteral("--example"), ex, QStringLiteral("--set"), QStringLiteral("/layout/nosuch/x=1")});
        QCOMPARE(s.code, 2);
        QVERIFY2(s.err.contains("/layout/nosuch/x"), s.err.constData());
        s = shot(QStringLiteral("bad2"),
                 {QStringLiteral("--example"), ex, QStringLiteral("--set"), QStringLiteral("layout.tp")});
        QCOMPARE(s.code, 2);
        QVERIFY(s.err.contains("expected /json/pointer=value"));
        s = shot(QStringLiteral("bad3"),
                 {QStringLiteral("--example"), ex, QStringLiteral("--set"), QStringLiteral("/layout/tp=\"two\"")});
        QCOMPARE(s.code, 2);
        QVERIFY2(s.err.contains("/layout/tp"), s.err.constData());
        s = shot(QStringLiteral("bad4"), {QStringLiteral("--example"), ex, QStringLiteral("--grab-view")});
        QCOMPARE(s.code, 2);
        QVERIFY(s.err.contains("--grab-view needs --view"));
        s = shot(QStringLiteral("bad5"),
                 {QStringLiteral("--example"), ex, QStringLiteral("--select-rank"), QStringLiteral("8")});
        QCOMPARE(s.code, 2);   // gpt2-1node has ranks 0..7
        QVERIFY(s.err.contains("0..7"));
        s = shot(QStringLiteral("bad6"),
                 {QStringLiteral("--example"), ex, QStringLiteral("--view"), QStringLiteral("run"),
                  QStringLiteral("--invoke"), QStringLiteral("noSuchSlot")});
        QCOMPARE(s.code, 2);
        QVERIFY(s.err.contains("noSuchSlot"));
        QVERIFY(s.img.isNull());
    }

    void views_data() {
        QTest::addColumn<QString>("view");
        QTest::addColumn<QString>("example");
        for (const char* v :
             {"canvas", "layout", "diagnostics", "grid", "timeline", "explain", "history", "memory", "planner"})
            QTest::newRow(v) << QString::fromLatin1(v) << QStringLiteral("llama3.1-70b-4nodes");
        QTest::newRow("canvas-1024") << QStringLiteral("canvas") << QStringLiteral("llama3.1-405b-128nodes");
    }
    void views() {
        QFETCH(QString, view);
        QFETCH(QString, example);
        const QString out = tmp_.filePath(view + example + QStringLiteral(".png"));
        QProcess p;
        p.setProcessChannelMode(QProcess::ForwardedErrorChannel);
        p.start(QStringLiteral(PARAPLAN_GUI),
                {QStringLiteral("--screenshot"), out, QStringLiteral("--view"), view, QStringLiteral("--example"),
                 example, QStringLiteral("--size"), QStringLiteral("1600x1000")});
        QVERIFY(p.waitForFinished(120'000));
        QCOMPARE(p.exitCode(), 0);
        const QImage img(out);
        QVERIFY(!img.isNull());
        QCOMPARE(img.size(), QSize(1600, 1000));
        QVERIFY2(variance(img) > 100, qPrintable(QString::number(variance(img))));
    }

    void unknownViewIsAUsageError() {
        QProcess p;
        p.start(QStringLiteral(PARAPLAN_GUI), {QStringLiteral("--screenshot"), tmp_.filePath(QStringLiteral("x.png")),
                                               QStringLiteral("--view"), QStringLiteral("nosuchview")});
        QVERIFY(p.waitForFinished(120'000));
        QCOMPARE(p.exitCode(), 2);
        QVERIFY(p.readAllStandardError().contains("nosuchview"));
    }
};

QTEST_MAIN(TestScreenshot)
#include "tst_screenshot.moc"
