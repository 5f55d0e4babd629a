#pragma once
// Importers: existing training configs become a Paraplan project. What a config
// does not say (cluster, model, batch sizes it lacks) comes from a base project;
// whatever the config says that cannot be read is returned as a warning naming it,
// so nothing is dropped or guessed silently.
#include "project/project.h"

#include <string>
#include <string_view>
#include <vector>

namespace paraplan {

struct ImportResult {
    std::string format;
    Project project;
    std::vector<std::string> warnings;   // unread or unrepresentable items, named
    std::vector<std::string> notes;      // what came from the base project / defaults
    int implied_world = 0;               // GPUs the config implies (0 = it does not say)
};

// deepspeed (ds_config.json), megatron (a script or a plain flag list), torchtitan
// (TOML job config), colossalai (Python file calling a Booster plugin).
const std::vector<std::string>& import_formats();

// Guesses the format from the file name and content; "" when unsure.
std::string detect_import_format(const std::string& path, std::string_view text);

// The project used when the caller gives no base: `world` GPUs (8 per node) of
// h100-sxm, the llama3.1-8b model (or the first catalog model).
Project default_import_base(int world);

// Reads `text` as `format` over `base`. With `base_is_default`, the cluster is
// resized to the world size the config implies. Throws InputError for text that
// is not the format at all (syntax errors name line and column).
ImportResult import_config(std::string_view text, const std::string& format, const Project& base,
                           bool base_is_default = false);

ImportResult import_deepspeed(std::string_view text, const Project& base);
ImportResult import_megatron(std::string_view text, const Project& base);
ImportResult import_torchtitan(std::string_view text, const Project& base);
ImportResult import_colossalai(std::string_view text, const Project& base);

}   // namespace paraplan
