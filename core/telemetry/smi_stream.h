#pragma once
// One node's telemetry stream, line by line, into a TelemetryStore: nvidia-smi lines one by
// one, rocm-smi JSON documents whole (at their end marker). Unreadable output becomes a note
// in the store, never an exception.
#include "telemetry/smi_tool.h"
#include "telemetry/telemetry_store.h"

#include <string>

namespace paraplan::runtime {

class SmiStreamParser {
public:
    explicit SmiStreamParser(SmiTool tool = SmiTool::Nvidia) : tool_(tool) {}
    void line(TelemetryStore& store, int node, const std::string& line, double t);

private:
    SmiTool tool_;
    std::string doc_;
};

}   // namespace paraplan::runtime
