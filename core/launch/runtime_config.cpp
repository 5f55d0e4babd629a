#include "launch/runtime_config.h"

#include "ssh/ssh_policy.h"
#include "shell/shell_quote.h"
#include "util/input_error.h"
#include "util/json_read.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace paraplan::runtime {

using json_read::Obj;
using nlohmann::json;

namespace {

std::vector<std::string> string_list(const Obj& o, std::string_view key) {
    std::vector<std::string> out;
    const json* v = o.get(key);
    if (!v) return out;
    if (!v->is_array()) json_read::fail(o.at(key), "an array of strings", *v);
    for (std::size_t i = 0; i < v->size(); ++i) {
        const auto& e = (*v)[i];
        if (!e.is_string()) json_read::fail(o.at(key) + "/" + std::to_string(i), "a string", e);
        out.push_back(json_read::no_control_chars(o.at(key) + "/" + std::to_string(i), e.get<std::string>()));
    }
    return out;
}

void no_unknown_keys(const Obj& o, std::initializer_list<const char*> known) {
    for (auto it = o.raw().begin(); it != o.raw().end(); ++it) {
        bool ok = false;
        for (const char* k : known) ok = ok || it.key() == k;
        if (!ok) {
            std::string list;
            for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
            throw InputError(o.at(it.key()), "unknown runtime setting \"" + it.key() + "\" (known: " + list + ")");
        }
    }
}

// Why the ssh config file a project names cannot be one: not a regular file (/dev/zero, a
// FIFO or a terminal would be read forever, by us and by ssh -F) or too large. "" when it is
// one, or when it does not exist (left to ssh).
std::string config_file_problem(const std::string& path) {
    constexpr std::uintmax_t kMaxBytes = 1u << 20;   // an ssh config is a few KiB
    std::error_code ec;
    const auto st = std::filesystem::status(path, ec);   // follows links
    if (ec || !std::filesystem::exists(st)) return "";
    if (!std::filesystem::is_regular_file(st)) return "is not a regular file (an ssh config file is)";
    const auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > kMaxBytes) return "is " + std::to_string(size) + " bytes, too large for an ssh config file";
    return "";
}

}   // namespace

