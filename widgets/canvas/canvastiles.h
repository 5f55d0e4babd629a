#pragma once
// What the cluster canvas's GPU tiles show, for the whole cluster in flat arrays (one entry
// per GPU). The canvas builds it once per refresh without touching its 16,384 node items; a
// node item turns its part into tiles, captions and header text only when it is painted or
// asked (so an edit at far zoom refreshes no node item), and the overview item summarizes
// blocks of nodes straight from it.
#include "common/heatmap.h"
#include "project/project.h"

#include <QColor>
#include <QString>

#include <functional>
#include <memory>
#include <vector>

struct CanvasTiles {
    // Increases whenever anything below changes: a node item whose tiles were made for an
    // older generation makes them again the next time they are needed.
    quint64 generation = 1;
    // The project the tiles were made for (node names, hosts and GPU types for the headers).
    std::shared_ptr<const paraplan::Project> project;
    std::vector<int> first;          // node n's GPUs are tiles [first[n], first[n + 1])
    std::vector<int> rank;           // per tile: global rank, -1 when unplaced
    std::vector<int> colour;         // per tile: index into colours, -1 when it has none
    std::vector<QColor> colours;     // one per group of the "Colour by" axis
    std::vector<char> highlighted;   // per tile: member of the selected group
    const Heatmap* heat = nullptr;   // when set the tiles show it (by rank) instead of colours
    // Each tile's caption ("tp1 pp0 dp3") from its rank; empty when the coordinates are unknown.
    std::shared_ptr<const std::function<QString(int rank)>> caption;

    int nodeCount() const { return first.empty() ? 0 : static_cast<int>(first.size()) - 1; }
    int tileCount(int node) const {
        return node >= 0 && node < nodeCount()
                   ? first[static_cast<std::size_t>(node) + 1] - first[static_cast<std::size_t>(node)]
                   : 0;
    }
    void touch() { ++generation; }
};
