#pragma once
// The large cluster of the live-heat test and benchmark: `nodes` x 8 H100s under Megatron tp 8,
// pp 8, and a telemetry store holding three samples of every GPU, GPU g of node n at
// (8 n + g) % 101 % utilization.
#include "project/project.h"
#include "telemetry/telemetry_store.h"

#include <QString>

#include <string>

inline paraplan::Project heat_cluster(int nodes) {
    paraplan::Project p;
    p.name = "big";
    for (int i = 0; i < nodes; ++i) {
        paraplan::Node n;
        n.name = "n" + std::to_string(i);
        n.gpu = "h100-sxm";
        n.gpus = 8;
        p.cluster.nodes.push_back(n);
    }
    p.layout.framework = "megatron";
    p.layout.tp = 8;
    p.layout.pp = 8;
    return p;
}

inline paraplan::runtime::TelemetryStore heat_store(const paraplan::Cluster& c) {
    paraplan::runtime::TelemetryStore store(c);
    for (int n = 0; n < static_cast<int>(c.nodes.size()); ++n)
        for (int g = 0; g < 8; ++g)
            for (int t = 0; t < 3; ++t)
                store.ingest(n,
                             QString("%1, GPU-x, NVIDIA H100 80GB HBM3, %2, 70000, 81559, 60, 600")
                                 .arg(g)
                                 .arg((n * 8 + g) % 101)
                                 .toStdString(),
                             t);
    return store;
}
