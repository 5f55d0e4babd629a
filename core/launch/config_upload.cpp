#include "launch/config_upload.h"

#include "export/export.h"
#include "project/framework.h"
#include "util/input_error.h"

#include <set>

namespace paraplan::runtime {

std::string config_export_format(const Project& p, const RuntimeConfig& rc) {
    if (rc.mode == "deepspeed" || rc.mode == "colossalai") return rc.mode;
    const FrameworkTraits* t = find_traits(p.layout.framework);
    return t ? t->exporter : "torchrun";
}

void add_config_uploads(LaunchPlan& plan, const Project& p, const RuntimeConfig& rc) {
    if (!rc.upload_configs) return;
    const std::string format = config_export_format(p, rc);
    ExportOptions opt;
    opt.script = rc.script;
    opt.script_args = rc.args;
    opt.master_addr = plan.master_addr;
    opt.master_port = plan.master_port;
    const ExportResult r = export_project(p, format, opt);
    if (r.refused) {
        std::string why = "the layout cannot be exported";
        std::string where = "/layout";
        for (const auto& d : r.diagnostics)
            if (d.severity == Severity::Error) {
                why = d.message;
                if (!d.fields.empty()) where = d.fields.front();
                break;
            }
        throw InputError(where, "the " + format + " config files for this launch cannot be written: " + why +
                                    " (fix the layout, or set runtime.upload_configs to false)");
    }
    std::set<int> nodes;
    for (const auto& proc : plan.processes) nodes.insert(proc.node);
    const std::string dir = rc.upload_dir.empty() ? std::string() : rc.upload_dir + "/";
    long long per_node = 0;
    for (const auto& [name, file] : r.files) per_node += static_cast<long long>(file.content.size());
    if (per_node * static_cast<long long>(nodes.size()) > kMaxUploadBytes)
        throw InputError("/cluster/nodes", "the " + format + " config files (" + std::to_string(per_node) +
                                               " bytes) on each of " + std::to_string(nodes.size()) + " nodes exceed " +
                                               std::to_string(kMaxUploadBytes >> 20) +
                                               " MiB in all; launch on fewer nodes, or set "
                                               "runtime.upload_configs to false and copy them yourself");
    for (int n : nodes)
        for (const auto& [name, file] : r.files) plan.uploads.push_back({n, dir + name, file.content});
}

}   // namespace paraplan::runtime
