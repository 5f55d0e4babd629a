#include "catalog/catalog.h"

#include "util/input_error.h"
#include "util/json_read.h"
#include "util/resources.h"

#include <set>

namespace paraplan::catalog {

namespace {

using json_read::Obj;
using nlohmann::json;

template <typename Spec>
void check_unique_id(std::set<std::string>& seen, const Spec& s, const std::string& pointer) {
    if (!seen.insert(s.id).second) throw InputError(pointer + "/id", "duplicate id \"" + s.id + "\"");
}

std::string_view embedded(std::string_view path) {
    const auto data = resources::find(path);
    if (!data) throw InputError("", "built-in resource " + std::string(path) + " is missing from the library");
    return *data;
}

struct Catalogs {
    std::vector<GpuSpec> gpus;
    std::vector<ModelSpec> models;
};

// Loaded once, on first use; C++11 guarantees the static's initialisation is thread-safe.
const Catalogs& catalogs() {
    static const Catalogs c{parse_gpu_catalog(embedded("catalog/gpus.json")),
                            parse_model_catalog(embedded("catalog/models.json"))};
    return c;
}

}   // namespace

std::vector<GpuSpec> parse_gpu_catalog(std::string_view json_text) {
    const json j = json_read::parse(json_text);
    const Obj root(j, "");
    const json& arr = root.array("gpus");
    std::vector<GpuSpec> out;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < arr.size(); ++i) {
        const std::string p = "/gpus/" + std::to_string(i);
        out.push_back(gpu_from_json(arr[i], p));
        check_unique_id(seen, out.back(), p);
    }
    return out;
}

std::vector<ModelSpec> parse_model_catalog(std::string_view json_text) {
    const json j = json_read::parse(json_text);
    const Obj root(j, "");
    const json& arr = root.array("models");
    std::vector<ModelSpec> out;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < arr.size(); ++i) {
        const std::string p = "/models/" + std::to_string(i);
        const Obj entry(arr[i], p);
        const std::string id = entry.string("id");   // catalog entries need an id (inline specs do not)
        if (id.empty()) json_read::fail(entry.at("id"), "a non-empty string", *entry.get("id"));
        out.push_back(model_from_json(arr[i], p));
        check_unique_id(seen, out.back(), p);
    }
    return out;
}

const std::vector<GpuSpec>& gpus() { return catalogs().gpus; }
const std::vector<ModelSpec>& models() { return catalogs().models; }

const GpuSpec* find_gpu(const std::string& id) {
    for (const auto& g : gpus())
        if (g.id == id) return &g;
    return nullptr;
}

const ModelSpec* find_model(const std::string& id) {
    for (const auto& m : models())
        if (m.id == id) return &m;
    return nullptr;
}

std::vector<std::string> gpu_ids() {
    std::vector<std::string> ids;
    for (const auto& g : gpus()) ids.push_back(g.id);
    return ids;
}

std::vector<std::string> model_ids() {
    std::vector<std::string> ids;
    for (const auto& m : models()) ids.push_back(m.id);
    return ids;
}

}   // namespace paraplan::catalog
