#pragma once
// Shell completion scripts generated from the command table (`paraplan-cli
// --completion bash` and `--completion zsh`; the build writes both and
// packaging installs them): command names, each command's declared options, the
// values of an option whose value is a list of words
// ("time|memory|throughput"), a command's first word where its usage forms
// start with one
// ("catalog gpus|models|..."), and files elsewhere.
#include <ostream>

namespace paraplan::cli {

void print_bash_completion(std::ostream& out);
void print_zsh_completion(std::ostream& out);

}   // namespace paraplan::cli
