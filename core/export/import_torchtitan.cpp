// torchtitan v0.2 TOML job config -> project (keys of torchtitan/config/job_config.py
// at v0.2.2; schedule names of torch.distributed.pipelining).
#include "export/import.h"

#include "catalog/catalog.h"
#include "export/export_common.h"
#include "export/toml.h"

#include <cctype>

namespace paraplan {

using nlohmann::json;

namespace {

// torch.distributed.pipelining's schedule class names (schedules.py get_schedule_class, matched
// case-insensitively as torchtitan does).
std::optional<Schedule> schedule_from_pytorch(const std::string& name, int& default_chunks) {
    std::string k;
    for (char c : name) k += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    default_chunks = 1;
    if (k == "1f1b") return Schedule::one_f_one_b;
    if (k == "gpipe") return Schedule::gpipe;
    default_chunks = 0;   // multi-stage: chunk count from layers_per_stage
    if (k == "interleaved1f1b") return Schedule::interleaved;
    if (k == "loopedbfs") return Schedule::looped_bfs;
    if (k == "interleavedzerobubble") return Schedule::interleaved_zb;
    default_chunks = 2;   // V schedules: exactly two stages per rank
    if (k == "zbvzerobubble") return Schedule::zbv;
    if (k == "dualpipev") return Schedule::dualpipev;
    default_chunks = -1;
    return std::nullopt;
}

}   // namespace

ImportResult import_torchtitan(std::string_view text, const Project& base) {
    const json t = toml::parse(text);
    ImportResult r;
    r.project = base;
    Project& p = r.project;
    p.layout = Layout{};
    p.layout.framework = "torchtitan";
    Layout& l = p.layout;
    auto& w = r.warnings;

    auto get_int = [&](const json& sec, const std::string& table, const char* key, int min, int& out) {
        if (!sec.contains(key)) return false;
        const json& v = sec.at(key);
        if (v.is_number_integer() && v.get<long long>() >= min && v.get<long long>() < (1LL << 31)) {
            out = v.get<int>();
            return true;
        }
        w.push_back(table + "." + key + " = " + v.dump() + " not read (expected an integer >= " + std::to_string(min) +
                    ")");
        return false;
    };

    int local = 0, global = -1, pp_mbs = 1, layers_per_stage = 0;
    std::string schedule_name;
    for (auto it = t.begin(); it != t.end(); ++it) {
        const std::string& table = it.key();
        const json& sec = it.value();
        if (!sec.is_object()) {
            w.push_back(table + " not read (a top-level key outside a table)");
            continue;
        }
        for (auto kt = sec.begin(); kt != sec.end(); ++kt) {
            const std::string& key = kt.key();
            const std::string full = table + "." + key;
            int dummy = 0;
            if (table == "parallelism") {
                if (key == "data_parallel_replicate_degree")
                    get_int(sec, table, "data_parallel_replicate_degree", 1, l.dp_replicate);
                else if (key == "data_parallel_shard_degree") {
                    if (get_int(sec, table, "data_parallel_shard_degree", -1, dummy)) {
                        if (dummy == 0) w.push_back(full + " = 0 not read (-1 or >= 1)");
                        else l.dp_shard = dummy;
                    }
                } else if (key == "tensor_parallel_degree") get_int(sec, table, "tensor_parallel_degree", 1, l.tp);
                else if (key == "context_parallel_degree") get_int(sec, table, "context_parallel_degree", 1, l.cp);
                else if (key == "pipeline_parallel_degree") get_int(sec, table, "pipeline_parallel_degree", 1, l.pp);
                else if (key == "expert_parallel_degree") get_int(sec, table, "expert_parallel_degree", 1, l.ep);
                else if (key == "expert_tensor_parallel_degree")
                    get_int(sec, table, "expert_tensor_parallel_degree", 1, l.etp);
                else if (key == "pipeline_parallel_microbatch_size")
                    get_int(sec, table, "pipeline_parallel_microbatch_size", 1, pp_mbs);
                else if (key == "pipeline_parallel_layers_per_stage")
                    get_int(sec, table, "pipeline_parallel_layers_per_stage", 1, layers_per_stage);
                else if (key == "enable_async_tensor_parallel" && kt.value().is_boolean())
                    l.enable_async_tensor_parallel = kt.value().get<bool>();
                else if (key == "pipeline_parallel_schedule" && kt.value().is_string())
                    schedule_name = kt.value().get<std::string>();
                else if (key == "fsdp_reshard_after_forward" && kt.value().is_string()) {
                    const std::string v = kt.value().get<std::string>();
                    if (v == "always") l.zero_stage = 3;
                    else if (v == "never") l.zero_stage = 2;
                    else if (v == "default") l.zero_stage = 0;
                    else w.push_back(full + " = \"" + v + "\" not read");
                } else w.push_back(full + " not read");
            } else if (table == "training") {
                if (key == "local_batch_size" || key == "batch_size") get_int(sec, table, key.c_str(), 1, local);
                else if (key == "global_batch_size") get_int(sec, table, "global_batch_size", -1, global);
                else if (key == "seq_len") get_int(sec, table, "seq_len", 1, p.training.seq_len);
                else if (key == "mixed_precision_param" && kt.value().is_string()) {
                    const std::string v = kt.value().get<std::string>();
                    if (v == "bfloat16") p.training.precision = Precision::bf16;
                    else if (v == "float32") p.training.precision = Precision::fp32;
                    else if (v == "float16") p.training.precision = Precision::fp16;
                    else w.push_back(full + " = \"" + v + "\" not read");
                } else w.push_back(full + " not read");
            } else if (table == "activation_checkpoint" && key == "mode" && kt.value().is_string()) {
                const std::string v = kt.value().get<std::string>();
                // [activation_checkpoint] mode: none, selective or full, Paraplan's names.
                if (const auto r = parse_enum<Recompute>(v)) l.recompute = *r;
                else w.push_back(full + " = \"" + v + "\" not read");
            } else if (table == "job" && key == "description" && kt.value().is_string()) {
                p.name = kt.value().get<std::string>();
            } else if (table == "model" && (key == "name" || key == "flavor")) {
                // handled below
            } else if (table == "model" && key == "converters") {
                // v0.2: converters = ["quantize.linear.float8"] or ["quantize.linear.mx"] (older: "float8").
                for (const auto& c : kt.value().is_array() ? kt.value() : json::array()) {
                    const std::string v = c.is_string() ? c.get<std::string>() : "";
                    if (v == "quantize.linear.float8" || v == "float8") l.fp8 = true;
                    else if (v == "quantize.linear.mx" || v == "mx") {
                        l.fp8 = true;
                        l.fp8_recipe = Fp8Recipe::mxfp8;
                    } else w.push_back(full + " entry " + c.dump() + " not read");
                }
            } else if (table == "compile" && key == "enable" && kt.value().is_boolean()) {
                if (kt.value().get<bool>()) l.kernels = KernelStack::compile;
            } else if (table == "compile" && key == "components" && kt.value().is_array()) {
                // "loss" among the compiled components: the loss's memory is counted as compiled.
                for (const auto& c : kt.value())
                    if (c.is_string() && c.get<std::string>() == "loss") l.compile_loss = true;
            } else if (table == "compile" && key == "backend") {
                // the backend does not change the estimate
            } else if (table == "quantize" && key == "linear" && kt.value().is_object()) {
                for (auto q = kt.value().begin(); q != kt.value().end(); ++q) {
                    if (!q.value().is_object()) continue;
                    const json& f = q.value();
                    if (q.key() == "float8") {
                        if (f.contains("enable_fsdp_float8_all_gather") &&
                            f["enable_fsdp_float8_all_gather"].is_boolean())
                            l.fp8_all_gather = f["enable_fsdp_float8_all_gather"].get<bool>();
                        if (f.contains("recipe_name") && f["recipe_name"].is_string())
                            l.fp8_recipe = f["recipe_name"].get<std::string>().rfind("rowwise", 0) == 0
                                               ? Fp8Recipe::rowwise
                                               : Fp8Recipe::tensorwise;
                    } else if (q.key() == "mx") {
                        l.fp8_recipe = Fp8Recipe::mxfp8;
                    } else {
                        w.push_back(full + "." + q.key() + " not read");
                    }
                }
            } else if (table == "float8") {
                l.fp8 = true;
                if (key == "enable_fsdp_float8_all_gather" && kt.value().is_boolean())
                    l.fp8_all_gather = kt.value().get<bool>();
                else if (key == "recipe_name" && kt.value().is_string())
                    l.fp8_recipe = kt.value().get<std::string>().rfind("rowwise", 0) == 0 ? Fp8Recipe::rowwise
                                                                                          : Fp8Recipe::tensorwise;
                else if (key != "enable_fsdp_float8_all_gather" && key != "enable_float8_linear" &&
                         key != "precompute_float8_dynamic_scale_for_fsdp")
                    w.push_back(full + " not read");
            } else {
                w.push_back(full + " not read");
            }
        }
    }
    if (t.contains("model") && t.at("model").is_object()) {
        const json& m = t.at("model");
        const std::string name = m.value("name", std::string());
        std::string flavor = m.value("flavor", std::string());
        for (auto& c : flavor) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        const ModelSpec* spec = nullptr;
        if (name == "llama3")
            for (const char* prefix : {"llama3.1-", "llama3-", "llama3.2-", "llama3.3-"})
                if ((spec = catalog::find_model(prefix + flavor))) break;
        if (spec) {
            if (spec->id != base.model.id) {
                p.model = *spec;
                p.model_preset = spec->id;
            }
            r.notes.push_back("model " + name + "/" + m.value("flavor", std::string()) + " read as catalog model " +
                              spec->id);
        } else if (!name.empty()) {
            w.push_back("model " + name + "/" + m.value("flavor", std::string()) +
                        " has no catalog match; the model is the base project's " +
                        (base.model.id.empty() ? base.model.name : base.model.id));
        }
    }
    if (!schedule_name.empty()) {
        int chunks = 1;
        const std::optional<Schedule> s = schedule_from_pytorch(schedule_name, chunks);
        if (!s) {
            w.push_back("parallelism.pipeline_parallel_schedule = \"" + schedule_name + "\" not read");
        } else {
            l.schedule = *s;
            if (chunks > 0) l.chunks = chunks;
            if (layers_per_stage > 0) {
                const int stages = p.model.layers / layers_per_stage;
                if (p.model.layers % layers_per_stage != 0 || stages % l.pp != 0)
                    w.push_back("parallelism.pipeline_parallel_layers_per_stage = " + std::to_string(layers_per_stage) +
                                " does not split " + std::to_string(p.model.layers) + " layers evenly over pp " +
                                std::to_string(l.pp));
                else l.chunks = stages / l.pp;
            } else if (chunks == 0) {
                w.push_back("schedule " + schedule_name +
                            " without pipeline_parallel_layers_per_stage: the stages per rank "
                            "are not in the file; read as 2");
                l.chunks = 2;
            }
        }
    }
    // Sizes: torchtitan's dp = dp_replicate * dp_shard.
    const long long non_dp = 1LL * l.tp * l.cp * l.pp;
    const int dp_shard = l.dp_shard > 0 ? l.dp_shard
                                        : std::max<long long>(1, p.world_size() / (non_dp * l.dp_replicate));
    const int dp = l.dp_replicate * dp_shard;
    if (l.dp_shard > 0) r.implied_world = static_cast<int>(non_dp * dp);
    if (local > 0) {
        if (l.pp > 1) {
            p.training.micro_batch_size = pp_mbs;
            if (local % pp_mbs != 0)
                w.push_back("training.local_batch_size is not a multiple of the pipeline microbatch size");
            l.num_microbatches = std::max(1, local / pp_mbs);
        } else {
            p.training.micro_batch_size = local;
        }
        p.training.global_batch_size = global > 0 ? global : local * dp;
    } else {
        r.notes.push_back("no training.local_batch_size: batch sizes come from the base project");
    }
    if (l.tp > 1)
        l.sp_mode = SpMode::split_gather;   // torchtitan's TP always shards sequences (SequenceParallel plans)
    return r;
}

}   // namespace paraplan
