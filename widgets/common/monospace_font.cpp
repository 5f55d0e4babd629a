#include "common/monospace_font.h"

#include <QFontDatabase>
#include <QFontMetricsF>
#include <QStringList>

namespace paraplan::widgets {

bool hasEqualAdvances(const QFont& font) {
    const QFontMetricsF fm(font);
    const qreal width = fm.horizontalAdvance(QLatin1Char('M'));
    if (width <= 0) return false;
    for (char c = 0x21; c < 0x7f; ++c)
        if (!qFuzzyCompare(fm.horizontalAdvance(QLatin1Char(c)), width)) return false;
    return true;
}

namespace {

QFont chooseMonospaceFont() {
    const QFont system = QFontDatabase::systemFont(QFontDatabase::FixedFont);
    if (hasEqualAdvances(system)) return system;
    const QStringList installed = QFontDatabase::families();
    for (const char* family : {"DejaVu Sans Mono", "Liberation Mono", "Noto Sans Mono", "Noto Mono", "Source Code Pro",
                               "Ubuntu Mono", "Hack", "Fira Mono", "Courier New", "FreeMono", "Nimbus Mono PS"}) {
        const QString name = QString::fromLatin1(family);
        if (!installed.contains(name, Qt::CaseInsensitive)) continue;
        QFont f(name, system.pointSize());
        f.setStyleHint(QFont::TypeWriter);
        if (hasEqualAdvances(f)) return f;
    }
    return system;
}

}   // namespace

QFont monospaceFont() {
    static const QFont font = chooseMonospaceFont();
    return font;
}

}   // namespace paraplan::widgets
