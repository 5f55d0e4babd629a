#pragma once
// Light colouring for exported files in the Export dialog: comments, quoted strings
// and command-line flags (--name), by the file's syntax.
#include "export/export.h"

#include <QSyntaxHighlighter>
#include <QTextCharFormat>

class ExportHighlighter : public QSyntaxHighlighter {
    Q_OBJECT
public:
    ExportHighlighter(QTextDocument* doc, paraplan::FileSyntax syntax, bool dark);

protected:
    void highlightBlock(const QString& text) override;

private:
    paraplan::FileSyntax syntax_;
    QTextCharFormat comment_, string_, flag_;
};
