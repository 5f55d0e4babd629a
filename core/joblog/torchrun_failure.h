#pragma once
// torchrun's report of a failed worker in an agent's log. torch.distributed.elastic logs the
// first failed worker of a node as "failed (exitcode: N) local_rank: L (pid: P) of binary: B"
// (torch/distributed/elastic/multiprocessing/api.py, SubprocessContext._poll, PyTorch v1.13.1).
#include <optional>
#include <string>
#include <string_view>

namespace paraplan::runtime {

// The line from "failed (exitcode: " on when it reports a failed worker (it also names a
// local_rank), else nullopt.
std::optional<std::string> torchrun_worker_failure(std::string_view line);

}   // namespace paraplan::runtime
