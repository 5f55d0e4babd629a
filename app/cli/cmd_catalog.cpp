// paraplan-cli catalog gpus|models|shardformer [--json]
#include "catalog/catalog.h"
#include "cli/command.h"
#include "network/systems.h"
#include "rules/shardformer.h"

#include <algorithm>
#include <set>

#include <cstdio>
#include <iostream>

namespace paraplan::cli {
namespace {

// The families of the built-in models, so the checklist also names those without a policy.
std::vector<std::string> catalog_families() {
    std::set<std::string> seen;
    std::vector<std::string> out;
    for (const auto& m : catalog::models())
        if (seen.insert(m.family).second) out.push_back(m.family);
    return out;
}

const char* short_support(rules::Support s) {
    switch (s) {
    case rules::Support::Yes: return "yes";
    case rules::Support::Converted: return "conv";
    case rules::Support::Ignored: return "off";
    case rules::Support::NoEffect: return "-";
    case rules::Support::Error: return "ERR";
    }
    return "?";
}

int run_shardformer(bool json_out) {
    if (json_out) {
        print_json(rules::shardformer_checklist_json(catalog_families()).dump(2));
        return kOk;
    }
    const auto& feats = rules::shardformer_features();
    std::printf("%-12s %-11s", "family", "policy");
    for (const auto& f : feats) std::printf(" %*s", std::max(4, int(f.size())), f.c_str());
    std::printf("\n");
    for (const auto& p : rules::shardformer_policies()) {
        std::printf("%-12s %-11s", p.family.c_str(), p.name.c_str());
        for (std::size_t i = 0; i < feats.size(); ++i)
            std::printf(" %*s", std::max(4, int(feats[i].size())), short_support(p.cells[i].level));
        std::printf("%s\n", p.sp_excludes_pp ? "  (sp not with pp)" : "");
    }
    for (const auto& f : catalog_families())
        if (!rules::shardformer_policy(f))
            std::printf("%-12s %-11s no ShardFormer policy: ColossalAI cannot shard it\n", f.c_str(), "none");
    std::printf(
        "\nyes supported; conv converted to another mode; off the policy warns and turns it off;\n"
        "- the flag has no effect; ERR the policy raises. Details and messages: --json.\n"
        "Source: hpcaitech/ColossalAI v0.5.1, colossalai/shardformer/policies/auto_policy.py and <model>.py.\n");
    return kOk;
}

int run_systems(bool json_out) {
    if (json_out) {
        nlohmann::json arr = nlohmann::json::array();
        for (const auto& s : network::systems()) arr.push_back(network::to_json(s));
        print_json(nlohmann::json{{"systems", arr}}.dump(2));
        return kOk;
    }
    std::printf("%-12s %-8s %5s %5s  %s\n", "id", "gpu", "node", "tray", "tiers (GPU outwards)");
    for (const auto& s : network::systems()) {
        std::string tiers;
        for (const auto& t : s.tiers) {
            if (!tiers.empty()) tiers += " > ";
            tiers += t.name;
            if (t.scale_up())
                tiers += " " + std::to_string(t.domain_gpus) + "x" + std::to_string(static_cast<int>(t.gpu_gbps())) +
                         "GB/s";
            else if (t.kind == network::TierKind::ScaleOut)
                tiers += " " + std::to_string(static_cast<int>(t.nic_gbit)) + "Gb/s";
            if (!t.reduction.empty()) tiers += " +" + t.reduction;
        }
        std::printf("%-12s %-8s %5d %5d  %s\n", s.id.c_str(), s.gpu.c_str(), s.gpus_per_node, s.gpus_per_tray,
                    tiers.c_str());
    }
    return kOk;
}

int run_catalog(const Args& a) {
    const std::string what = a.positional_at(0, "what to list (gpus, models, systems or shardformer)");
    const bool json_out = a.flag("json");
    if (what == "gpus") {
        if (json_out) {
            nlohmann::json arr = nlohmann::json::array();
            for (const auto& g : catalog::gpus()) arr.push_back(to_json(g));
            print_json(nlohmann::json{{"gpus", arr}}.dump(2));
        } else {
            std::printf("%-12s %-34s %8s %9s %9s %9s %s\n", "id", "name", "mem GiB", "bf16 TF", "HBM GB/s", "link GB/s",
                        "link");
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
            std::printf("%-16s %-12s %7s %7s %6s %6s %9s\n", "id", "family", "layers", "hidden", "heads", "kv",
                        "params");
            for (const auto& m : catalog::models())
                std::printf("%-16s %-12s %7d %7d %6d %6d %8.2fB\n", m.id.c_str(), m.family.c_str(), m.layers, m.hidden,
                            m.heads, m.kv_heads, static_cast<double>(count_params(m).total) / 1e9);
        }
        return kOk;
    }
    if (what == "shardformer") return run_shardformer(json_out);
    if (what == "systems") return run_systems(json_out);
    throw UsageError("unknown catalog '" + what + "' (expected gpus, models, systems or shardformer)");
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "catalog",
    .summary = "list the built-in GPUs, models or systems, or ColossalAI ShardFormer's support per model family",
    .synopsis = {"gpus|models|systems|shardformer [--json]"},
    .description = "  gpus          the GPU catalog\n"
                   "  models        the model catalog with parameter counts\n"
                   "  systems       whole systems (DGX, HGX, NVL72 racks, MI300X, PCIe nodes): the GPU, GPUs per\n"
                   "                node and tray, the network tiers from the GPU outwards and their sources\n"
                   "  shardformer   per model family: whether ColossalAI's ShardFormer has a policy and which of\n"
                   "                tensor parallel, pipeline, each sequence-parallel mode (split_gather, ring,\n"
                   "                all_to_all, ring_attn), flash attention, fused norm, JIT fused kernels and\n"
                   "                FP8 it supports (yes, converted, ignored, no_effect, error); the same table\n"
                   "                the validator checks layouts against\n",
    .options = {{"json", "",
                 "{\"gpus\": [...]}, {\"models\": [...]}, {\"systems\": [...]} or {\"source\", \"features\",\n"
                 "\"families\": [{family, name, policy, policy_file, release, sp_excludes_pp,\n"
                 "features: {tp: {support, note, framework}, ...}}]}"}},
    .run = run_catalog});

}   // namespace paraplan::cli
