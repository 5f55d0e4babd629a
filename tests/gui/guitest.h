#pragma once
// Shared set-up for GUI tests: private settings and recovery folders, so tests
// never read or write the user's files.
#include "appsettings.h"
#include "mainwindow.h"
#include "project/project.h"

#include <QApplication>
#include <QByteArray>
#include <QFile>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <memory>

inline void isolateSettings(const QTemporaryDir& dir) {
    QStandardPaths::setTestModeEnabled(true);   // before any QSettings is created
    AppSettings::setFileOverride(dir.filePath(QStringLiteral("settings.ini")));
    // Paraplan's own folders (ssh profiles, job records: util/local_dirs.h) inside `dir` too.
    qputenv("XDG_CONFIG_HOME", dir.filePath(QStringLiteral("xdg-config")).toUtf8());
    qputenv("XDG_STATE_HOME", dir.filePath(QStringLiteral("xdg-state")).toUtf8());
}

// A main window (autosaves kept under `dir`) holding a built-in example project.
inline std::unique_ptr<MainWindow> exampleWindow(const QTemporaryDir& dir, const char* example) {
    auto w = std::make_unique<MainWindow>(nullptr, dir.filePath(QStringLiteral("rec")));
    w->setProject(paraplan::load_example(example), QString());
    return w;
}

// exampleWindow(), shown and exposed, after the queued first-show passes (fit to screen, dock
// proportions); nullptr when it is never exposed.
inline std::unique_ptr<MainWindow> shownExampleWindow(const QTemporaryDir& dir, const char* example) {
    auto w = exampleWindow(dir, example);
    w->show();
    if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
    QTest::qWait(50);
    return w;
}

// Before the QApplication: the offscreen platform shows one screen of `width` x `height`
// (logical 96 dpi) instead of its default 800 x 600, described in a file kept in `dir`.
// False when that file cannot be written.
inline bool useOffscreenScreen(const QTemporaryDir& dir, const char* name, int width, int height) {
    const QString config = dir.filePath(QStringLiteral("screen.json"));
    QFile f(config);
    if (!f.open(QIODevice::WriteOnly)) return false;
    f.write(QStringLiteral("{\"screens\": [{\"name\": \"%1\", \"x\": 0, \"y\": 0, \"width\": %2, \"height\": %3, "
                           "\"logicalDpi\": 96, \"logicalBaseDpi\": 96, \"dpr\": 1}]}")
                .arg(QString::fromLatin1(name))
                .arg(width)
                .arg(height)
                .toUtf8());
    f.close();
    qputenv("QT_QPA_PLATFORM", QByteArray("offscreen:configfile=") + config.toUtf8());
    return true;
}

// main() of a GUI test that runs on an offscreen screen of `width` x `height` (useOffscreenScreen),
// in the app's style (Fusion), e.g. PARAPLAN_SCREEN_TEST_MAIN(TestJourneys, "laptop", 1280, 800).
#define PARAPLAN_SCREEN_TEST_MAIN(TestClass, screenName, width, height)          \
    int main(int argc, char** argv) {                                            \
        QTemporaryDir screenDir;                                                 \
        if (!useOffscreenScreen(screenDir, screenName, width, height)) return 1; \
        QApplication app(argc, argv);                                            \
        QApplication::setStyle(QStringLiteral("Fusion")); /* as the app */       \
        TestClass t;                                                             \
        QTEST_SET_MAIN_SOURCE_PATH                                               \
        return QTest::qExec(&t, argc, argv);                                     \
    }
