#pragma once
// A cluster profile: a few efficiency multipliers measured on one cluster (and its
// software stack) by `paraplan-cli calibrate`, applied on top of the built-in
// efficiency model. Stored as JSON (profiles/NAME.json under the user's config folder,
// or any file), selected with --profile NAME|FILE or the project's estimate.profile.
//
//   gemm       multiplies the GEMM efficiency ceiling e_max (efficiency.h)
//   attention  multiplies the attention kernels' share of peak
//   network    multiplies the inter-node bandwidth (cluster.network.inter_node_gbps)
//   nvlink     multiplies the intra-node link bandwidth
//   memory_reserve (optional) the caching allocator's reserve on that cluster and stack: the
//              share of the allocated peak it holds beyond it (max_memory_reserved /
//              max_memory_allocated - 1); absent = the framework's built-in share (memory.h)
//
// Physical bounds hold whatever a file says: a GEMM never runs above 95% of the dense
// peak, attention kernels above 90%, and no link faster than its line rate (network and
// nvlink at most 1).
#include "catalog/gpu.h"
#include "estimate/config.h"
#include "project/project.h"

#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <vector>

namespace paraplan::estimate {

struct Profile {
    std::string name;
    std::string gpu;   // catalog id of the cluster's GPU when fitted (informative)
    double gemm = 1, attention = 1, network = 1, nvlink = 1;
    std::optional<double> memory_reserve;            // absent: the built-in per-framework reserve
    nlohmann::json fit = nlohmann::json::object();   // how it was fitted (runs, errors)
};

// The allocator reserve's bounds. Above 0.6 of the allocated peak held in cached but unused
// blocks, the allocator no longer keeps them: when cudaMalloc fails it frees every cached block
// and retries (PyTorch c10/cuda/CUDACachingAllocator.cpp, release_cached_blocks on a failed
// alloc_block), so a measured max_memory_reserved this far above max_memory_allocated points at
// a mismatch of the model (or the layout), not at the allocator.
inline constexpr double kMinMemoryReserve = 0.0;
inline constexpr double kMaxMemoryReserve = 0.6;
inline constexpr const char* kMemoryReserveKey = "memory_reserve";

// Names of the fittable step-time multipliers, in file order (memory_reserve is separate).
const std::vector<std::string>& profile_parameters();
double& profile_value(Profile& p, const std::string& key);   // throws std::out_of_range
double profile_value(const Profile& p, const std::string& key);

// The caps that keep an applied profile physical.
inline constexpr double kMaxGemmEfficiency = 0.95;
inline constexpr double kMaxAttentionEfficiency = 0.90;

// Applies the multipliers to hardware derived by hardware_for().
void apply_profile(const Profile& p, Hardware& hw);

nlohmann::json profile_to_json(const Profile& p);
// Throws InputError naming `where` (a file) and the JSON pointer.
Profile profile_from_json(const nlohmann::json& j, const std::string& where = "");

// $XDG_CONFIG_HOME/paraplan/profiles, else $HOME/.config/paraplan/profiles.
std::string profile_dir();
// NAME -> profile_dir()/NAME.json; anything with a '/' or ending in .json is a path.
std::string profile_path(const std::string& name_or_file);
Profile load_profile(const std::string& name_or_file);          // throws InputError (file, why)
void save_profile(const Profile& p, const std::string& path);   // creates the folder

// hardware_for() with the project's profile (estimate.profile) applied, if it names one;
// throws InputError (/estimate/profile) when that profile cannot be read.
Hardware project_hardware(const Project& p, const GpuSpec& gpu);

// The project's estimate.profile (a name or a file), if it names one.
std::optional<std::string> project_profile(const Project& p);
void set_project_profile(Project& p, const std::string& name_or_file);
// Back to the built-in constants: removes estimate.profile (and an "estimate" left empty).
void clear_project_profile(Project& p);

}   // namespace paraplan::estimate
