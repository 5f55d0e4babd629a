#include "project/project.h"
#include "util/read_file.h"

#include "catalog/catalog.h"
#include "network/systems.h"
#include "project/known_keys.h"
#include "project/limits.h"
#include "project/migrate.h"
#include "project/project_gpu.h"
#include "util/input_error.h"
#include "util/json_read.h"
#include "util/resources.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>

namespace paraplan {

using nlohmann::json;
using json_read::Obj;

namespace {

// Keys the section does not read into typed fields are kept verbatim (so a newer minor version
// or a user's notes survive a load/save round trip; rule project.unknown_key reports them).
json unknown_keys(const json& j, KeySection section) {
    json extra = json::object();
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!is_typed_key(section, it.key())) extra[it.key()] = it.value();
    return extra;
}

std::string join_ids(const std::vector<std::string>& ids) {
    std::string s;
    for (const auto& id : ids) s += (s.empty() ? "" : ", ") + id;
    return s;
}

std::string one_of_strings(const Obj& o, const char* key, const std::vector<std::string>& allowed,
                           const std::string& def) {
    const json* v = o.get(key);
    if (!v) return def;
    std::string list;
    for (const auto& a : allowed) list += (list.empty() ? "\"" : ", \"") + a + "\"";
    if (!v->is_string()) json_read::fail(o.at(key), "one of " + list, *v);
    auto s = v->get<std::string>();
    if (std::find(allowed.begin(), allowed.end(), s) == allowed.end()) json_read::fail(o.at(key), "one of " + list, *v);
    return s;
}

// A typed field: its name checked against the enum's one table (project/layout_enums.h), so an
// unknown value is refused here with the field's pointer, the value and the allowed names.
template <NamedEnum E>
E one_of_enum(const Obj& o, const char* key, E def) {
    const json* v = o.get(key);
    if (!v) return def;
    const auto e = v->is_string() ? read_enum_name<E>(v->get_ref<const std::string&>()) : std::nullopt;
    if (!e) json_read::fail(o.at(key), "one of " + quoted_enum_names<E>(), *v);
    return *e;
}

void check_gpu(const Cluster& c, const std::string& id, const std::string& pointer) {
    if (!find_gpu(c, id)) throw InputError(pointer, "unknown GPU \"" + id + "\" (known: " + join_ids(gpu_ids(c)) + ")");
}

// cluster.gpu_specs: {id: GPU}, each checked like a catalog entry. An id is a plain name (it
// reaches node records and exported files) and may not shadow a catalog GPU, so that an id
// always means one GPU.
constexpr std::size_t kMaxGpuSpecs = 1024;
std::vector<GpuSpec> read_gpu_specs(const Obj& cluster) {
    std::vector<GpuSpec> out;
    if (!cluster.has("gpu_specs")) return out;
    const Obj specs = cluster.object("gpu_specs");
    if (specs.raw().size() > kMaxGpuSpecs)
        throw InputError(specs.pointer(), "defines " + std::to_string(specs.raw().size()) + " GPUs; at most " +
                                              std::to_string(kMaxGpuSpecs));
    for (auto it = specs.raw().begin(); it != specs.raw().end(); ++it) {
        const std::string& id = it.key();
        const std::string p = specs.at(id);
        const bool plain = !id.empty() && id.size() <= 64 && id[0] != '-' &&
                           std::all_of(id.begin(), id.end(), [](unsigned char ch) {
                               return std::isalnum(ch) || ch == '.' || ch == '_' || ch == '-';
                           });
        if (!plain) throw InputError(p, "a GPU id is 1-64 letters, digits, '.', '_' or '-', not starting with '-'");
        if (catalog::find_gpu(id)) {
            std::string why = "\"" + id;
            why += "\" is a catalog GPU; give the project's GPU an id of its own (e.g. \"";
            why += id;
            why += "-custom\") or use the catalog's";
            throw InputError(p, why);
        }
        out.push_back(project_gpu_from_json(it.value(), id, p));
    }
    return out;
}

std::string gpus_per_node_limit() { return "at most " + std::to_string(kMaxGpusPerNode) + " GPUs per node"; }
std::string nodes_limit() { return "at most " + std::to_string(kMaxNodes) + " nodes"; }

Node read_node(const Obj& o, const Cluster& c) {
    Node n;
    // Names, hosts, users and key files reach ssh command lines and exported scripts:
    // control characters (a newline would start a new line there) are refused.
    n.name = json_read::no_control_chars(o.at("name"), o.string("name"));
    n.host = o.plain_string("host", "");
    if (!n.host.empty() && !is_host_name(n.host))
        json_read::fail(o.at("host"), "a host name or address (letters, digits, '.', '_', '-', ':')", *o.get("host"));
    n.gpu = o.string("gpu");
    check_gpu(c, n.gpu, o.at("gpu"));
    n.gpus = o.positive_int("gpus");
    if (n.gpus > kMaxGpusPerNode) json_read::fail(o.at("gpus"), gpus_per_node_limit(), *o.get("gpus"));
    n.user = o.plain_string("user", "");
    if (!n.user.empty() && !is_user_name(n.user))
        json_read::fail(o.at("user"), "a user name (letters, digits, '.', '_', '-')", *o.get("user"));
    n.port = o.non_negative_int("port", 0);
    if (n.port > 65535) json_read::fail(o.at("port"), "a port number (1-65535)", *o.get("port"));
    n.identity = o.plain_string("identity", "");
    if (o.has("intra_node_gbps")) n.intra_node_gbps = o.positive_number("intra_node_gbps");
    n.extra = unknown_keys(o.raw(), KeySection::node);
    return n;
}

// cluster.system: a systems-catalog id. That its GPU is every node's is a rule
// (cluster.system_gpus), not a load error, so a file saved after a node's GPU changed still opens.
void read_system(const Obj& o, Cluster& c) {
    c.system = o.string("system");
    if (!network::find_system(c.system))
        throw InputError(o.at("system"), "unknown system \"" + c.system + "\" (known: " +
                                             join_ids(network::system_ids()) + "; see paraplan-cli catalog systems)");
}

// cluster.network.slurm_topology: a topology.conf as text, read by the same bounded reader as a
// file (topofile/slurm_topology_conf.h); its errors name the field and the line inside it.
topofile::SlurmTopology read_slurm_topology(const Obj& n) {
    const std::string text = n.string("slurm_topology");
    try {
        return topofile::read_slurm_topology_conf(text);
    } catch (const InputError& e) {
        throw InputError(n.at("slurm_topology"), "topology.conf line " + std::to_string(e.line()) + ": " + e.message());
    }
}

Cluster read_cluster(const Obj& o) {
    Cluster c;
    c.gpu_specs = read_gpu_specs(o);
    const json* nodes = o.get("nodes");
    if (!nodes)
        throw InputError(o.at("nodes"), "required field is missing (expected an array of nodes or a node count)");
    if (nodes->is_array()) {
        if (nodes->empty()) throw InputError(o.at("nodes"), "a cluster needs at least one node");
        if (nodes->size() > static_cast<std::size_t>(kMaxNodes))
            throw InputError(o.at("nodes"),
                             "lists " + std::to_string(nodes->size()) + " nodes; Paraplan plans " + nodes_limit());
        std::set<std::string> names;
        for (std::size_t i = 0; i < nodes->size(); ++i) {
            Obj no((*nodes)[i], o.at("nodes") + "/" + std::to_string(i));
            c.nodes.push_back(read_node(no, c));
            if (!names.insert(c.nodes.back().name).second)
                throw InputError(no.at("name"), "duplicate node name \"" + c.nodes.back().name + "\"");
        }
    } else {
        // Short form: {"gpu": "h100-sxm", "nodes": 4, "gpus_per_node": 8}
        const int count = o.positive_int("nodes");
        const std::string gpu = o.string("gpu");
        check_gpu(c, gpu, o.at("gpu"));
        if (count > kMaxNodes) json_read::fail(o.at("nodes"), nodes_limit(), *nodes);
        const int per = o.positive_int("gpus_per_node");
        if (per > kMaxGpusPerNode)
            json_read::fail(o.at("gpus_per_node"), gpus_per_node_limit(), *o.get("gpus_per_node"));
        if (static_cast<long long>(count) * per > kMaxWorldSize)
            throw InputError(o.at("nodes"), "the cluster has " + std::to_string(static_cast<long long>(count) * per) +
                                                " GPUs; Paraplan plans up to " + std::to_string(kMaxWorldSize) +
                                                " GPUs");
        for (int i = 0; i < count; ++i)
            c.nodes.push_back(Node{"node" + std::to_string(i), "", gpu, per, "", 0, "", {}, json::object()});
        c.short_form = true;
    }
    long long world = 0;
    for (const auto& n : c.nodes) world += n.gpus;
    if (world > kMaxWorldSize)
        throw InputError(o.at("nodes"), "the cluster has " + std::to_string(world) + " GPUs; Paraplan plans up to " +
                                            std::to_string(kMaxWorldSize) + " GPUs");
    if (o.has("network")) {
        Obj n = o.object("network");
        c.network.inter_node_gbps = n.positive_number("inter_node_gbps", c.network.inter_node_gbps);
        c.network.latency_us = n.non_negative_number("latency_us", c.network.latency_us);
        if (n.has("tiers")) c.network.tiers = network::tiers_from_json(*n.get("tiers"), n.at("tiers"));
        if (n.has("slurm_topology")) c.network.slurm_topology = read_slurm_topology(n);
        c.network.extra = unknown_keys(n.raw(), KeySection::network);
    }
    if (o.has("system")) read_system(o, c);
    if (o.has("rank_order")) {
        const json& ro = o.array("rank_order");
        std::set<std::pair<int, int>> seen;
        for (std::size_t r = 0; r < ro.size(); ++r) {
            const std::string p = o.at("rank_order") + "/" + std::to_string(r);
            const json& e = ro[r];
            if (!e.is_array() || e.size() != 2 || !e[0].is_number_integer() || !e[1].is_number_integer())
                json_read::fail(p, "a [node, gpu] pair of integers", e);
            const int node = e[0].get<int>(), gpu = e[1].get<int>();
            if (node < 0 || node >= static_cast<int>(c.nodes.size()))
                throw InputError(p, "node index " + std::to_string(node) + " is out of range (the cluster has " +
                                        std::to_string(c.nodes.size()) + " nodes)");
            if (gpu < 0 || gpu >= c.nodes[static_cast<std::size_t>(node)].gpus)
                throw InputError(p, "GPU index " + std::to_string(gpu) + " is out of range (node " +
                                        c.nodes[static_cast<std::size_t>(node)].name + " has " +
                                        std::to_string(c.nodes[static_cast<std::size_t>(node)].gpus) + " GPUs)");
            if (!seen.insert({node, gpu}).second)
                throw InputError(p, "GPU [" + std::to_string(node) + ", " + std::to_string(gpu) + "] appears twice");
            c.rank_order.push_back({node, gpu});
        }
        if (static_cast<int>(c.rank_order.size()) != c.world_size())
            throw InputError(o.at("rank_order"), "lists " + std::to_string(c.rank_order.size()) +
                                                     " ranks but the cluster has " + std::to_string(c.world_size()) +
                                                     " GPUs");
    }
    return c;
}

ModelSpec read_model(const json& j, std::string& preset) {
    Obj o(j, "/model");
    if (o.has("preset")) {
        preset = o.string("preset");
        const ModelSpec* m = catalog::find_model(preset);
        if (!m)
            throw InputError(o.at("preset"),
                             "unknown model preset \"" + preset + "\" (known: " + join_ids(catalog::model_ids()) + ")");
        if (j.size() == 1) return *m;
        // A preset with overrides: {"preset": "llama3.1-8b", "layers": 16}
        json merged = to_json(*m);
        for (auto it = j.begin(); it != j.end(); ++it)
            if (it.key() != "preset") merged[it.key()] = it.value();
        ModelSpec spec = model_from_json(merged, "/model");
        return spec;
    }
    preset.clear();
    return model_from_json(j, "/model");
}

Training read_training(const Obj& o) {
    Training t;
    t.global_batch_size = o.positive_int("global_batch_size", t.global_batch_size);
    t.micro_batch_size = o.positive_int("micro_batch_size", t.micro_batch_size);
    t.seq_len = o.positive_int("seq_len", t.seq_len);
    t.precision = one_of_enum(o, "precision", t.precision);
    t.optimizer = one_of_enum(o, "optimizer", t.optimizer);
    t.train_tokens = o.int64("train_tokens", 0);
    if (t.train_tokens < 0) json_read::fail(o.at("train_tokens"), "a non-negative integer", *o.get("train_tokens"));
    t.extra = unknown_keys(o.raw(), KeySection::training);
    return t;
}

Layout read_layout(const Obj& o) {
    Layout l;
    l.framework = one_of_strings(o, "framework", kFrameworks, l.framework);
    l.tp = o.positive_int("tp", 1);
    l.pp = o.positive_int("pp", 1);
    l.sp = o.positive_int("sp", 1);
    l.sp_mode = one_of_enum(o, "sp_mode", l.sp_mode);
    l.cp = o.positive_int("cp", 1);
    l.ep = o.positive_int("ep", 1);
    l.etp = o.non_negative_int("etp", 0);
    l.dp = o.non_negative_int("dp", 0);
    l.zero_stage = o.non_negative_int("zero_stage", 0);
    if (l.zero_stage > 3) json_read::fail(o.at("zero_stage"), "0, 1, 2 or 3", *o.get("zero_stage"));
    l.schedule = one_of_enum(o, "schedule", l.schedule);   // any of its names (parse_schedule), saved as the table's
    l.chunks = o.positive_int("chunks", 1);
    l.num_microbatches = o.non_negative_int("num_microbatches", 0);
    l.recompute = one_of_enum(o, "recompute", l.recompute);
    l.offload = one_of_enum(o, "offload", l.offload);
    l.offload_fraction = o.non_negative_number("offload_fraction", 0);
    if (l.offload_fraction > 1)
        json_read::fail(o.at("offload_fraction"), "a fraction between 0 and 1", *o.get("offload_fraction"));
    l.flash_attention = o.boolean("flash_attention", l.flash_attention);
    l.fused_norm = o.boolean("fused_norm", l.fused_norm);
    l.jit_fused = o.boolean("jit_fused", l.jit_fused);
    l.fp8 = o.boolean("fp8", l.fp8);
    l.fp8_recipe = one_of_enum(o, "fp8_recipe", l.fp8_recipe);
    l.fp8_all_gather = o.boolean("fp8_all_gather", l.fp8_all_gather);
    // layout.fp8_params: issue 27's name for the same switch (FP8 weights gathered in FP8: Megatron
    // --fp8-param-gather, torchtitan enable_fsdp_float8_all_gather); either spelling is read, and
    // both given must agree. Written back as fp8_all_gather.
    if (o.get("fp8_params")) {
        const bool v = o.boolean("fp8_params", false);
        if (o.get("fp8_all_gather") && v != l.fp8_all_gather)
            json_read::fail(o.at("fp8_params"), "the value of fp8_all_gather (both name one switch)",
                            *o.get("fp8_params"));
        l.fp8_all_gather = v;
    }
    l.fp4_recipe = *parse_fp4_recipe(one_of_strings(o, "fp4_recipe", kFp4Recipes, to_string(l.fp4_recipe)));
    l.kernels = one_of_enum(o, "kernels", l.kernels);
    l.compile_loss = o.boolean("compile_loss", l.compile_loss);
    l.loss_logits = one_of_enum(o, "loss_logits", l.loss_logits);
    l.order = o.string("order", "");
    l.dp_outside = o.boolean("dp_outside", true);
    l.inner_ring_size = o.non_negative_int("inner_ring_size", 0);
    l.dp_shard = o.integer("dp_shard", -1);
    if (l.dp_shard == 0 || l.dp_shard < -1)
        json_read::fail(o.at("dp_shard"), "a positive integer or -1 (infer)", *o.get("dp_shard"));
    l.dp_replicate = o.positive_int("dp_replicate", 1);
    l.tp_mode = one_of_enum(o, "tp_mode", l.tp_mode);
    l.tp_depth = o.positive_int("tp_depth", 1);
    l.num_layers_per_stage = o.int_list("num_layers_per_stage");
    for (std::size_t i = 0; i < l.num_layers_per_stage.size(); ++i)
        if (l.num_layers_per_stage[i] < 0)
            json_read::fail(o.at("num_layers_per_stage") + "/" + std::to_string(i), "a non-negative integer",
                            json(l.num_layers_per_stage[i]));
    l.distributed_optimizer = o.boolean("distributed_optimizer", false);
    l.moe_dispatcher = one_of_enum(o, "moe_dispatcher", l.moe_dispatcher);
    l.moe_capacity_factor = o.non_negative_number("moe_capacity_factor", 0);
    l.moe_imbalance = o.non_negative_number("moe_imbalance", 0);
    if (l.moe_imbalance > 0 && l.moe_imbalance < 1)
        json_read::fail(o.at("moe_imbalance"), "0 (the default) or a load factor of at least 1",
                        *o.get("moe_imbalance"));
    l.moe_overlap = o.boolean("moe_overlap", false);
    l.tp_comm_overlap = o.boolean("tp_comm_overlap", false);
    l.enable_async_tensor_parallel = o.boolean("enable_async_tensor_parallel", false);
    if (const json* ub = o.get("tp_comm_overlap_cfg")) {
        // Transformer Engine's userbuffers layer names and methods (initialize_ub, module/base.py).
        static const std::vector<std::string> kLayers = {"qkv_fprop",  "qkv_dgrad", "qkv_wgrad", "proj_fprop",
                                                         "proj_dgrad", "fc1_fprop", "fc1_dgrad", "fc1_wgrad",
                                                         "fc2_fprop",  "fc2_dgrad"};
        const std::string at = o.at("tp_comm_overlap_cfg");
        if (!ub->is_object()) json_read::fail(at, "an object of Transformer Engine userbuffers settings per GEMM", *ub);
        for (const auto& [name, cfg] : ub->items()) {
            std::string here = at;
            here += '/';
            here += json_read::pointer_token(name);
            if (std::find(kLayers.begin(), kLayers.end(), name) == kLayers.end())
                json_read::fail(here, "a userbuffers GEMM name (qkv_fprop ... fc2_dgrad)", cfg);
            const auto m = cfg.is_object() ? cfg.find("method") : cfg.end();
            if (!cfg.is_object() ||
                (m != cfg.end() && (!m->is_string() || (*m != "ring_exchange" && *m != "pipeline" && *m != "bulk"))))
                json_read::fail(here, "an object whose method is ring_exchange, pipeline or bulk", cfg);
        }
        l.tp_comm_overlap_cfg = *ub;
    }
    l.account_for_embedding_in_pipeline_split = o.boolean("account_for_embedding_in_pipeline_split", false);
    l.account_for_loss_in_pipeline_split = o.boolean("account_for_loss_in_pipeline_split", false);
    if (const json* pe = o.get("peft")) l.peft = peft_from_json(*pe, o.at("peft"));
    l.extra = unknown_keys(o.raw(), KeySection::layout);
    return l;
}

// The typed read of a project already at the current version (migrate_project).
Project read_project(const json& j) {
    Obj root(j, "");
    Project p;
    p.name = root.string("name", "Untitled");
    p.cluster = read_cluster(root.object("cluster"));
    if (!root.has("model"))
        throw InputError("/model", "required field is missing (expected {\"preset\": ID} or a model spec)");
    p.model = read_model(*root.get("model"), p.model_preset);
    p.training = root.has("training") ? read_training(root.object("training")) : Training{};
    p.layout = root.has("layout") ? read_layout(root.object("layout")) : Layout{};
    if (root.has("runtime")) p.runtime = root.object("runtime").raw();
    p.extra = unknown_keys(j, KeySection::root);
    return p;
}

}   // namespace