RuntimeConfig runtime_config_from_json(const nlohmann::json& runtime) {
    RuntimeConfig c;
    const Obj o(runtime, "/runtime");
    no_unknown_keys(o, {"mode", "workdir", "python", "script", "args", "env", "path_prepend", "master_addr",
                        "master_port", "job_dir", "on_failure", "fail_fast", "stop_grace_s", "launcher", "ssh",
                        "telemetry", "slurm", "upload_configs", "upload_dir"});
    c.mode = o.one_of("mode", {"direct", "torchrun", "slurm", "colossalai", "deepspeed"}, c.mode);
    c.workdir = o.plain_string("workdir", c.workdir);
    c.upload_configs = o.boolean("upload_configs", c.upload_configs);
    c.upload_dir = o.plain_string("upload_dir", c.upload_dir);
    c.python = o.plain_string("python", c.python);
    if (c.python.empty()) throw InputError(o.at("python"), "must not be empty (e.g. \"python3\")");
    c.script = o.plain_string("script", c.script);
    c.args = string_list(o, "args");
    if (const json* env = o.get("env")) {
        const Obj e(*env, o.at("env"));
        for (auto it = env->begin(); it != env->end(); ++it) {
            if (!is_env_name(it.key()))
                throw InputError(e.at(it.key()), "\"" + it.key() +
                                                     "\" is not a valid environment variable name "
                                                     "(letters, digits and _, not starting with a digit)");
            if (!it.value().is_string() && !it.value().is_number() && !it.value().is_boolean())
                json_read::fail(e.at(it.key()), "a string or number", it.value());
            c.env.emplace_back(it.key(), json_read::no_control_chars(e.at(it.key()), it.value().is_string()
                                                                                         ? it.value().get<std::string>()
                                                                                         : it.value().dump()));
        }
    }
    c.path_prepend = string_list(o, "path_prepend");
    c.master_addr = o.plain_string("master_addr", c.master_addr);
    c.master_port = o.positive_int("master_port", c.master_port);
    if (c.master_port > 65535)
        throw InputError(o.at("master_port"), "expected a port number 1-65535, got " + std::to_string(c.master_port));
    c.job_dir = o.plain_string("job_dir", c.job_dir);
    if (c.job_dir.empty()) throw InputError(o.at("job_dir"), "must not be empty");
    c.on_failure = o.one_of("on_failure", {"stop_all", "continue"}, c.on_failure);
    c.fail_fast = o.boolean("fail_fast", c.fail_fast);
    c.stop_grace_s = o.non_negative_int("stop_grace_s", c.stop_grace_s);
    c.launcher = o.plain_string("launcher", c.launcher);
    if (o.has("ssh")) {
        const Obj s = o.object("ssh");
        no_unknown_keys(s, {"connect_timeout_s", "server_alive_interval_s", "known_hosts_file",
                            "strict_host_key_checking", "config_file", "options"});
        c.connect_timeout_s = s.positive_int("connect_timeout_s", c.connect_timeout_s);
        c.server_alive_interval_s = s.positive_int("server_alive_interval_s", c.server_alive_interval_s);
        c.known_hosts_file = s.plain_string("known_hosts_file", c.known_hosts_file);
        c.strict_host_key_checking = s.one_of("strict_host_key_checking", {"yes", "accept-new"},
                                              c.strict_host_key_checking);
        c.ssh_config_file = s.plain_string("config_file", c.ssh_config_file);
        c.ssh_options = string_list(s, "options");
        // Only a safe list: a project file must not make ssh run commands here (ssh_policy.h).
        for (std::size_t i = 0; i < c.ssh_options.size(); ++i) {
            const std::string why = check_project_ssh_option(c.ssh_options[i]);
            if (!why.empty()) throw InputError(s.at("options") + "/" + std::to_string(i), why);
        }
        // A config file the project names is held to the same list (it could hold a ProxyCommand).
        // One that does not exist or cannot be read is left to ssh, which then refuses to connect.
        if (!c.ssh_config_file.empty()) {
            const std::string problem = config_file_problem(c.ssh_config_file);
            if (!problem.empty()) throw InputError(s.at("config_file"), c.ssh_config_file + " " + problem);
            std::ifstream f(c.ssh_config_file);
            if (f) {
                std::stringstream text;
                text << f.rdbuf();
                const std::string why = check_project_ssh_config(text.str());
                if (!why.empty())
                    throw InputError(s.at("config_file"), c.ssh_config_file + ", " + why +
                                                              " (a config file named by a project may hold only Host, "
                                                              "Match without exec, and the options allowed in "
                                                              "/runtime/ssh/options)");
            }
        }
    }
    if (o.has("telemetry")) {
        const Obj t = o.object("telemetry");
        no_unknown_keys(t, {"interval_ms"});
        c.telemetry_interval_ms = t.positive_int("interval_ms", c.telemetry_interval_ms);
        if (c.telemetry_interval_ms < 250)
            throw InputError(t.at("interval_ms"), "must be at least 250 ms (faster sampling slows the GPUs down)");
    }
    if (o.has("slurm")) {
        const Obj s = o.object("slurm");
        no_unknown_keys(s, {"login_node", "partition", "account", "time", "sbatch_args", "gpus"});
        c.slurm.login_node = s.plain_string("login_node", "");
        c.slurm.partition = s.plain_string("partition", "");
        c.slurm.account = s.plain_string("account", "");
        c.slurm.time = s.plain_string("time", "");
        c.slurm.sbatch_args = string_list(s, "sbatch_args");
        c.slurm.gpus = s.one_of("gpus", {"auto", "gres", "none"}, c.slurm.gpus);
    }
    return c;
}

nlohmann::json to_json(const RuntimeConfig& c) {
    nlohmann::json env = nlohmann::json::object();
    for (const auto& [k, v] : c.env) env[k] = v;
    return {{"mode", c.mode},
            {"workdir", c.workdir},
            {"python", c.python},
            {"script", c.script},
            {"args", c.args},
            {"env", env},
            {"path_prepend", c.path_prepend},
            {"master_addr", c.master_addr},
            {"master_port", c.master_port},
            {"job_dir", c.job_dir},
            {"on_failure", c.on_failure},
            {"fail_fast", c.fail_fast},
            {"stop_grace_s", c.stop_grace_s},
            {"launcher", c.launcher},
            {"upload_configs", c.upload_configs},
            {"upload_dir", c.upload_dir}};
}

}   // namespace paraplan::runtime
