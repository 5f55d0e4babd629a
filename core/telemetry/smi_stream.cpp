#include "telemetry/smi_stream.h"

#include "telemetry/rocm_smi.h"

namespace paraplan::runtime {

void SmiStreamParser::line(TelemetryStore& store, int node, const std::string& line, double t) {
    if (tool_ == SmiTool::Nvidia) {
        store.ingest(node, line, t);
        return;
    }
    if (line != kRocmSmiEndMarker) {
        if (doc_.size() < (1u << 20)) doc_ += line + "\n";   // a reading is a few KiB
        return;
    }
    const RocmSmiParse r = parse_rocm_smi_json(doc_);
    doc_.clear();
    for (const auto& s : r.samples) store.ingest_sample(node, s, t);
    for (const auto& e : r.errors) store.note(node, e);
}

}   // namespace paraplan::runtime
