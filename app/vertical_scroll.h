#pragma once
// A docked view that needs more height than a short screen or a small dock gives it scrolls up
// and down inside its dock, instead of holding the dock (and the window) taller: Compare and
// Lessons made the window taller than a 700 px screen, the Planner, Run, GPU monitor and Memory
// views held the bottom docks at 273-293 px.
#include <QWidget>

// `view` inside a scroll area (objectName: the view's + "Scroll") as wide as the view needs
// beside its vertical scroll bar, never scrolled across.
QWidget* verticallyScrolled(QWidget* view);
