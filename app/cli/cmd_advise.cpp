// paraplan-cli advise --world N [--framework F] [--model ID | --heads H --layers L] [--tp N ...] [--max-tp N ...]
// [--json] paraplan-cli advise --project FILE [--json]
#include "catalog/catalog.h"
#include "cli/command.h"
#include "project/limits.h"
#include "project/project.h"
#include "rules/advisor.h"
#include "rules/validate.h"

#include <algorithm>
#include <iostream>
#include <set>

namespace paraplan::cli {
namespace {

const std::vector<std::string> kAxes = {"tp", "pp", "sp", "cp", "ep"};

void print_split(const Split& s) {
    std::cout << "tp " << s.tp << "  pp " << s.pp << "  sp " << s.sp << "  cp " << s.cp << "  ep " << s.ep << "  dp "
              << s.dp;
}

int run_advise(const Args& a) {
    std::set<std::string> known = {"world",    "framework", "gpus-per-node", "model",   "heads", "layers",
                                   "kv-heads", "experts",   "seq-len",       "project", "limit"};
    for (const auto& ax : kAxes) {
        known.insert(ax);
        known.insert("max-" + ax);
    }
    for (const auto& [k, v] : a.options)
        if (!known.count(k)) throw UsageError("unknown option --" + k);
    if (!a.positional.empty()) throw UsageError("unexpected argument '" + a.positional[0] + "'");

    const int limit = a.get_int("limit", 10, 1, 100000);
    if (auto file = a.get("project")) {
        const Project p = load_project(*file);
        const auto ds = validate(p);
        const auto nearest = nearest_layouts(p, static_cast<std::size_t>(std::max(1, limit)));
        if (a.flag("json")) {
            nlohmann::json n = nlohmann::json::array();
            for (const auto& x : nearest) n.push_back(to_json(x));
            print_json(nlohmann::json{{"world_size", p.world_size()},
                                      {"framework", p.layout.framework},
                                      {"valid", !has_errors(ds)},
                                      {"current", to_json(split_of(p))},
                                      {"splits", nlohmann::json::array()},
                                      {"nearest", n},
                                      {"diagnostics", to_json(ds)}}
                           .dump(2));
        } else {
            std::cout << *file << ": " << (has_errors(ds) ? "invalid" : "valid") << "; nearest valid layouts:\n";
            for (const auto& x : nearest) {
                std::cout << "  ";
                print_split(x.split);
                std::cout << "   (" << x.changed << " change" << (x.changed == 1 ? "" : "s") << ")\n";
            }
        }
        return nearest.empty() && has_errors(ds) ? kFindings : kOk;
    }

    AdvisorQuery q;
    q.world = a.get_int("world", 0, 1, kMaxWorldSize);
    if (q.world <= 0) throw UsageError("--world N (a positive GPU count) or --project FILE is required");
    q.framework = a.get("framework", "colossalai");
    if (std::find(kFrameworks.begin(), kFrameworks.end(), q.framework) == kFrameworks.end())
        throw UsageError("--framework: unknown framework '" + q.framework + "'");
    q.gpus_per_node = a.get_int("gpus-per-node", 0, 1, kMaxGpusPerNode);
    if (q.gpus_per_node < 0 || (q.gpus_per_node > 0 && q.world % q.gpus_per_node != 0))
        throw UsageError("--gpus-per-node " + std::to_string(q.gpus_per_node) + " does not divide --world " +
                         std::to_string(q.world));
    q.seq_len = a.get_int("seq-len", 4096, 1, 1 << 30);
    if (auto id = a.get("model")) {
        const ModelSpec* m = catalog::find_model(*id);
        if (!m) throw UsageError("--model: unknown model '" + *id + "' (see paraplan-cli catalog)");
        q.model = *m;
    } else if (a.has("heads") || a.has("layers")) {
        ModelSpec m;
        m.heads = a.get_int("heads", 0);
        m.layers = a.get_int("layers", 0);
        m.kv_heads = a.get_int("kv-heads", m.heads);
        m.experts = a.get_int("experts", 0);
        if (m.heads <= 0 || m.layers <= 0) throw UsageError("--heads and --layers must both be positive");
        q.model = m;
    }
    for (const auto& ax : kAxes) {
        if (a.has(ax)) q.fixed[ax] = a.get_int(ax, 1, 1, kMaxWorldSize);
        if (a.has("max-" + ax)) q.max[ax] = a.get_int("max-" + ax, 1, 1, kMaxWorldSize);
    }
    const auto splits = enumerate_splits(q);
    if (a.flag("json")) {
        nlohmann::json s = nlohmann::json::array();
        for (const auto& x : splits) s.push_back(to_json(x));
        print_json(nlohmann::json{
            {"world_size", q.world}, {"framework", q.framework}, {"splits", s}, {"nearest", nlohmann::json::array()}}
                       .dump(2));
    } else {
        std::cout << splits.size() << " valid split" << (splits.size() == 1 ? "" : "s") << " of " << q.world
                  << " GPUs for " << q.framework << ":\n";
        for (const auto& x : splits) {
            std::cout << "  ";
            print_split(x);
            std::cout << '\n';
        }
    }
    return splits.empty() ? kFindings : kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{
    .name = "advise",
    .summary = "list the valid tp/pp/sp/cp/ep/dp splits of a world size, or the valid layouts nearest a project",
    .synopsis = {"--world N [--framework F] [--gpus-per-node G]\n"
                 "[--model ID | --heads H --layers L [--kv-heads K] [--experts E]]\n"
                 "[--seq-len S] [--tp N --pp N --sp N --cp N --ep N] [--max-tp N ...] [--json]",
                 "--project FILE [--limit N] [--json]"},
    .description = "Lists every split of N GPUs that passes the framework's rules (divisibility, and the\n"
                   "model's rules when a model is given). --tp etc. fix an axis, --max-tp etc. bound it.\n"
                   "With --project, lists the valid layouts nearest to the project's own (fewest and\n"
                   "smallest changes first).\n"
                   "Exit 0 when a layout is found, 1 when none is, 2 on usage errors.\n",
    .options = {{"world", "N", "the number of GPUs to split"},
                {"framework", "F", "whose rules apply (default colossalai)"},
                {"gpus-per-node", "G", "GPUs per node"},
                {"model", "ID", "a catalog model: its heads, layers, kv-heads and experts"},
                {"heads", "H", "attention heads (instead of --model)"},
                {"layers", "L", "layers (instead of --model)"},
                {"kv-heads", "K", "key/value heads (default: --heads)"},
                {"experts", "E", "experts of an MoE model (default 0)"},
                {"seq-len", "S", "sequence length (default 4096)"},
                {"tp", "N", "fix the tensor-parallel size"},
                {"pp", "N", "fix the pipeline-parallel size"},
                {"sp", "N", "fix the sequence-parallel size"},
                {"cp", "N", "fix the context-parallel size"},
                {"ep", "N", "fix the expert-parallel size"},
                {"max-tp", "N", "bound the tensor-parallel size"},
                {"max-pp", "N", "bound the pipeline-parallel size"},
                {"max-sp", "N", "bound the sequence-parallel size"},
                {"max-cp", "N", "bound the context-parallel size"},
                {"max-ep", "N", "bound the expert-parallel size"},
                {"project", "FILE", "list the valid layouts nearest this project's"},
                {"limit", "N", "with --project: how many (default 10)"},
                {"json", "",
                 "print {\"world_size\", \"framework\", \"splits\": [{tp,pp,sp,cp,ep,dp}], \"nearest\": [...]}"}},
    .run = run_advise});

}   // namespace paraplan::cli
