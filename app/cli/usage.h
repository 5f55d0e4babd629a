#pragma once
// The reference texts generated from the command table: `paraplan-cli --help`, the man page
// (--man, installed by packaging) and docs/cli.md (--markdown). usage(cmd) is in command.h.
#include <ostream>

namespace paraplan::cli {

void print_help(std::ostream& out);
void print_man(std::ostream& out);
void print_markdown(std::ostream& out);

}   // namespace paraplan::cli
