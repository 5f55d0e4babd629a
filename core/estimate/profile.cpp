#include "estimate/profile.h"

#include "network/efficiency.h"
#include "util/local_dirs.h"
#include "util/json_read.h"
#include "util/read_file.h"

#include "estimate/estimate.h"
#include "util/input_error.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace paraplan::estimate {

const std::vector<std::string>& profile_parameters() {
    static const std::vector<std::string> k = {"gemm", "attention", "network", "nvlink"};
    return k;
}

double& profile_value(Profile& p, const std::string& key) {
    if (key == "gemm") return p.gemm;
    if (key == "attention") return p.attention;
    if (key == "network") return p.network;
    if (key == "nvlink") return p.nvlink;
    throw std::out_of_range("unknown profile parameter '" + key + "'");
}

double profile_value(const Profile& p, const std::string& key) { return profile_value(const_cast<Profile&>(p), key); }

void apply_profile(const Profile& p, Hardware& hw) {
    hw.gemm_scale = p.gemm;
    hw.attention_scale = p.attention;
    hw.inter_node_gbits *= std::min(1.0, p.network);
    hw.intra_node_gbps *= std::min(1.0, p.nvlink);
    // On the cluster's tiers the same two multipliers scale the scale-up links and the NICs.
    if (hw.network && (p.nvlink < 1 || p.network < 1))
        hw.network = std::make_shared<const network::System>(
            network::with_efficiency(*hw.network, std::clamp(p.nvlink, 1e-3, 1.0), std::clamp(p.network, 1e-3, 1.0)));
    if (p.memory_reserve) hw.memory_reserve = std::clamp(*p.memory_reserve, kMinMemoryReserve, kMaxMemoryReserve);
}

nlohmann::json profile_to_json(const Profile& p) {
    nlohmann::json j = {{"paraplan_profile", 1}, {"name", p.name}};
    if (!p.gpu.empty()) j["gpu"] = p.gpu;
    for (const auto& k : profile_parameters()) j[k] = profile_value(p, k);
    if (p.memory_reserve) j[kMemoryReserveKey] = *p.memory_reserve;
    if (!p.fit.empty()) j["fit"] = p.fit;
    return j;
}

Profile profile_from_json(const nlohmann::json& j, const std::string& where) {
    const std::string at = where.empty() ? "" : where + ": ";
    if (!j.is_object()) throw InputError("", at + "a profile is a JSON object");
    Profile p;
    p.name = j.value("name", std::string());
    p.gpu = j.value("gpu", std::string());
    for (const auto& k : profile_parameters()) {
        if (!j.contains(k)) continue;
        const auto& v = j.at(k);
        if (!v.is_number() || v.get<double>() <= 0)
            throw InputError("/" + k, at + k + " must be a positive number (a multiplier of the built-in efficiency)");
        profile_value(p, k) = v.get<double>();
    }
    for (const auto& k : {"network", "nvlink"})
        if (profile_value(p, k) > 1)
            throw InputError(std::string("/") + k, at + k + " is " + std::to_string(profile_value(p, k)) +
                                                       ": no link runs faster than its line rate (at most 1)");
    if (j.contains(kMemoryReserveKey)) {
        const auto& v = j.at(kMemoryReserveKey);
        if (!v.is_number())
            throw InputError(std::string("/") + kMemoryReserveKey,
                             at + "memory_reserve must be a number (the allocator's reserve as a share of the "
                                  "allocated peak, e.g. 0.15)");
        const double f = v.get<double>();
        if (!(f >= kMinMemoryReserve && f <= kMaxMemoryReserve))
            throw InputError(std::string("/") + kMemoryReserveKey,
                             at + "memory_reserve is " + std::to_string(f) +
                                 ": the caching allocator's reserve lies between 0 and 0.6 of the allocated peak "
                                 "(beyond, it releases its cached blocks and retries)");
        p.memory_reserve = f;
    }
    if (j.contains("fit") && j.at("fit").is_object()) p.fit = j.at("fit");
    return p;
}

std::string profile_dir() {
    namespace fs = std::filesystem;
    if (const char* x = std::getenv("XDG_CONFIG_HOME"); x && *x)
        return (fs::path(x) / "paraplan" / "profiles").string();
    const char* h = std::getenv("HOME");
    return (fs::path(h && *h ? h : ".") / ".config" / "paraplan" / "profiles").string();
}

std::string profile_path(const std::string& s) {
    const bool file = s.find('/') != std::string::npos || (s.size() > 5 && s.compare(s.size() - 5, 5, ".json") == 0);
    if (file) return s;
    return (std::filesystem::path(profile_dir()) / (s + ".json")).string();
}

Profile load_profile(const std::string& s) {
    if (s.empty()) throw InputError("/estimate/profile", "the profile name is empty");
    const std::string path = profile_path(s);
    std::string text;
    try {
        text = read_input_file(path, "profile", 1u << 20);
    } catch (const InputError& e) {
        throw InputError(
            "", "profile '" + s + "' (" + path + "): " + e.message() + " (create it with paraplan-cli calibrate)");
    }
    nlohmann::json j;
    try {
        j = json_read::parse(text);   // nesting bounded
    } catch (const InputError& e) {
        throw InputError("", path + ": not JSON (" + e.message() + ")");
    }
    Profile p = profile_from_json(j, path);
    if (p.name.empty()) p.name = std::filesystem::path(path).stem().string();
    return p;
}

void save_profile(const Profile& p, const std::string& path) {
    namespace fs = std::filesystem;
    const fs::path target(path);
    if (target.has_parent_path()) fs::create_directories(target.parent_path());
    // A new file renamed into place, never through a link planted at the name (or at a
    // predictable temporary name beside it).
    const std::string why = write_file_replacing(target.string(), profile_to_json(p).dump(2) + "\n");
    if (!why.empty()) throw InputError("", "cannot write " + target.string() + ": " + why);
}

Hardware project_hardware(const Project& p, const GpuSpec& gpu) {
    Hardware hw = hardware_for(gpu, p.cluster, p.training.precision);
    if (const auto name = project_profile(p)) {
        try {
            apply_profile(load_profile(*name), hw);
        } catch (const InputError& e) {
            throw InputError("/estimate/profile", e.message());
        }
    }
    return hw;
}

std::optional<std::string> project_profile(const Project& p) {
    const nlohmann::json* it = p.extra.find("estimate");
    if (!it || !it->is_object()) return std::nullopt;
    const auto pr = it->find("profile");
    if (pr == it->end() || !pr->is_string() || pr->get<std::string>().empty()) return std::nullopt;
    return pr->get<std::string>();
}

void set_project_profile(Project& p, const std::string& name_or_file) {
    nlohmann::json& extra = p.extra.edit();
    if (!extra.contains("estimate") || !extra["estimate"].is_object()) extra["estimate"] = nlohmann::json::object();
    extra["estimate"]["profile"] = name_or_file;
}

void clear_project_profile(Project& p) {
    const nlohmann::json* e = p.extra.find("estimate");
    if (!e || !e->is_object() || !e->contains("profile")) return;
    nlohmann::json& extra = p.extra.edit();
    extra["estimate"].erase("profile");
    if (extra["estimate"].empty()) p.extra.erase("estimate");
}

}   // namespace paraplan::estimate
