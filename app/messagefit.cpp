#include "messagefit.h"

#include <QMessageBox>
#include <QStringList>

namespace messagefit {

namespace {
QString elideWord(const QString& word, int maxWord) {
    if (word.size() <= maxWord) return word;
    const int half = (maxWord - 1) / 2;
    return word.left(half) + QChar(0x2026) + word.right(maxWord - 1 - half);
}

// The whole text first in the details, before what the box held there.
void keepWhole(QMessageBox* box, const QString& text) {
    const QString before = box->detailedText();
    box->setDetailedText(before.isEmpty() ? text : text + QStringLiteral("\n\n") + before);
}
}   // namespace

QString shortText(const QString& text, int maxWord, int maxLines, int maxChars) {
    QStringList lines = text.split(QLatin1Char('\n'));
    const bool tooManyLines = lines.size() > maxLines;
    if (tooManyLines) lines = lines.mid(0, maxLines - 1);
    for (QString& line : lines) {
        QStringList words = line.split(QLatin1Char(' '));
        for (QString& w : words) w = elideWord(w, maxWord);
        line = words.join(QLatin1Char(' '));
    }
    if (tooManyLines) lines << QString(QChar(0x2026));
    QString out = lines.join(QLatin1Char('\n'));
    if (out.size() > maxChars) out = out.left(maxChars - 1) + QChar(0x2026);
    return out;
}

void setText(QMessageBox* box, const QString& text) {
    const QString s = shortText(text);
    box->setTextFormat(Qt::PlainText);   // an elided word must not cut a tag in two
    box->setText(s);
    if (s != text) keepWhole(box, text);
}

}   // namespace messagefit
