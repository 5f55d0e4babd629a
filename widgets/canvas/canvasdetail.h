#pragma once
// How much of the cluster canvas is drawn at a zoom. The level of detail is the view's scale
// (QStyleOptionGraphicsItem::levelOfDetailFromTransform): near in, every node item draws its
// GPU tiles; further out ClusterOverviewItem draws each node as one block, and further still
// each block of kGroupNodes consecutive nodes. Both items read this one rule, so neither needs
// the other to know whether it draws.
#include <QtGlobal>

enum class CanvasDetail { Tiles, Nodes, Groups };

namespace canvas_detail {
// Below this level of detail a tile is under 6 x 4 pixels: nodes are drawn as blocks.
inline constexpr qreal kNodeBlockLod = 0.08;
// Below this a node block is about 5 pixels wide: blocks of kGroupNodes nodes.
inline constexpr qreal kGroupBlockLod = 0.016;
inline constexpr int kGroupNodes = 32;

constexpr CanvasDetail detailFor(qreal lod) {
    if (lod < kGroupBlockLod) return CanvasDetail::Groups;
    if (lod < kNodeBlockLod) return CanvasDetail::Nodes;
    return CanvasDetail::Tiles;
}
}   // namespace canvas_detail
