#pragma once
// Every top-level window inside its screen's available area, with the frame the window manager
// puts around it (title bar, borders): the main window, each dialog, message boxes.
//
// A window's frame is known only once the window manager has framed it, some time after it is
// shown (on X11, when _NET_FRAME_EXTENTS arrives). So a window is fitted when shown, with the
// last frame seen on any window (or a guess before the first), and again every 50 ms for its
// first two seconds on screen; fitting a window that already fits does nothing.
#include <QMargins>

class QWidget;

namespace windowfit {

// Bounds `w` (a top-level window) to its screen's available area less its frame, keeping it no
// smaller than its minimum size, and moves it inside that area. Maximised, full-screen and
// off-screen (WA_DontShowOnScreen) windows are left alone.
void fitToScreen(QWidget* w);

// The frame around `w`: measured once the window manager has framed it, else the last one
// measured on any window, else a guess (a title bar and thin borders).
QMargins frameMargins(const QWidget* w);

// Fits every top-level window of the application when it is shown and while it settles
// (installed once; later calls do nothing).
void install();

}   // namespace windowfit
