#include "export/import.h"

#include "catalog/catalog.h"
#include "util/input_error.h"
#include "util/utf8.h"

#include <algorithm>

namespace paraplan {

namespace {
struct Importer {
    const char* id;   // the framework's exporter name (project/framework.h)
    ImportResult (*fn)(std::string_view, const Project&);
};
const std::vector<Importer>& importers() {
    static const std::vector<Importer> t = {{"colossalai", import_colossalai},
                                            {"megatron", import_megatron},
                                            {"deepspeed", import_deepspeed},
                                            {"torchtitan", import_torchtitan}};
    return t;
}
}   // namespace

const std::vector<std::string>& import_formats() {
    static const std::vector<std::string> f = [] {
        std::vector<std::string> v;
        for (const auto& i : importers()) v.push_back(i.id);
        return v;
    }();
    return f;
}

namespace {
bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}
}   // namespace

std::string detect_import_format(const std::string& path, std::string_view text) {
    const std::string t(text);
    if (ends_with(path, ".toml")) return "torchtitan";
    if (ends_with(path, ".json")) return "deepspeed";
    if (ends_with(path, ".py")) {
        if (t.find("Plugin(") != std::string::npos) return "colossalai";
        return "";
    }
    if (t.find("--tensor-model-parallel-size") != std::string::npos || t.find("--num-layers") != std::string::npos ||
        t.find("pretrain_gpt") != std::string::npos || t.find("pretrain_mamba") != std::string::npos)
        return "megatron";
    if (t.find("HybridParallelPlugin(") != std::string::npos || t.find("LowLevelZeroPlugin(") != std::string::npos ||
        t.find("GeminiPlugin(") != std::string::npos)
        return "colossalai";
    if (t.find("[parallelism]") != std::string::npos) return "torchtitan";
    if (t.find("train_micro_batch_size_per_gpu") != std::string::npos ||
        t.find("zero_optimization") != std::string::npos)
        return "deepspeed";
    return "";
}

namespace {
Cluster default_cluster(int world) {
    Cluster c;
    const std::string gpu = catalog::find_gpu("h100-sxm") ? "h100-sxm" : catalog::gpu_ids().at(0);
    const int per = world >= 8 ? 8 : std::max(1, world);
    const int nodes = std::max(1, (world + per - 1) / per);
    for (int i = 0; i < nodes; ++i)
        c.nodes.push_back(Node{"node" + std::to_string(i), "", gpu, per, "", 0, "", {}, nlohmann::json::object()});
    c.short_form = true;
    return c;
}
}   // namespace

Project default_import_base(int world) {
    Project p;
    p.name = "Imported";
    p.cluster = default_cluster(world > 0 ? world : 8);
    const ModelSpec* m = catalog::find_model("llama3.1-8b");
    if (!m) m = &catalog::models().at(0);
    p.model = *m;
    p.model_preset = m->id;
    return p;
}

ImportResult import_config(std::string_view text, const std::string& format, const Project& base,
                           bool base_is_default) {
    // Every config is text the results quote back (warnings, kept values): JSON, TOML and
    // Python 3 source (PEP 3120) are UTF-8, and JSON output cannot carry anything else.
    utf8::check(text);
    ImportResult r;
    const auto it = std::find_if(importers().begin(), importers().end(),
                                 [&](const Importer& i) { return format == i.id; });
    if (it != importers().end()) {
        r = it->fn(text, base);
    } else {
        std::string known;
        for (const auto& f : import_formats()) known += (known.empty() ? "" : ", ") + f;
        throw InputError("", "unknown import format '" + format + "' (known: " + known + ")");
    }
    r.format = format;
    const int world = r.project.world_size();
    if (base_is_default) {
        if (r.implied_world > 0 && r.implied_world != world) r.project.cluster = default_cluster(r.implied_world);
        r.notes.push_back("no base project given: the cluster is " + std::to_string(r.project.cluster.nodes.size()) +
                          " × " + std::to_string(r.project.cluster.gpus_per_node()) + " " +
                          r.project.cluster.nodes.front().gpu + " GPUs" +
                          (r.implied_world > 0 ? " (the world size the config implies)" : " (a default)") +
                          "; pass --project BASE to import onto your own cluster");
        if (r.project.model_preset == base.model_preset && !base.model_preset.empty())
            r.notes.push_back("no base project given: the model is the default preset " + base.model_preset);
    } else if (r.implied_world > 0 && r.implied_world != world) {
        r.warnings.push_back("the config implies " + std::to_string(r.implied_world) +
                             " GPUs but the base project's cluster has " + std::to_string(world) +
                             "; the layout is kept as read");
    }
    return r;
}

}   // namespace paraplan
