#pragma once
// POSIX shell quoting for commands that run on remote nodes. Every remote command is
// built from an argv list; no value is ever pasted into shell text unquoted.
#include <string>
#include <string_view>
#include <vector>

namespace paraplan::runtime {

// One word for a POSIX shell: 'text' with each ' written as '\''. Plain words made of
// [A-Za-z0-9_@%+=:,./-] are returned as they are (readable dry runs).
std::string sh_quote(std::string_view word);

// Quoted words joined by single spaces.
std::string sh_join(const std::vector<std::string>& argv);

// A valid environment variable name: [A-Za-z_][A-Za-z0-9_]*.
bool is_env_name(std::string_view name);

}   // namespace paraplan::runtime
