#pragma once
// The one place that opens QSettings. Tests point it at a private file with
// setFileOverride() (or enable QStandardPaths test mode before any use).
#include <QSettings>
#include <QString>
#include <QStringList>

#include <memory>

namespace AppSettings {

// Bump when docks are added/renamed so that an old saved layout is not restored
// over the new set of panels (QMainWindow::restoreState checks it).
inline constexpr int kWindowStateVersion = 4;   // 4: the Planner dock
inline constexpr int kMaxRecentFiles = 8;

namespace Key {
inline constexpr char kGeometry[] = "window/geometry";
inline constexpr char kState[] = "window/state";
inline constexpr char kRecentFiles[] = "files/recent";
inline constexpr char kLastDir[] = "files/lastDir";
inline constexpr char kColourScheme[] = "view/colours";   // system, light or dark
}   // namespace Key

void setFileOverride(const QString& iniPath);   // empty: the platform default
std::unique_ptr<QSettings> open();

QStringList recentFiles();
void addRecentFile(const QString& path);   // most recent first, deduplicated, capped

}   // namespace AppSettings