Project project_from_json(const json& j) {
    // The version is checked before anything else is read: a newer file is refused whole. A
    // current file is read where it is (it may hold 100 MB of unknown keys); only one that a
    // migration rewrites is copied.
    if (!project_needs_migration(j)) return read_project(j);
    json migrated = j;
    migrate_project(migrated);
    return read_project(migrated);
}

Project project_from_text(std::string_view text) {
    json j = json_read::parse(text);
    migrate_project(j);
    return read_project(j);
}

Project project_from_text(std::string_view text, const Progress& watch) {
    json j = json_read::parse(text, watch);
    watch.step(static_cast<long long>(text.size()), static_cast<long long>(text.size()));
    migrate_project(j);
    return read_project(j);
}

namespace {

json node_to_json(const Node& n) {
    json j = n.extra.get();
    j["name"] = n.name;
    if (!n.host.empty()) j["host"] = n.host;
    j["gpu"] = n.gpu;
    j["gpus"] = n.gpus;
    if (!n.user.empty()) j["user"] = n.user;
    if (n.port) j["port"] = n.port;
    if (!n.identity.empty()) j["identity"] = n.identity;
    if (n.intra_node_gbps) j["intra_node_gbps"] = *n.intra_node_gbps;
    return j;
}

bool plain_nodes(const Cluster& c) {
    // Short form round-trips only nodes that carry nothing but the defaults.
    for (std::size_t i = 0; i < c.nodes.size(); ++i) {
        const Node& n = c.nodes[i];
        if (n.name != "node" + std::to_string(i) || !n.host.empty() || !n.user.empty() || n.port ||
            !n.identity.empty() || n.intra_node_gbps || !n.extra.empty())
            return false;
    }
    return true;
}

}   // namespace

