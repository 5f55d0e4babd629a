#pragma once
// A font whose glyphs really have one width, for code previews and logs.
//
// QFontDatabase::systemFont(FixedFont) names fontconfig's `monospace`, which on one machine is
// DejaVu Sans Mono and on another Noto Sans Mono (not flagged as fixed pitch by fontconfig) or,
// where no monospaced font is installed, a proportional fallback. So the choice is checked by what
// matters, equal advances, rather than by the pitch flag.
#include <QFont>

namespace paraplan::widgets {

// True when every printable ASCII character of `font` advances by the same width.
bool hasEqualAdvances(const QFont& font);

// The system's fixed font if its glyphs have equal advances, else the first installed family
// among well-known monospaced ones that has them, else the system's fixed font as it is.
// Computed once per process.
QFont monospaceFont();

}   // namespace paraplan::widgets
