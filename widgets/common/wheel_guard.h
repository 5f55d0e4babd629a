#pragma once
// A spin box or combo box in a scrolling form takes the mouse wheel only when it has keyboard
// focus (the user clicked or tabbed into it). Otherwise the wheel scrolls the form, as it does
// over a label, instead of changing whatever field happens to pass under the pointer.
class QWidget;

namespace paraplan::widgets {

// Gives `field` Qt::StrongFocus (no focus by wheel) and passes wheel events on to its parent
// while it has no focus.
void guardWheel(QWidget* field);

}   // namespace paraplan::widgets
