// paraplan: the desktop topology designer.
#include "canvas/clustercanvas.h"
#include "canvas/clusterpalette.h"
#include "mainwindow.h"
#include "messagefit.h"
#include "newprojectdialog.h"
#include "projectdocument.h"
#include "views/rankgrid.h"
#include "run/run_panel.h"
#include "screenshot_harness.h"
#include "project/project.h"
#include "util/input_error.h"
#include "util/json_read.h"

#include <QApplication>
#include <QComboBox>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QMessageBox>

#include <nlohmann/json.hpp>

#include <cstdio>
#include <vector>

namespace {
// "--set /layout/tp=4": a JSON pointer and a value (JSON if it parses, else a string).
bool parseSet(const QString& arg, paraplan::FixChange* out) {
    const qsizetype eq = arg.indexOf(QLatin1Char('='));
    if (eq <= 0 || !arg.startsWith(QLatin1Char('/'))) return false;
    out->field = arg.left(eq).toStdString();
    const std::string v = arg.mid(eq + 1).toStdString();
    const auto parsed = paraplan::json_read::try_parse(v);   // nesting bounded
    out->value = parsed ? *parsed : nlohmann::json(v);
    return true;
}
}   // namespace

int main(int argc, char** argv) {
    // --help, --version and --screenshot need no display: without one, Qt's offscreen platform.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        for (int i = 1; i < argc; ++i) {
            const QByteArray a(argv[i]);
            if (a == "--help" || a == "-h" || a == "--help-all" || a == "--version" || a == "-v" ||
                a.startsWith("--screenshot") || a.startsWith("--playback-frames")) {
                qputenv("QT_QPA_PLATFORM", "offscreen");
                break;
            }
        }
    }
    QApplication app(argc, argv);
    QApplication::setStyle(QStringLiteral("Fusion"));   // consistent look; follows the system palette
    QApplication::setApplicationName(QStringLiteral("paraplan"));
    QApplication::setOrganizationName(QStringLiteral("Paraplan"));
    QApplication::setApplicationVersion(QStringLiteral(PARAPLAN_VERSION));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Paraplan: a topology designer for distributed training."));
    parser.addHelpOption();
    parser.addVersionOption();
    QCommandLineOption screenshot(QStringLiteral("screenshot"),
                                  QStringLiteral("Render the main window offscreen to a PNG and exit."),
                                  QStringLiteral("out.png"));
    QCommandLineOption projectOpt(QStringLiteral("project"), QStringLiteral("Project file to open."),
                                  QStringLiteral("file"));
    QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Window size for --screenshot, WxH."),
                               QStringLiteral("WxH"), QStringLiteral("1600x1000"));
    QCommandLineOption exampleOpt(QStringLiteral("example"), QStringLiteral("Open a built-in example project."),
                                  QStringLiteral("name"));
    QCommandLineOption viewOpt(
        QStringLiteral("view"),
        QStringLiteral("With --screenshot: bring this view to the front (canvas, grid, timeline, "
                       "memory, diagnostics, planner, layout, history, explain, run, gpus)."),
        QStringLiteral("name"));
    QCommandLineOption grabViewOpt(
        QStringLiteral("grab-view"),
        QStringLiteral("With --screenshot and --view: render only that view, alone, at --size."));
    QCommandLineOption setOpt(
        QStringLiteral("set"),
        QStringLiteral("Change a project field before showing it (one undoable edit each), e.g. "
                       "--set /layout/schedule=zbv. The value is JSON if it parses, else a string."),
        QStringLiteral("/pointer=value"));
    QCommandLineOption colourOpt(QStringLiteral("colour"),
                                 QStringLiteral("Colour the canvas tiles and the rank grid by this axis or group kind "
                                                "(tp, pp, dp, node, ...)."),
                                 QStringLiteral("axis"));
    QCommandLineOption groupOpt(QStringLiteral("group"),
                                QStringLiteral("The group kind the rank grid highlights (tp, pp, dp, ...); "
                                               "default: the --colour kind."),
                                QStringLiteral("kind"));
    QCommandLineOption selectOpt(QStringLiteral("select-rank"),
                                 QStringLiteral("Highlight the group of this rank in the rank grid and on the canvas."),
                                 QStringLiteral("rank"));
    QCommandLineOption dryRunOpt(
        QStringLiteral("dry-run"),
        QStringLiteral("Press the Run panel's Dry run (prints every remote command; connects nowhere)."));
    QCommandLineOption noPaletteOpt(
        QStringLiteral("no-palette"),
        QStringLiteral("Hide the canvas's node-template palette (more room for the nodes)."));
    QCommandLineOption exportOpt(QStringLiteral("export-format"),
                                 QStringLiteral("With --screenshot: render File > Export… for this format (megatron, "
                                                "colossalai, ...) instead of the window."),
                                 QStringLiteral("format"));
    QCommandLineOption invokeOpt(
        QStringLiteral("invoke"),
        QStringLiteral("With --screenshot and --view: call this slot of the view's widget before "
                       "rendering (e.g. run, dryRun); repeatable."),
        QStringLiteral("slot"));
    QCommandLineOption waitOpt(
        QStringLiteral("wait"),
        QStringLiteral("With --screenshot: let the app work this many milliseconds before rendering "
                       "(background work such as a planner run)."),
        QStringLiteral("ms"), QStringLiteral("0"));
    QCommandLineOption playbackOpt(QStringLiteral("playback-frames"),
                                   QStringLiteral("Play one training step and save it as DIR/frame_0000.png ... (and "
                                                  "DIR/playback.mp4 when ffmpeg is installed), then exit."),
                                   QStringLiteral("dir"));
    QCommandLineOption framesOpt(QStringLiteral("frames"),
                                 QStringLiteral("With --playback-frames: how many frames (default 60)."),
                                 QStringLiteral("n"), QStringLiteral("60"));
    parser.addOptions({playbackOpt, framesOpt});
    QCommandLineOption compareOpt(
        QStringLiteral("compare"),
        QStringLiteral("With --screenshot: put the open project and this project file side by "
                       "side in the Compare view (repeatable)."),
        QStringLiteral("file"));
    parser.addOption(compareOpt);
    QCommandLineOption newOpt(QStringLiteral("new"),
                              QStringLiteral("Open the project File > New… creates when its form is left as it opens, "
                                             "instead of an example."));
    QCommandLineOption newDialogOpt(
        QStringLiteral("new-dialog"),
        QStringLiteral("With --screenshot: render File > New…'s form, as it opens, instead of the window."));
    QCommandLineOption addNodeOpt(
        QStringLiteral("add-node"),
        QStringLiteral("With --screenshot: add a node of this palette template (e.g. \"8 × h100-sxm\") as Edit > "
                       "Add Node does with the template selected; repeatable."),
        QStringLiteral("template"));
    parser.addOptions({newOpt, newDialogOpt, addNodeOpt});
    parser.addOptions({screenshot, projectOpt, sizeOpt, exampleOpt, viewOpt, grabViewOpt, setOpt, colourOpt, groupOpt,
                       selectOpt, dryRunOpt, noPaletteOpt, exportOpt, invokeOpt, waitOpt});
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Project file to open."),
                                 QStringLiteral("[file]"));
    parser.process(app);

    MainWindow window;
    QString path = parser.value(projectOpt);
    if (path.isEmpty() && !parser.positionalArguments().isEmpty()) path = parser.positionalArguments().constFirst();
    // The window opens at once with the project; its analysis (rank map, rules, estimate,
    // schedule) follows from a worker. Pictures, playback frames and the options that act on
    // the views (a selected rank, a dry run) wait for it.
    const bool interactive = !parser.isSet(screenshot) && !parser.isSet(playbackOpt) && !parser.isSet(selectOpt) &&
                             !parser.isSet(dryRunOpt);
    const auto show = [&](const paraplan::Project& p, const QString& where) {
        if (interactive) window.openProject(p, where);
        else window.setProject(p, where);
    };
    try {
        if (!path.isEmpty()) {
            show(paraplan::load_project(path.toStdString()), QFileInfo(path).absoluteFilePath());
        } else if (parser.isSet(newOpt)) {
            show(NewProjectDialog().project(), QString());
        } else {
            const QString ex = parser.isSet(exampleOpt) ? parser.value(exampleOpt) : QStringLiteral("gpt2-1node");
            show(paraplan::load_example(ex.toStdString()), QString());
        }
    } catch (const std::exception& e) {
        if (parser.isSet(screenshot)) {
            std::fprintf(stderr, "paraplan: %s\n", e.what());
            return 2;
        }
        QMessageBox box(QMessageBox::Warning, QObject::tr("Cannot open project"), QString(), QMessageBox::Ok, &window);
        messagefit::setText(&box, QString::fromStdString(e.what()));   // a long path: whole in Details
        box.exec();
    }

    for (const QString& arg : parser.values(setOpt)) {
        paraplan::FixChange change;
        QString err;
        if (!parseSet(arg, &change)) {
            err = QStringLiteral("expected /json/pointer=value");
        } else if (window.document()->applyChanges(QStringLiteral("Set %1").arg(QString::fromStdString(change.field)),
                                                   {change}, &err)) {
            continue;
        }
        std::fprintf(stderr, "paraplan: --set %s: %s\n", qPrintable(arg), qPrintable(err));
        return 2;
    }
    if (parser.isSet(colourOpt)) {
        window.rankGrid()->setColourAxis(parser.value(colourOpt));
        window.canvas()->setColourAxis(parser.value(colourOpt));
    }
    if (parser.isSet(groupOpt)) {
        window.rankGrid()->setGroupKind(parser.value(groupOpt));
    } else if (parser.isSet(colourOpt) && window.rankGrid()->groupCombo()->findData(parser.value(colourOpt)) >= 0) {
        // A rank selected in the rank grid highlights the grid's group kind on the canvas too,
        // and colours the canvas by it: without --group that kind is the one --colour names
        // (else `--colour ep --select-rank 0` showed tp groups).
        window.rankGrid()->setGroupKind(parser.value(colourOpt));
    }
    if (parser.isSet(selectOpt)) {
        bool ok = false;
        const int rank = parser.value(selectOpt).toInt(&ok);
        if (!ok || rank < 0 || rank >= window.project().world_size()) {
            std::fprintf(stderr, "paraplan: --select-rank %s: not a rank of this project (0..%d)\n",
                         qPrintable(parser.value(selectOpt)), window.project().world_size() - 1);
            return 2;
        }
        window.rankGrid()->selectRank(rank);
        window.canvas()->selectGroupOf(rank);
    }
    if (parser.isSet(dryRunOpt)) window.runPanel()->dryRun();
    if (parser.isSet(noPaletteOpt)) window.canvas()->paletteList()->hide();

    if (parser.isSet(playbackOpt)) {
        renderPlaybackFrames(window, screenshotSize(parser.value(sizeOpt)), parser.value(playbackOpt),
                             parser.value(framesOpt).toInt());
        return app.exec();
    }
    if (parser.isSet(screenshot)) {
        ScreenshotRequest req;
        req.out = parser.value(screenshot);
        req.size = screenshotSize(parser.value(sizeOpt));
        if (parser.isSet(viewOpt)) req.view = parser.value(viewOpt);
        req.grabView = parser.isSet(grabViewOpt);
        if (parser.isSet(exportOpt)) req.exportFormat = parser.value(exportOpt);
        req.compare = parser.values(compareOpt);
        req.addNodes = parser.values(addNodeOpt);
        req.newDialog = parser.isSet(newDialogOpt);
        req.invoke = parser.values(invokeOpt);
        req.waitMs = qBound(0, parser.value(waitOpt).toInt(), 600'000);
        ScreenshotHarness harness(&window, req);
        QObject::connect(&harness, &ScreenshotHarness::finished, &app, [](int code) { QCoreApplication::exit(code); });
        harness.start();
        return app.exec();
    }
    window.show();
    window.offerRecovery();
    return app.exec();
}
