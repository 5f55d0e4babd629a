// libFuzzer target: job.json is read back from a job folder that anything may have written
// to. A record is read or refused with a reason, never an exception or a crash.
#include "joblog/job_history.h"

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
    return 0;
}
