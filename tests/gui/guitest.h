#pragma once
// Shared set-up for GUI tests: private settings and recovery folders, so tests
// never read or write the user's files.
#include "appsettings.h"

#include <QStandardPaths>
#include <QTemporaryDir>

inline void isolateSettings(const QTemporaryDir& dir) {
    QStandardPaths::setTestModeEnabled(true);   // before any QSettings is created
    AppSettings::setFileOverride(dir.filePath(QStringLiteral("settings.ini")));
}
