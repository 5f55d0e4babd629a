#pragma once
// Direct, torchrun, colossalai and deepspeed jobs: every plan process runs on its node under
// the launch wrapper (launch_plan.h, wrapper_script). The wrapper's marker lines give each
// process's group and exit status; a heartbeat byte on each stdin keeps its watchdog
// content; Stop closes each stdin, and the watchdog ends the process group (TERM, grace, KILL).
#include "joblog/wrapper_markers.h"
#include "runtime/job_backend.h"

namespace paraplan::runtime {

class SshJobBackend : public JobBackend {
public:
    explicit SshJobBackend(Job& job);

    void start() override;
    std::optional<std::string> line(int i, const std::string& text, bool is_stderr) override;
    bool process_ended(int i, int ssh_code) override;
    void stop() override;

private:
    void torchrun_worker_failed(int i, const std::string& failure);

    WrapperMarkers markers_;
    bool torch_worker_failed_ = false;   // said once per job
};

}   // namespace paraplan::runtime
