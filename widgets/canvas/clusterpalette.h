#pragma once
// The palette beside the cluster canvas: the systems catalog's systems (one rack each), node
// templates and single GPUs of every catalog GPU type, to drag onto the canvas.
#include <QListWidget>

#include <optional>
#include <utility>

class ClusterPalette : public QListWidget {
    Q_OBJECT
public:
    explicit ClusterPalette(QWidget* parent = nullptr);
    // As wide as its longest entry ("8 × h100-96g-500w") and a vertical scroll bar.
    QSize sizeHint() const override;
    // The node template of the current item ({gpu, gpus}); nullopt when a GPU or a heading is current.
    std::optional<std::pair<QString, int>> currentTemplate() const;
    // The systems-catalog id of the current item; empty unless a system is current.
    QString currentSystem() const;

protected:
    QMimeData* mimeData(const QList<QListWidgetItem*>& items) const override;
    QStringList mimeTypes() const override;
};
