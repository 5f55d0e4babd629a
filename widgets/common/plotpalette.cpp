#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "common/plotpalette.h"

#include "common/theme.h"

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
            // QCustomPlot's own zero line is light grey. A category axis (text ticker: pipeline
            // stages, time terms) has no zero: its line would run through the first bar.
            const bool categories = dynamic_cast<QCPAxisTickerText*>(a->ticker().data()) != nullptr;
            a->grid()->setZeroLinePen(categories ? QPen(Qt::NoPen) : QPen(theme::subtle(pal)));
        }
    }
    if (plot->legend) {
        plot->legend->setBrush(pal.color(QPalette::Base));
        plot->legend->setBorderPen(QPen(theme::subtle(pal)));
        plot->legend->setTextColor(fg);
    }
}
