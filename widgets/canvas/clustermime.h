#pragma once
// Drag-and-drop formats of the cluster canvas and its palette.
#include <QByteArray>
#include <QString>

namespace clustermime {
// {"gpu": id, "gpus": n}: a whole node from the palette.
inline const QString kNodeTemplate = QStringLiteral("application/x-paraplan-node-template");
// {"system": id}: one rack (scale-up domain) of a systems-catalog system from the palette.
inline const QString kSystem = QStringLiteral("application/x-paraplan-system");
// {"gpu": id}: one GPU of a type from the palette.
inline const QString kGpuType = QStringLiteral("application/x-paraplan-gpu-type");
// {"node": i, "local_rank": k}: a GPU already on the canvas.
inline const QString kGpu = QStringLiteral("application/x-paraplan-gpu");
// {"node": i}: a node dragged by its title bar, to change its place in the node order.
inline const QString kNode = QStringLiteral("application/x-paraplan-node");
}   // namespace clustermime
