// paraplan-cli catalog gpus|models [--json]
#include "catalog/catalog.h"
#include "cli/command.h"

#include <cstdio>
#include <iostream>

namespace paraplan::cli {
namespace {

int run_catalog(const Args& a) {
    const std::string what = a.positional_at(0, "what to list (gpus or models)");
    const bool json_out = a.flag("json");
    if (what == "gpus") {
        if (json_out) {
            nlohmann::json arr = nlohmann::json::array();
            for (const auto& g : catalog::gpus()) arr.push_back(to_json(g));
            print_json(nlohmann::json{{"gpus", arr}}.dump(2));
        } else {
            std::printf("%-12s %-34s %8s %9s %9s %9s %s\n", "id", "name", "mem GiB", "bf16 TF", "HBM GB/s", "link GB/s", "link");
            for (const auto& g : catalog::gpus())
                std::printf("%-12s %-34s %8.0f %9.1f %9.0f %9.0f %s\n", g.id.c_str(), g.name.c_str(), g.memory_gib,
                            g.tflops_bf16, g.hbm_gbps, g.intra_node_gbps, g.intra_node_link.c_str());
        }
        return kOk;
    }
    if (what == "models") {
        if (json_out) {
            nlohmann::json arr = nlohmann::json::array();
            for (const auto& m : catalog::models()) {
                auto j = to_json(m);
                const auto pc = count_params(m);
                j["parameters"] = pc.total;
                j["active_parameters"] = pc.active;
                arr.push_back(j);
            }
            print_json(nlohmann::json{{"models", arr}}.dump(2));
        } else {
            std::printf("%-16s %-12s %7s %7s %6s %6s %9s\n", "id", "family", "layers", "hidden", "heads", "kv", "params");
            for (const auto& m : catalog::models())
                std::printf("%-16s %-12s %7d %7d %6d %6d %8.2fB\n", m.id.c_str(), m.family.c_str(), m.layers, m.hidden,
                            m.heads, m.kv_heads, static_cast<double>(count_params(m).total) / 1e9);
        }
        return kOk;
    }
    throw UsageError("unknown catalog '" + what + "' (expected gpus or models)");
}

}  // namespace

PARAPLAN_CLI_COMMAND(Command{"catalog", "list the built-in GPUs or models",
                             "Usage: paraplan-cli catalog gpus|models [--json]\n", {"json"}, run_catalog});

}  // namespace paraplan::cli
