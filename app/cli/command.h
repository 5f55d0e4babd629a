#pragma once
// paraplan-cli subcommands. Each cmd_*.cpp registers itself with
// PARAPLAN_CLI_COMMAND; main.cpp dispatches. Exit codes, the same in every command: 0 fine,
// 1 the input has findings, 2 usage error or unreadable input, 3 a run (launch, probe) failed or
// was stopped, or a process could not be stopped, 4 the cluster could not be reached over ssh.
#include <functional>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace paraplan::cli {

enum Exit { kOk = 0, kFindings = 1, kUsage = 2, kRunFailed = 3, kUnreachable = 4 };

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
    bool get_bool(const std::string& name, bool def) const;                    // true/false/1/0/yes/no
    std::string positional_at(std::size_t i, const std::string& what) const;   // UsageError if missing
};

struct Command {
    std::string name;
    std::string summary;              // one line for `paraplan-cli --help`
    std::string usage;                // full usage text for `paraplan-cli CMD --help`
    std::vector<std::string> flags;   // option names that take no value ("json", "force")
    std::function<int(const Args&)> run;
};

bool register_command(Command c);
const std::vector<Command>& commands();

// Prints a JSON document (one line per document, pretty) to stdout.
void print_json(const std::string& dumped);

// "a,b,,c" -> {"a", "b", "c"}: a comma-separated option value, empty items dropped.
std::vector<std::string> split_list(const std::string& s);

}   // namespace paraplan::cli

#define PARAPLAN_CLI_CONCAT2(a, b) a##b
#define PARAPLAN_CLI_CONCAT(a, b) PARAPLAN_CLI_CONCAT2(a, b)
#define PARAPLAN_CLI_COMMAND(...) \
    static const bool PARAPLAN_CLI_CONCAT(registered_, __LINE__) = ::paraplan::cli::register_command(__VA_ARGS__)
