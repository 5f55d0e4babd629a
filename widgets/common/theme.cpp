#include "common/theme.h"

#include <array>
#include <cmath>

namespace theme {

bool isDark(const QPalette& pal) {
    // Qt 6.4 has no QStyleHints::colorScheme(); compare text and window lightness.
    return pal.color(QPalette::WindowText).lightness() > pal.color(QPalette::Window).lightness();
}

QColor groupColor(int index, const QPalette& pal) {
    static const std::array<QColor, 8> okabeIto = {
        QColor(0x00, 0x72, 0xB2), QColor(0xE6, 0x9F, 0x00), QColor(0x00, 0x9E, 0x73), QColor(0xCC, 0x79, 0xA7),
        QColor(0x56, 0xB4, 0xE9), QColor(0xD5, 0x5E, 0x00), QColor(0xF0, 0xE4, 0x42), QColor(0x99, 0x99, 0x99)};
    QColor c;
    if (index >= 0 && index < static_cast<int>(okabeIto.size())) {
        c = okabeIto[static_cast<std::size_t>(index)];
    } else {
        const double hue = std::fmod(0.11 + 0.618033988749895 * index, 1.0);
        c = QColor::fromHsvF(static_cast<float>(hue), 0.55f, 0.85f);
    }
    return isDark(pal) ? c.darker(115) : c.lighter(112);
}

QColor textOn(const QColor& fill) {
    const double y = 0.299 * fill.redF() + 0.587 * fill.greenF() + 0.114 * fill.blueF();
    return y > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250);
}

QColor errorColor(const QPalette& pal) { return isDark(pal) ? QColor(0xff, 0x6b, 0x6b) : QColor(0xc6, 0x28, 0x28); }
QColor warningColor(const QPalette& pal) { return isDark(pal) ? QColor(0xff, 0xc1, 0x4d) : QColor(0xb2, 0x6a, 0x00); }
QColor subtle(const QPalette& pal) {
    QColor c = pal.color(QPalette::WindowText);
    c.setAlphaF(0.25f);
    return c;
}

}   // namespace theme
