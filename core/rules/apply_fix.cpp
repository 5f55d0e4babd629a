#include "rules/apply_fix.h"

#include "network/systems.h"
#include "project/limits.h"

#include <functional>
#include <map>
#include <stdexcept>

namespace paraplan {
namespace {

struct Accessor {
    std::function<nlohmann::json(const Project&)> get;
    std::function<void(Project&, const nlohmann::json&)> set;
};

// A typed choice (project/layout_enums.h) is read and written as its project-file name; a name
// outside its table is refused with the field's pointer and the allowed names.
template <typename T, typename S>
Accessor member(T S::*field, S& (*section)(Project&), const S& (*csection)(const Project&), std::string pointer) {
    return Accessor{[=](const Project& p) { return nlohmann::json(csection(p).*field); },
                    [=](Project& p, const nlohmann::json& v) {
                        if constexpr (NamedEnum<T>) {
                            section(p).*field = enum_from_json<T>(v, pointer);
                        } else {
                            section(p).*field = v.get<T>();
                        }
                    }};
}

Layout& lay(Project& p) { return p.layout; }
const Layout& clay(const Project& p) { return p.layout; }
Training& tr(Project& p) { return p.training; }
const Training& ctr(const Project& p) { return p.training; }

const std::map<std::string, Accessor>& accessors() {
    static const std::map<std::string, Accessor> table = [] {
        std::map<std::string, Accessor> t;
#define PARAPLAN_L(f) t["/layout/" #f] = member(&Layout::f, &lay, &clay, "/layout/" #f)
#define PARAPLAN_T(f) t["/training/" #f] = member(&Training::f, &tr, &ctr, "/training/" #f)
        PARAPLAN_L(framework);
        PARAPLAN_L(tp);
        PARAPLAN_L(pp);
        PARAPLAN_L(sp);
        PARAPLAN_L(sp_mode);
        PARAPLAN_L(cp);
        PARAPLAN_L(ep);
        PARAPLAN_L(etp);
        PARAPLAN_L(dp);
        PARAPLAN_L(zero_stage);
        PARAPLAN_L(schedule);
        PARAPLAN_L(chunks);
        PARAPLAN_L(num_microbatches);
        PARAPLAN_L(recompute);
        PARAPLAN_L(offload);
        PARAPLAN_L(offload_fraction);
        PARAPLAN_L(flash_attention);
        PARAPLAN_L(fused_norm);
        PARAPLAN_L(jit_fused);
        PARAPLAN_L(fp8);
        PARAPLAN_L(fp8_recipe);
        PARAPLAN_L(fp8_all_gather);
        // The typed recipe, read and written as its project-file name (project/fp4_recipe.h).
        t["/layout/fp4_recipe"] = Accessor{
            [](const Project& p) { return nlohmann::json(to_string(p.layout.fp4_recipe)); },
            [](Project& p, const nlohmann::json& v) {
                const auto r = parse_fp4_recipe(v.get<std::string>());
                if (!r) throw std::invalid_argument("/layout/fp4_recipe: unknown recipe " + v.dump());
                p.layout.fp4_recipe = *r;
            }};
        PARAPLAN_L(kernels);
        PARAPLAN_L(order);
        PARAPLAN_L(dp_outside);
        PARAPLAN_L(inner_ring_size);
        PARAPLAN_L(dp_shard);
        PARAPLAN_L(dp_replicate);
        PARAPLAN_L(tp_mode);
        PARAPLAN_L(tp_depth);
        PARAPLAN_L(num_layers_per_stage);
        PARAPLAN_L(distributed_optimizer);
        PARAPLAN_L(moe_dispatcher);
        PARAPLAN_L(moe_capacity_factor);
        PARAPLAN_L(moe_imbalance);
        PARAPLAN_L(moe_overlap);
        PARAPLAN_L(tp_comm_overlap);
        PARAPLAN_L(enable_async_tensor_parallel);
        PARAPLAN_L(account_for_embedding_in_pipeline_split);
        PARAPLAN_L(account_for_loss_in_pipeline_split);
        // layout.peft as a whole: its object, or null for full training (read as the loader reads it).
        t["/layout/peft"] = Accessor{
            [](const Project& p) { return p.layout.peft ? to_json(*p.layout.peft) : nlohmann::json(); },
            [](Project& p, const nlohmann::json& v) {
                try {
                    p.layout.peft = peft_from_json(v, "/layout/peft");
                } catch (const std::exception& e) {
                    throw std::invalid_argument(e.what());
                }
            }};
        PARAPLAN_T(global_batch_size);
        PARAPLAN_T(micro_batch_size);
        PARAPLAN_T(seq_len);
        PARAPLAN_T(precision);
        PARAPLAN_T(optimizer);
        PARAPLAN_T(train_tokens);
#undef PARAPLAN_L
#undef PARAPLAN_T
        return t;
    }();
    return table;
}

// /cluster/nodes/<i>/<gpu|gpus>
bool node_field(const std::string& ptr, std::size_t& index, std::string& key) {
    const std::string prefix = "/cluster/nodes/";
    if (ptr.rfind(prefix, 0) != 0) return false;
    const auto slash = ptr.find('/', prefix.size());
    if (slash == std::string::npos) return false;
    const std::string idx = ptr.substr(prefix.size(), slash - prefix.size());
    if (idx.empty() || idx.find_first_not_of("0123456789") != std::string::npos) return false;
    index = std::stoul(idx);
    key = ptr.substr(slash + 1);
    return key == "gpu" || key == "gpus";
}

// /cluster/system: a systems-catalog id, "" for none (the project file's cluster.system).
void set_system(Cluster& c, const std::string& id) {
    if (!id.empty() && !network::find_system(id))
        throw std::invalid_argument("/cluster/system: unknown system \"" + id +
                                    "\" (see paraplan-cli catalog systems)");
    c.system = id;
}

// /cluster/nodes as a count: the short form {"gpu", "nodes": N, "gpus_per_node"}, whose nodes the
// loader names node0, node1, ... with node 0's GPU and count.
void set_node_count(Cluster& c, int count) {
    if (!c.short_form || c.nodes.empty())
        throw std::invalid_argument(
            "/cluster/nodes: a node count applies to a cluster written as one "
            "(\"nodes\": N with \"gpu\" and \"gpus_per_node\")");
    if (!c.rank_order.empty())
        throw std::invalid_argument("/cluster/nodes: the cluster has a rank_order for its present nodes");
    const Node first = c.nodes.front();
    if (count < 1 || count > kMaxNodes || static_cast<long long>(count) * first.gpus > kMaxWorldSize)
        throw std::invalid_argument("/cluster/nodes: " + std::to_string(count) + " is not a node count Paraplan plans");
    std::vector<Node> nodes;
    for (int i = 0; i < count; ++i) {
        Node n = first;
        n.name = "node" + std::to_string(i);
        nodes.push_back(std::move(n));
    }
    c.nodes = std::move(nodes);
}

}   // namespace

void set_field(Project& p, const std::string& pointer, const nlohmann::json& value) {
    std::size_t i = 0;
    std::string key;
    try {
        if (pointer == "/cluster/system") return set_system(p.cluster, value.get<std::string>());
        if (pointer == "/cluster/nodes") return set_node_count(p.cluster, value.get<int>());
        if (node_field(pointer, i, key)) {
            if (i >= p.cluster.nodes.size()) throw std::invalid_argument(pointer + ": no such node");
            if (key == "gpus") p.cluster.nodes[i].gpus = value.get<int>();
            else p.cluster.nodes[i].gpu = value.get<std::string>();
            p.cluster.short_form = p.cluster.short_form && p.cluster.uniform();
            return;
        }
        const auto& t = accessors();
        const auto it = t.find(pointer);
        if (it == t.end()) throw std::invalid_argument(pointer + ": not a field a fix can change");
        it->second.set(p, value);
    } catch (const nlohmann::json::exception&) {
        throw std::invalid_argument(pointer + ": wrong value type (" + value.dump() + ")");
    }
}

nlohmann::json get_field(const Project& p, const std::string& pointer) {
    std::size_t i = 0;
    std::string key;
    if (pointer == "/cluster/system") return p.cluster.system;
    if (pointer == "/cluster/nodes" && p.cluster.short_form) return static_cast<int>(p.cluster.nodes.size());
    if (node_field(pointer, i, key)) {
        if (i >= p.cluster.nodes.size()) throw std::invalid_argument(pointer + ": no such node");
        return key == "gpus" ? nlohmann::json(p.cluster.nodes[i].gpus) : nlohmann::json(p.cluster.nodes[i].gpu);
    }
    const auto& t = accessors();
    const auto it = t.find(pointer);
    if (it == t.end()) throw std::invalid_argument(pointer + ": not a known field");
    return it->second.get(p);
}

void apply_fix(Project& p, const Fix& f) {
    for (const auto& c : f.changes) set_field(p, c.field, c.value);
}

Project with_fix(Project p, const Fix& f) {
    apply_fix(p, f);
    return p;
}

}   // namespace paraplan
