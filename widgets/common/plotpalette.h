#pragma once
// A QCustomPlot drawn in a widget palette's colours: background, axes, grid and legend
// (QCustomPlot keeps its own light colours otherwise, so a chart stays white in the dark scheme).
class QCustomPlot;
class QPalette;

void applyPlotPalette(QCustomPlot* plot, const QPalette& pal);
