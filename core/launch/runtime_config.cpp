#include "launch/runtime_config.h"

#include "project/cluster.h"
#include "ssh/ssh_policy.h"
#include "ssh/ssh_profile.h"
#include "util/local_dirs.h"
#include "shell/shell_quote.h"
#include "util/input_error.h"
#include "util/json_read.h"

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

// An integer setting in [lo, hi] (a huge value would overflow the milliseconds it becomes).
int int_in(const Obj& o, std::string_view key, int def, int lo, int hi, const char* unit) {
    if (!o.has(key)) return def;
    const json& v = *o.get(key);
    const bool in_range = v.is_number_unsigned() ? v.get<unsigned long long>() <= static_cast<unsigned long long>(hi) &&
                                                       static_cast<long long>(v.get<unsigned long long>()) >= lo
                          : v.is_number_integer() ? v.get<long long>() >= lo && v.get<long long>() <= hi
                                                  : false;
    if (!in_range)
        json_read::fail(o.at(key), "an integer from " + std::to_string(lo) + " to " + std::to_string(hi) + " " + unit,
                        v);
    return v.get<int>();
}

const char* const kOwnSettings =
    "; only you choose it, in your ssh profile (paraplan-cli ssh-profile set ID ...; the project may name the "
    "profile in /runtime/ssh/profile) or your own ~/.ssh/config";

// The ssh section: plain connection values are read; what names a local file or decides which
// host keys to trust is listed in c.ignored and never used (ssh_policy.h, ssh_profile.h).
void read_ssh(const Obj& s, RuntimeConfig& c) {
    no_unknown_keys(s, {"connect_timeout_s", "server_alive_interval_s", "known_hosts_file", "strict_host_key_checking",
                        "config_file", "options", "profile"});
    c.connect_timeout_s = int_in(s, "connect_timeout_s", c.connect_timeout_s, 1, 3600, "seconds");
    c.server_alive_interval_s = int_in(s, "server_alive_interval_s", c.server_alive_interval_s, 1, 3600, "seconds");
    for (const char* key : {"config_file", "known_hosts_file"})
        if (s.has(key))
            c.ignored.push_back(s.at(key) + ": ignored: a project may not name a file on this computer for ssh" +
                                kOwnSettings);
    if (s.one_of("strict_host_key_checking", {"yes", "accept-new"}, "yes") != "yes")
        c.ignored.push_back(s.at("strict_host_key_checking") +
                            ": ignored: accepting new host keys is a trust decision a project may not make" +
                            kOwnSettings);
    const auto options = string_list(s, "options");
    for (std::size_t i = 0; i < options.size(); ++i) {
        const std::string why = check_project_ssh_option(options[i]);
        if (why.empty()) c.ssh_options.push_back(options[i]);
        else c.ignored.push_back(s.at("options") + "/" + std::to_string(i) + ": ignored: " + why);
    }
    c.ssh_profile = s.plain_string("profile", "");
    if (!c.ssh_profile.empty() && !is_ssh_profile_id(c.ssh_profile))
        throw InputError(s.at("profile"),
                         "\"" + c.ssh_profile + "\" is not a profile id (1-64 letters, digits, '.', '_' or '-')");
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
    if (o.has("job_dir"))
        c.ignored.push_back(o.at("job_dir") + ": ignored: job records live in Paraplan's own folder (" + jobs_dir() +
                            "); choose another with --job-dir when you launch");
    c.on_failure = o.one_of("on_failure", {"stop_all", "continue"}, c.on_failure);
    c.fail_fast = o.boolean("fail_fast", c.fail_fast);
    c.stop_grace_s = int_in(o, "stop_grace_s", c.stop_grace_s, 0, 3600, "seconds");
    c.launcher = o.plain_string("launcher", c.launcher);
    if (o.has("ssh")) read_ssh(o.object("ssh"), c);
    if (o.has("telemetry")) {
        const Obj t = o.object("telemetry");
        no_unknown_keys(t, {"interval_ms"});
        c.telemetry_interval_ms = int_in(t, "interval_ms", c.telemetry_interval_ms, 1, 3600000, "milliseconds");
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
            {"on_failure", c.on_failure},
            {"fail_fast", c.fail_fast},
            {"stop_grace_s", c.stop_grace_s},
            {"launcher", c.launcher},
            {"upload_configs", c.upload_configs},
            {"upload_dir", c.upload_dir}};
}

std::vector<std::string> ignored_cluster_settings(const Cluster& cluster) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < cluster.nodes.size(); ++i)
        if (!cluster.nodes[i].identity.empty())
            out.push_back("/cluster/nodes/" + std::to_string(i) +
                          "/identity: ignored: a project may not name a key file on this computer" + kOwnSettings);
    return out;
}

}   // namespace paraplan::runtime
