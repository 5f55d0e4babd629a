#include "joblog/torchrun_failure.h"

namespace paraplan::runtime {

std::optional<std::string> torchrun_worker_failure(std::string_view line) {
    const auto at = line.find("failed (exitcode: ");
    if (at == std::string_view::npos || line.find(" local_rank: ") == std::string_view::npos) return std::nullopt;
    return std::string(line.substr(at));
}

}   // namespace paraplan::runtime
