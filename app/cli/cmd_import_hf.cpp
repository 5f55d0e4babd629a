// paraplan-cli import-hf CONFIG.json [--json]
#include "catalog/hf_import.h"
#include "util/read_file.h"
#include "cli/command.h"
#include "util/input_error.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

namespace paraplan::cli {
namespace {

int run_import_hf(const Args& a) {
    const std::string file = a.positional_at(0, "CONFIG.json");
    const std::string text = read_input_file(file, "config");
    ModelSpec m;
    try {
        m = import_hf_config(std::string_view(text));
    } catch (const InputError& e) {
        throw in_file(e, file);
    }
    const ParamBreakdown pc = count_params(m);
    if (a.flag("json")) {
        nlohmann::json out = {{"model", to_json(m)},
                              {"parameters", pc.total},
                              {"active_parameters", pc.active},
                              {"breakdown",
                               {{"embedding", pc.embedding},
                                {"attention_per_layer", pc.attention_per_layer},
                                {"dense_mlp_per_layer", pc.dense_mlp_per_layer},
                                {"moe_mlp_per_layer", pc.moe_mlp_per_layer},
                                {"norms_per_layer", pc.norms_per_layer},
                                {"final_norm", pc.final_norm},
                                {"lm_head", pc.lm_head},
                                {"other", pc.other}}}};
        print_json(out.dump(2));
    } else {
        std::cout << to_json(m).dump(2) << '\n'
                  << "parameters: " << pc.total << " (" << static_cast<double>(pc.total) / 1e9 << "B)";
        if (m.is_moe()) std::cout << ", active per token: " << static_cast<double>(pc.active) / 1e9 << "B";
        std::cout << '\n';
    }
    return kOk;
}

}   // namespace

PARAPLAN_CLI_COMMAND(Command{.name = "import-hf",
                             .summary = "read a Hugging Face config.json: model spec and parameter count",
                             .synopsis = {"CONFIG.json [--json]"},
                             .description = "Supported model_type: llama, mistral, mixtral, qwen2, qwen2_moe, gpt2,\n"
                                            "gpt_neox, bert, t5, deepseek_v3.\n",
                             .options = {{"json", "", "print the model spec and its parameter count as JSON"}},
                             .run = run_import_hf});

}   // namespace paraplan::cli
