#include "network/system.h"

#include "util/input_error.h"
#include "util/json_read.h"

namespace paraplan::network {

namespace {

using json_read::Obj;

TierKind kind_from(const Obj& o) {
    if (!o.has("kind"))
        throw InputError(o.at("kind"), "required field is missing (expected nvlink, xgmi, pcie, scale_out or switch)");
    const std::string k = o.one_of("kind", {"nvlink", "xgmi", "pcie", "scale_out", "switch"}, "");
    if (k == "nvlink") return TierKind::NvLink;
    if (k == "xgmi") return TierKind::Xgmi;
    if (k == "pcie") return TierKind::Pcie;
    if (k == "scale_out") return TierKind::ScaleOut;
    return TierKind::Switch;
}

}   // namespace

Tier tier_from_json(const nlohmann::json& j, const std::string& pointer) {
    const Obj o(j, pointer);
    Tier t;
    t.name = o.string("name");
    if (t.name.empty()) json_read::fail(o.at("name"), "a non-empty string", *o.get("name"));
    t.kind = kind_from(o);
    t.latency_us = o.non_negative_number("latency_us", 0);
    t.reduction = o.one_of("reduction", {"", "nvls", "sharp"}, "");
    if (t.scale_up()) {
        t.generation = o.string("generation");
        t.domain_gpus = o.positive_int("domain_gpus");
        t.links_per_gpu = o.positive_int("links_per_gpu");
        t.link_gbps = o.positive_number("link_gbps");
    } else if (t.kind == TierKind::ScaleOut) {
        t.nics_per_gpu = o.positive_number("nics_per_gpu");
        t.nic_gbit = o.positive_number("nic_gbit");
        t.rails = o.positive_int("rails");
    } else {
        t.gpus = o.non_negative_int("gpus", 0);
        t.oversubscription = o.positive_number("oversubscription");
    }
    return t;
}

nlohmann::json to_json(const Tier& t) {
    nlohmann::json j{{"name", t.name}, {"kind", tier_kind_name(t.kind)}, {"latency_us", t.latency_us}};
    if (!t.reduction.empty()) j["reduction"] = t.reduction;
    if (t.scale_up()) {
        j["generation"] = t.generation;
        j["domain_gpus"] = t.domain_gpus;
        j["links_per_gpu"] = t.links_per_gpu;
        j["link_gbps"] = t.link_gbps;
    } else if (t.kind == TierKind::ScaleOut) {
        j["nics_per_gpu"] = t.nics_per_gpu;
        j["nic_gbit"] = t.nic_gbit;
        j["rails"] = t.rails;
    } else {
        j["gpus"] = t.gpus;
        j["oversubscription"] = t.oversubscription;
    }
    return j;
}

std::vector<Tier> tiers_from_json(const nlohmann::json& arr, const std::string& pointer) {
    if (!arr.is_array()) json_read::fail(pointer, "an array of tiers", arr);
    std::vector<Tier> out;
    for (std::size_t i = 0; i < arr.size(); ++i)
        out.push_back(tier_from_json(arr[i], pointer + "/" + std::to_string(i)));
    if (out.empty() || !out.front().scale_up())
        throw InputError(pointer, "the first tier must be the scale-up domain (nvlink, xgmi or pcie)");
    return out;
}

const char* tier_kind_name(TierKind k) {
    switch (k) {
    case TierKind::NvLink: return "nvlink";
    case TierKind::Xgmi: return "xgmi";
    case TierKind::Pcie: return "pcie";
    case TierKind::ScaleOut: return "scale_out";
    case TierKind::Switch: return "switch";
    }
    return "?";
}

const Tier* System::scale_out() const {
    for (const auto& t : tiers)
        if (t.kind == TierKind::ScaleOut) return &t;
    return nullptr;
}

System system_from_json(const nlohmann::json& j, const std::string& pointer) {
    const Obj o(j, pointer);
    System s;
    s.id = o.string("id");
    s.name = o.string("name");
    s.gpu = o.string("gpu");
    s.gpus_per_node = o.positive_int("gpus_per_node");
    s.gpus_per_tray = o.positive_int("gpus_per_tray");
    s.source = o.string("source");
    s.tiers = tiers_from_json(o.array("tiers"), o.at("tiers"));
    return s;
}

nlohmann::json to_json(const System& s) {
    nlohmann::json tiers = nlohmann::json::array();
    for (const auto& t : s.tiers) tiers.push_back(to_json(t));
    return {{"id", s.id},
            {"name", s.name},
            {"gpu", s.gpu},
            {"gpus_per_node", s.gpus_per_node},
            {"gpus_per_tray", s.gpus_per_tray},
            {"tiers", tiers},
            {"source", s.source}};
}

}   // namespace paraplan::network
