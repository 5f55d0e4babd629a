// libFuzzer target: job.json is read back from a job folder that anything may have written
// to. A record is read or refused with a reason, never an exception or a crash; so is the stop
// plan `paraplan-cli stop` reads from it (no process group below 2 ever comes out).
#include "joblog/job_history.h"
#include "joblog/job_stop.h"
#include "ssh/ssh_policy.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::runtime;
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    std::string problem;
    const auto r = job_record_from_text(text, "/jobs/20260101-000000-fuzz", &problem);
    if (r.has_value() == !problem.empty()) std::abort();   // a refusal says why; a record has no problem
    if (r && (r->world_size < 0 || !r->json.is_object())) std::abort();
    if (r) {
        std::string why;
        const auto plan = stop_plan_from_record(*r, &why);
        if (plan.has_value() == !why.empty()) std::abort();
        if (plan)
            for (const auto& p : plan->processes)
                if ((p.pgid && *p.pgid < 2) || p.target.port < 0 || p.target.port > 65535 ||
                    (!p.target.host.empty() && !check_target(p.target).empty()))
                    std::abort();
        if (plan)
            for (const auto& o : plan->ssh_options)
                if (!check_project_ssh_option(o).empty()) std::abort();
    }
    return 0;
}
