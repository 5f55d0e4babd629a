#pragma once
// The palette beside the cluster canvas: node templates and single GPUs of every
// catalog GPU type, to drag onto the canvas.
#include <QListWidget>

class ClusterPalette : public QListWidget {
    Q_OBJECT
public:
    explicit ClusterPalette(QWidget* parent = nullptr);

protected:
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
    QStringList mimeTypes() const override;
};
