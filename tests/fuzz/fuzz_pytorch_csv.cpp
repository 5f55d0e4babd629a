// libFuzzer target: PyTorch's pipeline schedule CSV (schedule/pytorch_csv.h), as
// `paraplan-cli timeline --import-csv` reads it from any file: never a crash, a refusal
// says why, and a schedule read is written back as CSV that reads again (a trailing idle
// rank is written as an empty line, which the reader, like PyTorch's, may drop).
#include "schedule/pytorch_csv.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::schedule;
    const std::string text(reinterpret_cast<const char*>(data), size);
    const CsvImport r = from_pytorch_csv(text);
    if (!r.schedule) {
        if (r.diagnostics.empty()) std::abort();   // a refusal says why
        return 0;
    }
    const CsvImport again = from_pytorch_csv(to_pytorch_csv(*r.schedule));
    if (!again.schedule || again.schedule->pp > r.schedule->pp) std::abort();
    return 0;
}
