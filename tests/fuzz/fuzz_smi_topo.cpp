// libFuzzer target: the `nvidia-smi topo -m` reader (core/topofile/smi_topo_matrix.h) must never
// crash; a matrix it accepts is square with X exactly on the diagonal, and its NVLink domain is
// no larger than the GPUs it names.
#include "topofile/imported_topology.h"
#include "topofile/smi_topo_matrix.h"
#include "util/input_error.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::topofile;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    try {
        const auto m = parse_smi_topo(text);
        const std::size_t n = m.devices.size();
        if (n == 0 || n > kMaxSmiDevices || m.cells.size() != n || m.nic_names.size() != n) std::abort();
        for (std::size_t r = 0; r < n; ++r) {
            if (m.cells[r].size() != n) std::abort();
            for (std::size_t c = 0; c < n; ++c)
                if ((m.cells[r][c].link == SmiLink::Self) != (r == c)) std::abort();
        }
        const auto t = read_smi_topo_matrix(text);
        if (t.scale_up.domain_gpus < 1 || t.scale_up.domain_gpus > t.gpus_per_node()) std::abort();
        (void)to_tiers(t);
        (void)to_json(t).dump();
    } catch (const paraplan::InputError& e) {
        if (e.line() < 1) std::abort();
    }
    return 0;
}
