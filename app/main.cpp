// paraplan: the desktop topology designer.
#include "clustercanvas.h"
#include "mainwindow.h"
#include "project/project.h"
#include "util/input_error.h"

#include <QApplication>
#include <QCommandLineParser>
#include <QFileInfo>
#include <QImage>
#include <QMessageBox>
#include <QTextStream>

#include <cstdio>

int main(int argc, char** argv) {
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
    QCommandLineOption viewOpt(QStringLiteral("view"),
                               QStringLiteral("With --screenshot: bring this view to the front (canvas, grid, timeline, "
                                              "memory, diagnostics, planner, layout, history)."),
                               QStringLiteral("name"));
    parser.addOptions({screenshot, projectOpt, sizeOpt, exampleOpt, viewOpt});
    parser.addPositionalArgument(QStringLiteral("file"), QStringLiteral("Project file to open."), QStringLiteral("[file]"));
    parser.process(app);

    MainWindow window;
    QString path = parser.value(projectOpt);
    if (path.isEmpty() && !parser.positionalArguments().isEmpty()) path = parser.positionalArguments().first();
    try {
        if (!path.isEmpty()) {
            window.setProject(paraplan::load_project(path.toStdString()), QFileInfo(path).absoluteFilePath());
        } else {
            const QString ex = parser.isSet(exampleOpt) ? parser.value(exampleOpt) : QStringLiteral("gpt2-1node");
            window.setProject(paraplan::load_example(ex.toStdString()), QString());
        }
    } catch (const std::exception& e) {
        if (parser.isSet(screenshot)) {
            std::fprintf(stderr, "paraplan: %s\n", e.what());
            return 2;
        }
        QMessageBox::warning(&window, QObject::tr("Cannot open project"), QString::fromStdString(e.what()));
    }

    if (parser.isSet(screenshot)) {
        const QStringList wh = parser.value(sizeOpt).split(QLatin1Char('x'));
        int w = 1600, h = 1000;
        if (wh.size() == 2) {
            w = qBound(320, wh[0].toInt(), 8000);
            h = qBound(240, wh[1].toInt(), 8000);
        }
        // Shown (off screen) before sizing: until the dock layout exists, the window's minimum
        // width counts every tabbed dock side by side.
        window.setAttribute(Qt::WA_DontShowOnScreen);
        window.show();
        window.resize(w, h);
        QApplication::processEvents();
        if (parser.isSet(viewOpt) && !window.raiseView(parser.value(viewOpt))) {
            std::fprintf(stderr, "paraplan: unknown view \"%s\" (known: %s)\n", qPrintable(parser.value(viewOpt)),
                         qPrintable(window.viewNames().join(QStringLiteral(", "))));
            return 2;
        }
        QApplication::processEvents();
        window.canvas()->zoomToFit();   // fit to the final size
        QApplication::processEvents();
        const QImage img = window.grab().toImage();
        if (!img.save(parser.value(screenshot))) {
            std::fprintf(stderr, "paraplan: cannot write %s\n", qPrintable(parser.value(screenshot)));
            return 2;
        }
        return 0;
    }
    window.show();
    window.offerRecovery();
    return app.exec();
}
