// libFuzzer target: what a wrapped rank prints (split into lines, each read for the launch
// wrapper's markers and for torchrun's failed-worker report) must never crash the readers,
// and a line is a marker only where it starts with that marker on its own stream.
#include "joblog/line_buffer.h"
#include "joblog/torchrun_failure.h"
#include "joblog/wrapper_markers.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    using namespace paraplan::runtime;
    std::string_view text(reinterpret_cast<const char*>(data), size);
    // The first line, when there is one, is the job's token (any bytes: the parser must not
    // depend on it being hex); the rest is the output.
    std::string_view token;
    if (const auto nl = text.find('\n'); nl != std::string_view::npos && nl <= 32) {
        token = text.substr(0, nl);
        text.remove_prefix(nl + 1);
    }
    const WrapperMarkers markers[] = {wrapper_markers(token), wrapper_markers("")};
    LineBuffer buf;
    auto lines = buf.append(text);
    lines.push_back(buf.take_rest());
    for (const auto& m : markers)
        for (const auto& l : lines)
            for (bool is_stderr : {false, true}) {
                const MarkerLine r = parse_marker_line(m, l, is_stderr);
                using K = MarkerLine::Kind;
                const std::string& prefix = r.kind == K::Started ? m.started : r.kind == K::Exited ? m.exited : m.error;
                if (r.kind != K::Output && l.rfind(prefix, 0) != 0) std::abort();
                if ((r.kind == K::Started || r.kind == K::Exited) && is_stderr) std::abort();
                if (r.kind == K::Error && !is_stderr) std::abort();
                if (r.pgid && (r.kind != K::Started || *r.pgid <= 0)) std::abort();
                if (r.exit_status && (r.kind != K::Exited || *r.exit_status < 0 || *r.exit_status > 255)) std::abort();
                if (r.kind == K::Error && r.message != l.substr(m.error.size())) std::abort();
            }
    for (const auto& l : lines)
        if (const auto f = torchrun_worker_failure(l); f && l.find(*f) == std::string::npos) std::abort();
    return 0;
}
