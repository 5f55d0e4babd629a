// paraplan-cli: the command-line face of the planning library.
#include "cli/command.h"
#include "util/input_error.h"

#include <cstring>
#include <iostream>

using namespace paraplan::cli;

namespace {

void print_help() {
    std::cout << "paraplan-cli " << PARAPLAN_VERSION
              << ": plan, check and export distributed-training layouts.\n\n"
                 "Usage: paraplan-cli <command> [options]\n\nCommands:\n";
    for (const auto& c : commands()) {
        std::string n = c.name;
        n.resize(std::max<std::size_t>(n.size(), 14), ' ');
        std::cout << "  " << n << "  " << c.summary << '\n';
    }
    std::cout << "\nRun 'paraplan-cli <command> --help' for a command's options.\n"
                 "Exit codes: 0 fine, 1 the input has findings (e.g. an invalid layout),\n"
                 "2 usage error or unreadable input.\n"
                 "With --json, stdout holds a single JSON document; messages go to stderr.\n";
}

// troff man page from the same command table as --help (packaging installs it).
void print_man() {
    auto esc = [](std::string s) {
        std::string o;
        for (char c : s) {
            if (c == '\\') o += "\\e";
            else if (c == '-') o += "\\-";
            else o += c;
        }
        // A line starting with '.' or '\'' would be a troff request.
        std::string out;
        bool bol = true;
        for (char c : o) {
            if (bol && (c == '.' || c == '\'')) out += "\\&";
            out += c;
            bol = c == '\n';
        }
        return out;
    };
    std::cout << ".TH PARAPLAN-CLI 1 \"\" \"paraplan " << PARAPLAN_VERSION << "\" \"User Commands\"\n"
              << ".SH NAME\nparaplan\\-cli \\- plan, check and export distributed\\-training layouts\n"
              << ".SH SYNOPSIS\n.B paraplan\\-cli\n.I command\n[options]\n"
              << ".SH DESCRIPTION\nThe command line of Paraplan, a topology designer for distributed training.\n"
              << "With \\fB\\-\\-json\\fR, standard output holds a single JSON document; messages go to standard error.\n"
              << ".SH COMMANDS\n";
    for (const auto& c : commands()) {
        std::cout << ".SS " << esc(c.name) << "\n" << esc(c.summary) << "\n.PP\n.nf\n" << esc(c.usage) << ".fi\n";
    }
    std::cout << ".SH EXIT STATUS\n.TP\n0\nSuccess.\n.TP\n1\nThe input has findings (for example an invalid layout).\n"
              << ".TP\n2\nUsage error or unreadable input.\n"
              << ".SH SEE ALSO\n.BR paraplan (1)\n";
}

Args parse_args(const Command& cmd, int argc, char** argv, int first) {
    Args a;
    for (int i = first; i < argc; ++i) {
        std::string s = argv[i];
        if (s.size() > 2 && s.compare(0, 2, "--") == 0) {
            std::string key = s.substr(2), value;
            bool has_value = false;
            if (auto eq = key.find('='); eq != std::string::npos) {
                value = key.substr(eq + 1);
                key = key.substr(0, eq);
                has_value = true;
            }
            bool is_flag = false;
            for (const auto& f : cmd.flags) is_flag = is_flag || f == key;
            if (is_flag) {
                if (has_value) throw UsageError("--" + key + " takes no value");
                a.flags_set.push_back(key);
                continue;
            }
            if (!has_value) {
                if (i + 1 >= argc) throw UsageError("--" + key + " needs a value");
                value = argv[++i];
            }
            a.options[key] = value;
        } else if (s == "-o") {
            if (i + 1 >= argc) throw UsageError("-o needs a value");
            a.options["o"] = argv[++i];
        } else {
            a.positional.push_back(s);
        }
    }
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h") ||
        !std::strcmp(argv[1], "help")) {
        if (argc >= 3 && !std::strcmp(argv[1], "help")) {
            for (const auto& c : commands())
                if (c.name == argv[2]) {
                    std::cout << c.usage;
                    return kOk;
                }
        }
        print_help();
        return argc < 2 ? kUsage : kOk;
    }
    if (!std::strcmp(argv[1], "--man")) {
        print_man();
        return kOk;
    }
    if (!std::strcmp(argv[1], "--version") || !std::strcmp(argv[1], "-V")) {
        std::cout << "paraplan-cli " << PARAPLAN_VERSION << '\n';
        return kOk;
    }
    const Command* cmd = nullptr;
    for (const auto& c : commands())
        if (c.name == argv[1]) cmd = &c;
    if (!cmd) {
        std::cerr << "paraplan-cli: unknown command '" << argv[1] << "' (see paraplan-cli --help)\n";
        return kUsage;
    }
    for (int i = 2; i < argc; ++i)
        if (!std::strcmp(argv[i], "--help") || !std::strcmp(argv[i], "-h")) {
            std::cout << cmd->usage;
            return kOk;
        }
    try {
        Args args = parse_args(*cmd, argc, argv, 2);
        return cmd->run(args);
    } catch (const UsageError& e) {
        std::cerr << "paraplan-cli " << cmd->name << ": " << e.what() << "\n" << cmd->usage;
        return kUsage;
    } catch (const paraplan::InputError& e) {
        std::cerr << "paraplan-cli " << cmd->name << ": " << e.what() << '\n';
        return kUsage;
    } catch (const std::exception& e) {
        std::cerr << "paraplan-cli " << cmd->name << ": error: " << e.what() << '\n';
        return kUsage;
    }
}
