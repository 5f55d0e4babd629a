#pragma once
// Message boxes and input dialogs whose text names what the user gave them (a path, a file name,
// a parser's message, many import notes) stay inside the screen.
//
// QMessageBox sizes itself to its text: it wraps a long word anywhere only past a width limit
// that is the screen's whole width on screens up to 1024 pixels (frame not counted), and it grows
// as tall as the wrapped text (Qt 6.4 QMessageBoxPrivate::updateSize). A QInputDialog's label does
// not wrap at all. So a text shown whole is shortened first: each long word (a path of thousands
// of characters) elided in its middle, and at most a few lines; the box keeps the whole text in
// its Show Details… pane, which scrolls.
#include <QString>

class QMessageBox;

namespace messagefit {

// `text` with every word longer than `maxWord` characters elided in its middle and, past
// `maxLines` lines or `maxChars` characters, cut (ending in "…"). `text` itself when it is short.
QString shortText(const QString& text, int maxWord = 60, int maxLines = 12, int maxChars = 900);

// Sets `text` (plain text) as the box's text, shortened when it is long; the whole text then
// goes first in the box's detailed text (before what the box held there).
void setText(QMessageBox* box, const QString& text);

}   // namespace messagefit
