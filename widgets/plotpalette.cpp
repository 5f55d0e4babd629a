#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "plotpalette.h"

#include "theme.h"

void applyPlotPalette(QCustomPlot* plot, const QPalette& pal) {
    const QColor fg = pal.color(QPalette::WindowText);
    plot->setBackground(pal.color(QPalette::Base));
    for (QCPAxisRect* rect : plot->axisRects()) {
        for (QCPAxis* a : rect->axes()) {
            a->setBasePen(QPen(fg));
            a->setTickPen(QPen(fg));
            a->setSubTickPen(QPen(fg));
            a->setTickLabelColor(fg);
            a->setLabelColor(fg);
            a->grid()->setPen(QPen(theme::subtle(pal), 1, Qt::DotLine));
            a->grid()->setZeroLinePen(QPen(theme::subtle(pal)));   // QCustomPlot's own is light grey
        }
    }
    if (plot->legend) {
        plot->legend->setBrush(pal.color(QPalette::Base));
        plot->legend->setBorderPen(QPen(theme::subtle(pal)));
        plot->legend->setTextColor(fg);
    }
}
