#pragma once
// A section of a Markdown guide shown in a QTextBrowser, found by the anchor a link to it on
// GitHub uses: the heading's text in lower case, spaces as hyphens, other punctuation dropped
// (docs/concepts.md#tensor-parallelism-1d-2d-25d-3d). Qt's Markdown reader gives headings no
// anchors of their own (QTextMarkdownImporter keeps only the heading level), so the browser is
// scrolled to the heading's block.
#include <QString>

class QTextBrowser;

// "Tensor parallelism (1D, 2D, 2.5D, 3D)" -> "tensor-parallelism-1d-2d-25d-3d".
QString headingAnchor(const QString& heading);
// Scrolls `browser` so the heading whose anchor is `anchor` is at its top; false when no heading has it.
bool scrollToHeading(QTextBrowser* browser, const QString& anchor);
