#include "runtime/job_backend.h"

#include "runtime/job_backend_slurm.h"
#include "runtime/job_backend_ssh.h"

namespace paraplan::runtime {

std::unique_ptr<JobBackend> JobBackend::for_plan(Job& job) {
    if (job.plan().mode == "slurm") return std::make_unique<SlurmJobBackend>(job);
    return std::make_unique<SshJobBackend>(job);   // direct, torchrun, colossalai, deepspeed
}

}   // namespace paraplan::runtime
