#include "exporthighlighter.h"

#include <QRegularExpression>

ExportHighlighter::ExportHighlighter(QTextDocument* doc, paraplan::FileSyntax syntax, bool dark)
    : QSyntaxHighlighter(doc), syntax_(syntax) {
    comment_.setForeground(dark ? QColor(0x8b, 0xc3, 0x4a) : QColor(0x2e, 0x7d, 0x32));
    comment_.setFontItalic(true);
    string_.setForeground(dark ? QColor(0xff, 0xb7, 0x4d) : QColor(0xa3, 0x4a, 0x00));
    flag_.setForeground(dark ? QColor(0x64, 0xb5, 0xf6) : QColor(0x15, 0x65, 0xc0));
    flag_.setFontWeight(QFont::DemiBold);
}

void ExportHighlighter::highlightBlock(const QString& text) {
    using paraplan::FileSyntax;
    static const QRegularExpression flag(QStringLiteral("(?<![\\w-])--?[A-Za-z][\\w-]*"));
    static const QRegularExpression str(QStringLiteral("\"(?:[^\"\\\\]|\\\\.)*\"|'[^']*'"));
    for (auto it = flag.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(int(m.capturedStart()), int(m.capturedLength()), flag_);
    }
    // Strings after flags: a flag inside quotes reads as part of the string.
    QList<QPair<int, int>> strings;
    for (auto it = str.globalMatch(text); it.hasNext();) {
        const auto m = it.next();
        setFormat(int(m.capturedStart()), int(m.capturedLength()), string_);
        strings.append({int(m.capturedStart()), int(m.capturedEnd())});
    }
    const bool hashComments = syntax_ == FileSyntax::Python || syntax_ == FileSyntax::Shell ||
                              syntax_ == FileSyntax::Toml || syntax_ == FileSyntax::Yaml ||
                              syntax_ == FileSyntax::HashCommentText;
    if (!hashComments) return;
    // A '#' outside any string starts a comment to the end of the line.
    for (int i = 0; i < text.size(); ++i) {
        if (text[i] != QLatin1Char('#')) continue;
        bool inString = false;
        for (const auto& [a, b] : strings) inString = inString || (i >= a && i < b);
        if (inString) continue;
        if (syntax_ == FileSyntax::Shell && i > 0 && !text[i - 1].isSpace()) continue;   // ${#x}, a#b
        setFormat(i, int(text.size()) - i, comment_);
        return;
    }
}
