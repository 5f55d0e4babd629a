// DeepSpeed ds_config.json -> project. Batch derivation follows
// deepspeed/runtime/config.py _set_batch_related_parameters; dp = the data-parallel
// world the batch triple implies.
#include "export/import.h"

#include "util/input_error.h"
#include "util/json_read.h"

#include <algorithm>
#include <cctype>

namespace paraplan {

using nlohmann::json;

namespace {

std::string where(const std::string& ptr) { return ptr.empty() ? "/" : ptr; }

int read_int(const json& o, const char* key, const std::string& ptr, std::vector<std::string>& warnings, int def = 0) {
    if (!o.contains(key)) return def;
    const json& v = o.at(key);
    if (v.is_number_integer() && v.get<long long>() > 0 && v.get<long long>() < (1LL << 31)) return v.get<int>();
    warnings.push_back(where(ptr + "/" + key) + " = " + v.dump() + " not read (expected a positive integer" +
                       (v.is_string() ? "; \"auto\" values are filled in by the HF/Accelerate integration" : "") + ")");
    return def;
}

bool enabled(const json& o, const char* key, const std::string& ptr, std::vector<std::string>& warnings) {
    if (!o.contains(key)) return false;
    const json& sec = o.at(key);
    if (!sec.is_object()) {
        warnings.push_back(ptr + "/" + key + " not read (expected an object)");
        return false;
    }
    for (auto it = sec.begin(); it != sec.end(); ++it)
        if (it.key() != "enabled") warnings.push_back(ptr + "/" + key + "/" + it.key() + " not read");
    if (!sec.contains("enabled")) return false;
    if (sec.at("enabled").is_boolean()) return sec.at("enabled").get<bool>();
    warnings.push_back(ptr + "/" + key + "/enabled = " + sec.at("enabled").dump() +
                       " not read (expected true or false)");
    return false;
}

}   // namespace

ImportResult import_deepspeed(std::string_view text, const Project& base) {
    const json c = json_read::parse(text);
    if (!c.is_object()) throw InputError("", "a DeepSpeed config is a JSON object");
    ImportResult r;
    r.project = base;
    Project& p = r.project;
    p.layout = Layout{};
    p.layout.framework = "deepspeed";
    auto& w = r.warnings;

    for (auto it = c.begin(); it != c.end(); ++it) {
        static const std::vector<std::string> known = {"train_batch_size",
                                                       "train_micro_batch_size_per_gpu",
                                                       "gradient_accumulation_steps",
                                                       "bf16",
                                                       "fp16",
                                                       "zero_optimization",
                                                       "tensor_parallel",
                                                       "pipeline",
                                                       "_paraplan_warnings",
                                                       "optimizer"};
        if (std::find(known.begin(), known.end(), it.key()) == known.end()) w.push_back("/" + it.key() + " not read");
    }
    // Parallel sizes first: dp depends on them.
    if (c.contains("tensor_parallel")) {
        const json& t = c.at("tensor_parallel");
        if (t.is_object()) {
            p.layout.tp = read_int(t, "autotp_size", "/tensor_parallel", w, 1);
            for (auto it = t.begin(); it != t.end(); ++it)
                if (it.key() != "autotp_size") w.push_back("/tensor_parallel/" + it.key() + " not read");
        } else {
            w.push_back("/tensor_parallel not read (expected an object)");
        }
    }
    if (c.contains("pipeline")) {
        const json& pl = c.at("pipeline");
        if (pl.is_object()) {
            for (auto it = pl.begin(); it != pl.end(); ++it) {
                if (it.key() == "stages") {
                    if (it.value().is_string())
                        w.push_back("/pipeline/stages = " + it.value().dump() +
                                    " not read: the stage count comes from PipelineModule(num_stages=...)");
                    else p.layout.pp = read_int(pl, "stages", "/pipeline", w, 1);
                } else if (it.key() == "activation_checkpoint_interval") {
                    const int k = read_int(pl, "activation_checkpoint_interval", "/pipeline", w, 0);
                    if (k == 1) p.layout.recompute = Recompute::full;
                    else if (k > 1)
                        w.push_back("/pipeline/activation_checkpoint_interval = " + std::to_string(k) +
                                    " read as no recomputation (Paraplan models every layer or none)");
                } else {
                    w.push_back("/pipeline/" + it.key() + " not read");
                }
            }
        }
    }
    const int model_parallel = p.layout.tp * p.layout.pp;

    // Batch triple.
    const int train = read_int(c, "train_batch_size", "", w);
    const int micro = read_int(c, "train_micro_batch_size_per_gpu", "", w);
    const int gas_given = read_int(c, "gradient_accumulation_steps", "", w);
    if (train && micro && gas_given) {
        const long long per = 1LL * micro * gas_given;
        if (train % per != 0)
            w.push_back("train_batch_size " + std::to_string(train) + " is not a multiple of micro × gas = " +
                        std::to_string(per) + " (DeepSpeed asserts train = micro × gas × dp)");
        const int dp = static_cast<int>(std::max<long long>(1, train / per));
        r.implied_world = dp * model_parallel;
        p.training.global_batch_size = train;
        p.training.micro_batch_size = micro;
    } else if (train && micro) {
        p.training.global_batch_size = train;
        p.training.micro_batch_size = micro;
        r.notes.push_back("gradient_accumulation_steps is derived from the world size (DeepSpeed does the same)");
    } else if (micro && gas_given) {
        const int dp = std::max(1, base.world_size() / std::max(1, model_parallel));
        p.training.micro_batch_size = micro;
        p.training.global_batch_size = micro * gas_given * dp;
        r.notes.push_back("train_batch_size = micro × gas × dp with dp " + std::to_string(dp) +
                          " from the base cluster");
    } else if (micro) {
        const int dp = std::max(1, base.world_size() / std::max(1, model_parallel));
        p.training.micro_batch_size = micro;
        p.training.global_batch_size = micro * dp;
        r.notes.push_back("no train_batch_size: one micro batch per data-parallel rank, as DeepSpeed derives it");
    } else if (train) {
        const int dp = std::max(1, base.world_size() / std::max(1, model_parallel));
        p.training.global_batch_size = train;
        p.training.micro_batch_size = std::max(1, train / dp);
        r.notes.push_back("no micro batch: micro = train_batch_size / dp, as DeepSpeed derives it");
    } else {
        w.push_back(
            "neither train_batch_size nor train_micro_batch_size_per_gpu is set; batch sizes come from the base "
            "project");
    }

    const bool bf16 = enabled(c, "bf16", "", w);
    const bool fp16 = enabled(c, "fp16", "", w);
    p.training.precision = bf16 ? Precision::bf16 : fp16 ? Precision::fp16 : Precision::fp32;
    if (c.contains("optimizer")) {
        const json& o = c.at("optimizer");
        const std::string type = o.is_object() && o.contains("type") && o.at("type").is_string()
                                     ? o.at("type").get<std::string>()
                                     : "";
        std::string lower;
        for (char ch : type) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        // The types read: adam, adamw, sgd and lion (adafactor is not read from a DeepSpeed config).
        const std::optional<Optimizer> opt = parse_enum<Optimizer>(lower);
        if (opt && *opt != Optimizer::adafactor) p.training.optimizer = *opt;
        else w.push_back("/optimizer/type = \"" + type + "\" not read");
        if (o.is_object() && o.contains("params"))
            w.push_back("/optimizer/params not read (hyper-parameters are not part of a layout)");
    }

    if (c.contains("zero_optimization")) {
        const json& z = c.at("zero_optimization");
        if (!z.is_object()) {
            w.push_back("/zero_optimization not read (expected an object)");
        } else {
            for (auto it = z.begin(); it != z.end(); ++it) {
                const std::string& k = it.key();
                if (k == "stage") {
                    const json& s = it.value();
                    if (s.is_number_integer() && s.get<int>() >= 0 && s.get<int>() <= 3)
                        p.layout.zero_stage = s.get<int>();
                    else w.push_back("/zero_optimization/stage = " + s.dump() + " not read (expected 0..3)");
                } else if (k == "offload_optimizer" || k == "offload_param") {
                    const json& o = it.value();
                    if (!o.is_object()) {
                        w.push_back("/zero_optimization/" + k + " not read");
                        continue;
                    }
                    for (auto jt = o.begin(); jt != o.end(); ++jt) {
                        const std::string ptr = "/zero_optimization/" + k + "/" + jt.key();
                        if (jt.key() == "device") {
                            const std::string dev = jt.value().is_string() ? jt.value().get<std::string>() : "";
                            const std::optional<Offload> off = parse_enum<Offload>(dev);
                            if (off && *off != Offload::none) {
                                if (k == "offload_optimizer" || p.layout.offload == Offload::none)
                                    p.layout.offload = *off;
                            } else if (dev != "none") {
                                w.push_back(ptr + " = " + jt.value().dump() + " not read");
                            }
                        } else if (jt.key() == "ratio" && k == "offload_optimizer") {
                            if (jt.value().is_number() && jt.value().get<double>() >= 0 &&
                                jt.value().get<double>() <= 1) {
                                const double f = jt.value().get<double>();
                                p.layout.offload_fraction = f < 1 ? f : 0;
                            } else {
                                w.push_back(ptr + " = " + jt.value().dump() + " not read");
                            }
                        } else if (jt.key() != "pin_memory" && jt.key() != "nvme_path") {
                            w.push_back(ptr + " not read");
                        }
                    }
                } else {
                    w.push_back("/zero_optimization/" + k + " not read (a tuning knob, not part of a layout)");
                }
            }
        }
    }
    if (r.implied_world == 0)
        r.notes.push_back("the config does not fix the world size; dp comes from the base cluster");
    return r;
}

}   // namespace paraplan
