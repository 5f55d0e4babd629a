#include "guide_section.h"

#include <QAbstractTextDocumentLayout>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>

QString headingAnchor(const QString& heading) {
    QString out;
    const QString lower = heading.trimmed().toLower();
    for (const QChar c : lower) {
        if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_')) out += c;
        else if (c == QLatin1Char(' ')) out += QLatin1Char('-');
    }
    return out;
}

bool scrollToHeading(QTextBrowser* browser, const QString& anchor) {
    QTextDocument* doc = browser->document();
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
        if (b.blockFormat().headingLevel() == 0 || headingAnchor(b.text()) != anchor) continue;
        // The cursor at the heading (keyboard reading goes on from there), the heading at the top.
        browser->setTextCursor(QTextCursor(b));
        const QRectF r = doc->documentLayout()->blockBoundingRect(b);
        browser->verticalScrollBar()->setValue(int(r.top()));
        return true;
    }
    return false;
}
