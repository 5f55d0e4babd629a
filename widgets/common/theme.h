#pragma once
// Colours shared by all views, derived from the current palette so that light and
// dark system themes both read well. One colour grammar across views: a group
// index always maps to the same hue; F/B/W ops have fixed hues.
#include <QColor>
#include <QPalette>

namespace theme {

bool isDark(const QPalette& pal);
// Distinct, colour-blind-friendlier hues (Okabe-Ito first, then golden-angle steps).
QColor groupColor(int index, const QPalette& pal);
QColor textOn(const QColor& fill);   // black or white, whichever reads better
QColor errorColor(const QPalette& pal);
QColor warningColor(const QPalette& pal);
QColor subtle(const QPalette& pal);   // grid lines, frames

}   // namespace theme
