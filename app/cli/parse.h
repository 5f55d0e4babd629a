#pragma once
// argv to Args with CLI11, from the commands' declared options, and the suggestions for a
// mistyped command or option name.
#include "cli/command.h"

#include <string>
#include <vector>

namespace paraplan::cli {

// The words after the command name, parsed against cmd's declared options: `--key value`,
// `--key=value`, `-o FILE`, flags and positionals. UsageError for an unknown option (naming the
// nearest declared one), a missing value, a value given to a flag, or an argument after `--`.
Args parse_command_line(const Command& cmd, const std::vector<std::string>& words);

// The command a mistyped or guessed name most likely meant ("vaildate", "check"), or "".
std::string nearest_command(const std::string& typed);

}   // namespace paraplan::cli