json project_to_json(const Project& p) {
    json j = p.extra.get();
    j["paraplan"] = kProjectSchemaVersion;
    j["name"] = p.name;

    json c = json::object();
    if (p.cluster.short_form && p.cluster.uniform() && !p.cluster.nodes.empty() && plain_nodes(p.cluster)) {
        c["gpu"] = p.cluster.nodes.front().gpu;
        c["nodes"] = p.cluster.nodes.size();
        c["gpus_per_node"] = p.cluster.nodes.front().gpus;
    } else {
        json nodes = json::array();
        nodes.get_ref<json::array_t&>().reserve(p.cluster.nodes.size());
        for (const auto& n : p.cluster.nodes) nodes.push_back(node_to_json(n));
        c["nodes"] = std::move(nodes);
    }
    json net = p.cluster.network.extra.get();
    net["inter_node_gbps"] = p.cluster.network.inter_node_gbps;
    net["latency_us"] = p.cluster.network.latency_us;
    if (!p.cluster.network.tiers.empty()) {
        net["tiers"] = json::array();
        for (const auto& t : p.cluster.network.tiers) net["tiers"].push_back(network::to_json(t));
    }
    if (p.cluster.network.slurm_topology)
        net["slurm_topology"] = topofile::write_slurm_topology_conf(*p.cluster.network.slurm_topology);
    c["network"] = std::move(net);
    if (!p.cluster.system.empty()) c["system"] = p.cluster.system;
    if (!p.cluster.rank_order.empty()) {
        c["rank_order"] = json::array();
        for (const auto& s : p.cluster.rank_order) c["rank_order"].push_back({s.node, s.local_rank});
    }
    if (!p.cluster.gpu_specs.empty()) {
        c["gpu_specs"] = json::object();
        for (const auto& g : p.cluster.gpu_specs) c["gpu_specs"][g.id] = to_json(g);
    }
    // Moved, not copied: at 16,384 nodes the copy was 40% of this function's time, which a
    // cluster edit spends on the GUI thread (bench_project_json, docs/benchmarks.md).
    j["cluster"] = std::move(c);

    if (!p.model_preset.empty()) {
        const ModelSpec* m = catalog::find_model(p.model_preset);
        json spec = to_json(p.model);
        json model = {{"preset", p.model_preset}};
        if (m) {
            // Only the keys that differ from the preset are written as overrides.
            json base = to_json(*m);
            for (auto it = spec.begin(); it != spec.end(); ++it)
                if (!base.contains(it.key()) || base[it.key()] != it.value()) model[it.key()] = it.value();
        }
        j["model"] = std::move(model);
    } else {
        j["model"] = to_json(p.model);
    }

    const Training& t = p.training;
    json tr = t.extra.get();
    tr["global_batch_size"] = t.global_batch_size;
    tr["micro_batch_size"] = t.micro_batch_size;
    tr["seq_len"] = t.seq_len;
    tr["precision"] = to_string(t.precision);
    tr["optimizer"] = to_string(t.optimizer);
    if (t.train_tokens) tr["train_tokens"] = t.train_tokens;
    j["training"] = std::move(tr);

    const Layout& l = p.layout;
    const Layout d;
    json la = l.extra.get();
    la["framework"] = l.framework;
    la["tp"] = l.tp;
    la["pp"] = l.pp;
    la["sp"] = l.sp;
    la["sp_mode"] = to_string(l.sp_mode);
    la["cp"] = l.cp;
    la["ep"] = l.ep;
    la["zero_stage"] = l.zero_stage;
    la["schedule"] = to_string(l.schedule);
    la["chunks"] = l.chunks;
    la["num_microbatches"] = l.num_microbatches;
    la["recompute"] = to_string(l.recompute);
    la["offload"] = to_string(l.offload);
    la["flash_attention"] = l.flash_attention;
    if (l.etp != d.etp) la["etp"] = l.etp;
    if (l.dp != d.dp) la["dp"] = l.dp;
    if (l.offload_fraction != d.offload_fraction) la["offload_fraction"] = l.offload_fraction;
    if (l.fused_norm != d.fused_norm) la["fused_norm"] = l.fused_norm;
    if (l.jit_fused != d.jit_fused) la["jit_fused"] = l.jit_fused;
    if (l.fp8 != d.fp8) la["fp8"] = l.fp8;
    if (l.fp8_recipe != d.fp8_recipe) la["fp8_recipe"] = to_string(l.fp8_recipe);
    if (l.fp8_all_gather != d.fp8_all_gather) la["fp8_all_gather"] = l.fp8_all_gather;
    if (l.fp4_recipe != d.fp4_recipe) la["fp4_recipe"] = to_string(l.fp4_recipe);
    if (l.kernels != d.kernels) la["kernels"] = to_string(l.kernels);
    if (l.compile_loss != d.compile_loss) la["compile_loss"] = l.compile_loss;
    if (l.loss_logits != d.loss_logits) la["loss_logits"] = to_string(l.loss_logits);
    if (l.order != d.order) la["order"] = l.order;
    if (l.dp_outside != d.dp_outside) la["dp_outside"] = l.dp_outside;
    if (l.inner_ring_size != d.inner_ring_size) la["inner_ring_size"] = l.inner_ring_size;
    if (l.dp_shard != d.dp_shard) la["dp_shard"] = l.dp_shard;
    if (l.dp_replicate != d.dp_replicate) la["dp_replicate"] = l.dp_replicate;
    if (l.tp_mode != d.tp_mode) la["tp_mode"] = to_string(l.tp_mode);
    if (l.tp_depth != d.tp_depth) la["tp_depth"] = l.tp_depth;
    if (!l.num_layers_per_stage.empty()) la["num_layers_per_stage"] = l.num_layers_per_stage;
    if (l.distributed_optimizer != d.distributed_optimizer) la["distributed_optimizer"] = l.distributed_optimizer;
    if (l.moe_dispatcher != d.moe_dispatcher) la["moe_dispatcher"] = to_string(l.moe_dispatcher);
    if (l.moe_capacity_factor != d.moe_capacity_factor) la["moe_capacity_factor"] = l.moe_capacity_factor;
    if (l.moe_imbalance != d.moe_imbalance) la["moe_imbalance"] = l.moe_imbalance;
    if (l.moe_overlap != d.moe_overlap) la["moe_overlap"] = l.moe_overlap;
    if (l.tp_comm_overlap != d.tp_comm_overlap) la["tp_comm_overlap"] = l.tp_comm_overlap;
    if (l.enable_async_tensor_parallel != d.enable_async_tensor_parallel)
        la["enable_async_tensor_parallel"] = l.enable_async_tensor_parallel;
    if (!l.tp_comm_overlap_cfg.empty()) la["tp_comm_overlap_cfg"] = l.tp_comm_overlap_cfg.get();
    if (l.account_for_embedding_in_pipeline_split)
        la["account_for_embedding_in_pipeline_split"] = l.account_for_embedding_in_pipeline_split;
    if (l.account_for_loss_in_pipeline_split)
        la["account_for_loss_in_pipeline_split"] = l.account_for_loss_in_pipeline_split;
    if (l.peft) la["peft"] = to_json(*l.peft);
    j["layout"] = std::move(la);
    if (!p.runtime.empty()) j["runtime"] = p.runtime;
    return j;
}

