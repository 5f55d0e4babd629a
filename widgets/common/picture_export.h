#pragma once
// Saving what a view draws as a picture, chosen by the file's extension: .png (at twice
// the screen's pixels), .svg (vector) or .pdf (vector). One function per kind of view:
// any widget, a whole graphics scene (not only the part in view), a QCustomPlot.
#include <QRectF>
#include <QSize>
#include <QString>

class QCustomPlot;
class QGraphicsScene;
class QWidget;

namespace picture {

// "png", "svg" and "pdf"; the file dialog filter for them.
bool isPictureFormat(const QString& path);
QString dialogFilter();

// `area`: the part of the widget to draw from its top left (empty: all of it).
bool saveWidget(QWidget* w, const QString& path, const QString& title, QString* error = nullptr, QSize area = {});
// `source`: the part of the scene to draw (empty: the bounding box of its items).
bool saveScene(QGraphicsScene* scene, const QString& path, const QString& title, QString* error = nullptr,
               QRectF source = {});
bool savePlot(QCustomPlot* plot, const QString& path, const QString& title, QString* error = nullptr);

}   // namespace picture
