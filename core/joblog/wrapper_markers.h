#pragma once
// The whole lines the remote launch wrapper (runtime/launch_plan.h, wrapper_script) prints
// around the command it runs, and how one output line of a wrapped process is read:
//   stdout "__PARAPLAN_STARTED_<token>__ <pgid>"   the command's process group has started
//   stdout "__PARAPLAN_EXIT_<token>__ <status>"    the command ended with this exit status
//   stderr "__PARAPLAN_ERROR_<token>__ <message>"  the wrapper could not start the command
// <token> is random per job, so a rank whose own output holds a marker (of this or any
// other job, or the plain forms without a token) cannot end its process in Paraplan's eyes.
#include <optional>
#include <string>
#include <string_view>

namespace paraplan::runtime {

// The plain forms, used when a plan carries no token.
inline constexpr const char* kStartedMarker = "__PARAPLAN_STARTED__ ";   // + process group id
inline constexpr const char* kExitMarker = "__PARAPLAN_EXIT__ ";         // + exit status
inline constexpr const char* kErrorMarker = "__PARAPLAN_ERROR__ ";       // + message (stderr), before start

struct WrapperMarkers {
    std::string started, exited, error;   // each ends with one blank; the value follows
};

// The markers of a job whose token is `token` (the plain forms when it is empty).
WrapperMarkers wrapper_markers(std::string_view token);

struct MarkerLine {
    enum class Kind {
        Output,    // an ordinary line of the command's output (kept and logged as it is)
        Started,   // the start marker; pgid holds the process group unless the rest is not one
        Exited,    // the exit marker; exit_status holds 0..255 unless the rest is not one
        Error,     // the error marker; message holds the wrapper's text after the marker
    };
    Kind kind = Kind::Output;
    std::optional<long long> pgid;    // Started: a positive integer, else nullopt
    std::optional<int> exit_status;   // Exited: an integer in 0..255, else nullopt
    std::string message;              // Error
};

// Reads one complete output line (without its line end) of a wrapped process. The start and
// exit markers count only on stdout and the error marker only on stderr, each only at the
// start of the line; the number after a marker may have blanks around it (and a trailing \r).
MarkerLine parse_marker_line(const WrapperMarkers& markers, std::string_view line, bool is_stderr);

}   // namespace paraplan::runtime
