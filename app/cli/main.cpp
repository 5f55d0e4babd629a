// paraplan-cli: the command-line face of the planning library.
#include "cli/command.h"
#include "cli/completion.h"
#include "cli/parse.h"
#include "cli/usage.h"
#include "util/input_error.h"

#include <iostream>
#include <string>
#include <vector>

using namespace paraplan::cli;

namespace {

// --help, --man, --markdown, --version, --completion SHELL, help [CMD]: the exit code, or -1
// when argv[1] is none of these.
int top_level(const std::vector<std::string>& w) {
    if (w.empty()) {
        print_help(std::cout);
        return kUsage;
    }
    const std::string& a = w[0];
    if (a == "--help" || a == "-h" || a == "help") {
        const Command* c = (w.size() >= 2 && a == "help") ? find_command(w[1]) : nullptr;
        if (c) std::cout << usage(*c);
        else print_help(std::cout);
        return kOk;
    }
    if (a == "--man") print_man(std::cout);
    else if (a == "--markdown") print_markdown(std::cout);
    else if (a == "--version" || a == "-V") std::cout << "paraplan-cli " << PARAPLAN_VERSION << '\n';
    else if (a == "--completion") {
        const std::string shell = w.size() >= 2 ? w[1] : "";
        if (shell == "bash") print_bash_completion(std::cout);
        else if (shell == "zsh") print_zsh_completion(std::cout);
        else {
            std::cerr << "paraplan-cli: --completion needs a shell: bash or zsh\n";
            return kUsage;
        }
    } else return -1;
    return kOk;
}

}   // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> words(argv + 1, argv + argc);
    if (const int code = top_level(words); code >= 0) return code;
    const Command* cmd = find_command(words[0]);
    if (!cmd) {
        std::cerr << "paraplan-cli: unknown command '" << words[0] << "'";
        if (const std::string near = nearest_command(words[0]); !near.empty())
            std::cerr << "; did you mean '" << near << "'?";
        std::cerr << " (see paraplan-cli --help)\n";
        return kUsage;
    }
    const std::vector<std::string> rest(words.begin() + 1, words.end());
    for (const auto& w : rest)
        if (w == "--help" || w == "-h") {
            std::cout << usage(*cmd);
            return kOk;
        }
    try {
        return cmd->run(parse_command_line(*cmd, rest));
    } catch (const UsageError& e) {
        std::cerr << "paraplan-cli " << cmd->name << ": " << e.what() << "\n" << usage(*cmd);
        return kUsage;
    } catch (const paraplan::InputError& e) {
        std::cerr << "paraplan-cli " << cmd->name << ": " << e.what() << '\n';
        return kUsage;
    } catch (const std::exception& e) {
        std::cerr << "paraplan-cli " << cmd->name << ": error: " << e.what() << '\n';
        return kUsage;
    }
}
