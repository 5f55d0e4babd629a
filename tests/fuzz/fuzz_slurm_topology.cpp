// libFuzzer target: Slurm's topology.conf reader (core/topofile/slurm_topology_conf.h) must never
// crash or expand a hostlist past its bound, and whatever it accepts writes back to a file that
// reads as the same struct; placement options and tiers can be made from it.
#include "topofile/imported_topology.h"
#include "topofile/slurm_topology_conf.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::topofile;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const SlurmTopology t = read_slurm_topology_conf(text);
        if (t.all_nodes().size() > kMaxSlurmNames) std::abort();
        if (read_slurm_topology_conf(write_slurm_topology_conf(t)) != t) std::abort();
        for (int group : {1, 4, 8}) {
            const auto p = placement_options(t, 8 * group, group);
            if (p.ok == p.sbatch_args.empty()) std::abort();
        }
        const auto imported = from_slurm(t);
        (void)to_tiers(imported, {8});
        (void)to_json(imported).dump();
    } catch (const paraplan::InputError& e) {
        if (e.line() < 1) std::abort();
    }
    return 0;
}
