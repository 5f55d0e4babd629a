#pragma once
// paraplan-cli subcommands. Each cmd_*.cpp registers itself with PARAPLAN_CLI_COMMAND,
// declaring its options once (Option); parse.cpp hands them to CLI11, and --help, the man
// page, docs/cli.md and the shell completions are generated from the same declarations.
// Exit codes, the same in every command: exit_codes() below.
#include "project/layout_enums.h"

#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace paraplan::cli {

enum Exit { kOk = 0, kFindings = 1, kUsage = 2, kRunFailed = 3, kUnreachable = 4 };

// The one table of exit codes: --help, the man page and docs/cli.md print it.
struct ExitCode {
    int code;
    const char* meaning;
};
const std::vector<ExitCode>& exit_codes();

class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// Parsed arguments of one subcommand: positionals, --key value (or --key=value)
// options and boolean --flags (the command declares which names are flags).
class Args {
public:
    std::vector<std::string> positional;
    std::map<std::string, std::string> options;
    std::vector<std::string> flags_set;

    bool flag(const std::string& name) const;
    bool has(const std::string& name) const { return options.count(name) > 0; }
    std::optional<std::string> get(const std::string& name) const;
    std::string get(const std::string& name, const std::string& def) const;
    int get_int(const std::string& name, int def) const;   // UsageError if not an integer
    // The same, refused (UsageError naming the option and the range) outside [min, max].
    int get_int(const std::string& name, int def, int min, int max) const;
    double get_double(const std::string& name, double def) const;   // UsageError if not a finite number
    double get_double(const std::string& name, double def, double min, double max) const;
    bool get_bool(const std::string& name, bool def) const;   // true/false/1/0/yes/no
    // A typed choice (project/layout_enums.h) by its name; UsageError naming the option, the value
    // and the allowed names for any other.
    template <NamedEnum E>
    E get_enum(const std::string& name, E def) const {
        const auto v = get(name);
        if (!v) return def;
        if (const auto e = parse_enum<E>(*v)) return *e;
        throw UsageError("--" + name + ": expected one of " + quoted_enum_names<E>() + ", got '" + *v + "'");
    }
    std::string positional_at(std::size_t i, const std::string& what) const;   // UsageError if missing
};

// One option of a command: `name` without dashes ("gpu" is --gpu; with short_name, "o" is -o);
// Args keys it by that name.
struct Option {
    std::string name;
    std::string value;         // what its value is ("ID", "yes|accept-new"); empty: a flag, no value
    std::string help;          // what it does; '\n' starts an indented continuation line
    bool short_name = false;   // -NAME instead of --NAME
    std::string spelled() const { return (short_name ? "-" : "--") + name; }
};

struct Command {
    std::string name;
    std::string summary;                 // one line for `paraplan-cli --help`
    std::vector<std::string> synopsis;   // the usage forms, each after "paraplan-cli NAME "
    std::string description;             // the paragraph(s) between the forms and the options
    std::vector<Option> options;         // every option it takes, in the order --help lists them
    std::function<int(const Args&)> run;

    const Option* option(const std::string& n) const;
    bool is_flag(const std::string& n) const;
};

bool register_command(Command c);
const std::vector<Command>& commands();
const Command* find_command(const std::string& name);

// `paraplan-cli NAME --help`: the forms, the description and the option table (usage.cpp).
std::string usage(const Command& c);

// Prints a JSON document (one line per document, pretty) to stdout.
void print_json(const std::string& dumped);

// "a,b,,c" -> {"a", "b", "c"}: a comma-separated option value, empty items dropped.
std::vector<std::string> split_list(const std::string& s);

}   // namespace paraplan::cli

#define PARAPLAN_CLI_CONCAT2(a, b) a##b
#define PARAPLAN_CLI_CONCAT(a, b) PARAPLAN_CLI_CONCAT2(a, b)
#define PARAPLAN_CLI_COMMAND(...) \
    static const bool PARAPLAN_CLI_CONCAT(registered_, __LINE__) = ::paraplan::cli::register_command(__VA_ARGS__)
