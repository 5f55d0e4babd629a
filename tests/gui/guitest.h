#pragma once
// Shared set-up for GUI tests: private settings and recovery folders, so tests
// never read or write the user's files.
#include "appsettings.h"
#include "mainwindow.h"
#include "project/project.h"

#include <QStandardPaths>
#include <QTemporaryDir>

#include <memory>

inline void isolateSettings(const QTemporaryDir& dir) {
    QStandardPaths::setTestModeEnabled(true);   // before any QSettings is created
    AppSettings::setFileOverride(dir.filePath(QStringLiteral("settings.ini")));
}

// A main window (autosaves kept under `dir`) holding a built-in example project.
inline std::unique_ptr<MainWindow> exampleWindow(const QTemporaryDir& dir, const char* example) {
    auto w = std::make_unique<MainWindow>(nullptr, dir.filePath(QStringLiteral("rec")));
    w->setProject(paraplan::load_example(example), QString());
    return w;
}