std::string project_to_text(const Project& p) {
    const json j = project_to_json(p);
    // Readable order at the top level; nested objects keep nlohmann's sorted keys.
    nlohmann::ordered_json o;
    for (const char* k : {"paraplan", "name", "cluster", "model", "training", "layout", "runtime"})
        if (j.contains(k)) o[k] = j[k];
    for (auto it = j.begin(); it != j.end(); ++it)
        if (!o.contains(it.key())) o[it.key()] = it.value();
    return o.dump(2) + "\n";
}

Project load_project(const std::string& path) { return load_project(path, Progress{}); }

Project load_project(const std::string& path, const Progress& watch) {
    const std::string text = read_input_file(path, "project", kMaxProjectBytes);
    try {
        return project_from_text(text, watch);
    } catch (const InputError& e) {   // where: the file too, not only the line or the field
        throw InputError(e.pointer(), e.message(), e.line(), e.column(), path);
    }
}

void save_project(const Project& p, const std::string& path) {
    namespace fs = std::filesystem;
    const std::string text = project_to_text(p);
    fs::path target(path);
    fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
    std::random_device rd;
    fs::path tmp = dir / ("." + target.filename().string() + ".tmp-" + std::to_string(rd()));
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw InputError("", "cannot write '" + tmp.string() + "': " + std::strerror(errno));
        out << text;
        out.flush();
        if (!out) {
            std::error_code ec;
            fs::remove(tmp, ec);
            throw InputError("", "cannot write '" + tmp.string() + "': " + std::strerror(errno));
        }
    }
    std::error_code ec;
    fs::rename(tmp, target, ec);
    if (ec) {
        fs::remove(tmp, ec);
        throw InputError("", "cannot save '" + path + "': " + ec.message());
    }
}

std::vector<std::string> example_names() {
    std::vector<std::string> out;
    for (const auto& p : resources::list("examples/")) {
        std::string n = p.substr(std::string("examples/").size());
        const std::string ext = ".paraplan.json";
        if (n.size() > ext.size() && n.compare(n.size() - ext.size(), ext.size(), ext) == 0)
            out.push_back(n.substr(0, n.size() - ext.size()));
    }
    return out;
}

Project load_example(const std::string& name) {
    std::string n = name;
    const std::string ext = ".paraplan.json";
    if (n.size() > ext.size() && n.compare(n.size() - ext.size(), ext.size(), ext) == 0)
        n.resize(n.size() - ext.size());
    auto data = resources::find("examples/" + n + ext);
    if (!data) throw InputError("", "no built-in example named '" + name + "'");
    return project_from_text(*data);
}

}   // namespace paraplan
