#include "joblog/wrapper_markers.h"

#include <charconv>

namespace paraplan::runtime {

namespace {

// The integer that is the whole of `rest` (surrounding blanks allowed), else nullopt.
std::optional<long long> whole_integer(std::string_view rest) {
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    while (!rest.empty() && (rest.back() == ' ' || rest.back() == '\r')) rest.remove_suffix(1);
    if (rest.empty()) return std::nullopt;
    long long v = 0;
    const auto [end, ec] = std::from_chars(rest.data(), rest.data() + rest.size(), v);
    if (ec != std::errc() || end != rest.data() + rest.size()) return std::nullopt;
    return v;
}

bool starts_with(std::string_view line, const std::string& prefix) {
    return !prefix.empty() && line.substr(0, prefix.size()) == prefix;
}

}   // namespace

WrapperMarkers wrapper_markers(std::string_view token) {
    if (token.empty()) return {kStartedMarker, kExitMarker, kErrorMarker};
    const std::string t(token);
    return {"__PARAPLAN_STARTED_" + t + "__ ", "__PARAPLAN_EXIT_" + t + "__ ", "__PARAPLAN_ERROR_" + t + "__ "};
}

MarkerLine parse_marker_line(const WrapperMarkers& markers, std::string_view line, bool is_stderr) {
    MarkerLine m;
    if (!is_stderr && starts_with(line, markers.started)) {
        m.kind = MarkerLine::Kind::Started;
        // $! of the wrapper's `setsid ... &`: a process id, never 0 or negative (which kill
        // would read as "this group" or "every process").
        if (const auto v = whole_integer(line.substr(markers.started.size())); v && *v > 0) m.pgid = *v;
    } else if (!is_stderr && starts_with(line, markers.exited)) {
        m.kind = MarkerLine::Kind::Exited;
        if (const auto v = whole_integer(line.substr(markers.exited.size())); v && *v >= 0 && *v <= 255)
            m.exit_status = static_cast<int>(*v);
    } else if (is_stderr && starts_with(line, markers.error)) {
        m.kind = MarkerLine::Kind::Error;
        m.message = std::string(line.substr(markers.error.size()));
    }
    return m;
}

}   // namespace paraplan::runtime
