#pragma once
// The rows of a runs table (runs.h), read from its text without opening the files it
// names: CSV (a header naming the columns, '#' comments, RFC 4180 double quotes) or JSON
// ({"runs": [...]} or the bare array). Bounded: at most kMaxRuns rows and kMaxColumns cells
// per CSV line; JSON nesting as json_read::kMaxJsonDepth. The table may come from anyone.
#include <cstddef>
#include <string>
#include <vector>

namespace paraplan::calibrate {

inline constexpr std::size_t kMaxRuns = 10000;
inline constexpr std::size_t kMaxColumns = 256;

struct RunRow {
    std::string project;   // as written (relative to the table's folder)
    double step_s = 0;     // 0 = not given
    double peak_gib = 0;   // 0 = not given
    std::string log;
    std::string name;
    std::string where;     // "TABLE:LINE" (CSV) or "TABLE /runs/I" (JSON)
    std::string pointer;   // JSON pointer of the row ("" for CSV)
};

// Throws InputError naming `table` and the line (CSV) or JSON pointer; refuses an
// empty table.
std::vector<RunRow> read_runs_table(const std::string& text, const std::string& table);

}   // namespace paraplan::calibrate
