#pragma once
// Counts in plain words: "1 node", "3 nodes" (the app has no translations, so Qt's %n
// plural forms would show "node(s)").
#include <QString>

namespace wording {

// `many` holds %1 for the count, e.g. count(n, QObject::tr("1 node"), QObject::tr("%1 nodes")).
inline QString count(long long n, const QString& one, const QString& many) { return n == 1 ? one : many.arg(n); }

}   // namespace wording
