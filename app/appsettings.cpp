#include "appsettings.h"

#include <QFileInfo>

namespace AppSettings {

namespace {
QString& overridePath() {
    static QString p;
    return p;
}
}   // namespace

void setFileOverride(const QString& iniPath) { overridePath() = iniPath; }

std::unique_ptr<QSettings> open() {
    if (!overridePath().isEmpty()) return std::make_unique<QSettings>(overridePath(), QSettings::IniFormat);
    return std::make_unique<QSettings>();
}

QStringList recentFiles() { return open()->value(Key::kRecentFiles).toStringList(); }

void addRecentFile(const QString& path) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    auto s = open();
    QStringList list = s->value(Key::kRecentFiles).toStringList();
    list.removeAll(abs);
    list.prepend(abs);
    while (list.size() > kMaxRecentFiles) list.removeLast();
    s->setValue(Key::kRecentFiles, list);
}

}   // namespace AppSettings
