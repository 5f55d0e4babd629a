#include <qcustomplot.h>   // first: it uses the signals/foreach keywords (docs/hacking.md)

#include "common/picture_export.h"

#include <QFileInfo>
#include <QGraphicsScene>
#include <QImage>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QWidget>

#include <functional>

namespace picture {
namespace {

QString suffix(const QString& path) { return QFileInfo(path).suffix().toLower(); }

bool fail(QString* error, const QString& text) {
    if (error) *error = text;
    return false;
}

// Paints `draw` (which fills a target rectangle of `size` logical pixels) into the file.
bool save(const QString& path, const QSize& size, const QString& title, const QColor& background,
          const std::function<void(QPainter&, const QRectF&)>& draw, QString* error) {
    if (size.isEmpty()) return fail(error, QObject::tr("there is nothing to draw"));
    const QString ext = suffix(path);
    const QRectF target(QPointF(0, 0), QSizeF(size));
    if (ext == QLatin1String("png")) {
        QImage img(size * 2, QImage::Format_ARGB32_Premultiplied);
        img.setDevicePixelRatio(2.0);
        img.fill(background);
        {
            QPainter p(&img);
            p.setRenderHint(QPainter::Antialiasing);
            p.setRenderHint(QPainter::TextAntialiasing);
            draw(p, target);
        }
        if (!img.save(path, "PNG")) return fail(error, QObject::tr("cannot write %1").arg(path));
        return true;
    }
    if (ext == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(size);
        gen.setViewBox(target);
        gen.setTitle(title);
        QPainter p;
        if (!p.begin(&gen)) return fail(error, QObject::tr("cannot write %1").arg(path));
        p.fillRect(target, background);
        draw(p, target);
        if (!p.end()) return fail(error, QObject::tr("cannot write %1").arg(path));
        return QFileInfo(path).size() > 0 || fail(error, QObject::tr("cannot write %1").arg(path));
    }
    if (ext == QLatin1String("pdf")) {
        QPdfWriter pdf(path);
        pdf.setTitle(title);
        pdf.setCreator(QStringLiteral("Paraplan"));
        pdf.setResolution(96);
        pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));   // one page the size of the picture
        pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
        QPainter p;
        if (!p.begin(&pdf)) return fail(error, QObject::tr("cannot write %1").arg(path));
        const QRectF page(QPointF(0, 0), QSizeF(pdf.width(), pdf.height()));
        const double scale = std::min(page.width() / size.width(), page.height() / size.height());
        p.scale(scale, scale);
        p.fillRect(target, background);
        draw(p, target);
        p.end();
        return QFileInfo(path).size() > 0 || fail(error, QObject::tr("cannot write %1").arg(path));
    }
    return fail(error, QObject::tr("unknown picture format \"%1\" (png, svg or pdf)").arg(ext));
}

}   // namespace

bool isPictureFormat(const QString& path) {
    const QString e = suffix(path);
    return e == QLatin1String("png") || e == QLatin1String("svg") || e == QLatin1String("pdf");
}

QString dialogFilter() { return QObject::tr("PNG image (*.png);;SVG drawing (*.svg);;PDF (*.pdf)"); }

bool saveWidget(QWidget* w, const QString& path, const QString& title, QString* error, QSize area) {
    if (!w) return fail(error, QObject::tr("there is nothing to draw"));
    w->ensurePolished();
    if (w->size().isEmpty()) w->resize(w->sizeHint());
    const QSize size = area.isEmpty() ? w->size() : area.boundedTo(w->size());
    return save(
        path, size, title, w->palette().color(QPalette::Window),
        [w, size](QPainter& p, const QRectF&) {
            w->render(&p, QPoint(), QRegion(QRect(QPoint(), size)), QWidget::DrawChildren);
        },
        error);
}

bool saveScene(QGraphicsScene* scene, const QString& path, const QString& title, QString* error, QRectF source) {
    if (!scene) return fail(error, QObject::tr("there is nothing to draw"));
    if (source.isEmpty()) source = scene->itemsBoundingRect();
    source.adjust(-12, -12, 12, 12);
    // Large clusters: keep the picture within 8,000 px on its long side.
    const double scale = std::min(1.0, 8000.0 / std::max(source.width(), source.height()));
    const QSize size = (source.size() * scale).toSize();
    const QColor bg = scene->backgroundBrush().style() == Qt::NoBrush ? QColor(Qt::white)
                                                                      : scene->backgroundBrush().color();
    return save(
        path, size, title, bg,
        [scene, source](QPainter& p, const QRectF& target) { scene->render(&p, target, source); }, error);
}

bool savePlot(QCustomPlot* plot, const QString& path, const QString& title, QString* error) {
    if (!plot) return fail(error, QObject::tr("there is nothing to draw"));
    // A chart squeezed into a narrow panel is drawn at a readable size.
    const QSize size = plot->size().expandedTo(QSize(640, 400));
    const QString ext = suffix(path);
    if (ext == QLatin1String("png")) {
        return plot->savePng(path, size.width(), size.height(), 2.0) ||
               fail(error, QObject::tr("cannot write %1").arg(path));
    }
    if (ext == QLatin1String("pdf")) {
        return plot->savePdf(path, size.width(), size.height(), QCP::epNoCosmetic, QStringLiteral("Paraplan"), title) ||
               fail(error, QObject::tr("cannot write %1").arg(path));
    }
    if (ext == QLatin1String("svg")) {
        QSvgGenerator gen;
        gen.setFileName(path);
        gen.setSize(size);
        gen.setViewBox(QRect(QPoint(0, 0), size));
        gen.setTitle(title);
        QCPPainter painter(&gen);
        plot->toPainter(&painter, size.width(), size.height());
        return painter.end() || fail(error, QObject::tr("cannot write %1").arg(path));
    }
    return fail(error, QObject::tr("unknown picture format \"%1\" (png, svg or pdf)").arg(ext));
}

}   // namespace picture
