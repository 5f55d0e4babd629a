#include "project/fp4_recipe.h"

namespace paraplan {

const std::vector<std::string> kFp4Recipes = {"none", "nvfp4", "mxfp4"};

const char* to_string(Fp4Recipe r) {
    switch (r) {
    case Fp4Recipe::none: return "none";
    case Fp4Recipe::nvfp4: return "nvfp4";
    case Fp4Recipe::mxfp4: return "mxfp4";
    }
    return "none";
}

std::optional<Fp4Recipe> parse_fp4_recipe(const std::string& s) {
    if (s == "none") return Fp4Recipe::none;
    if (s == "nvfp4") return Fp4Recipe::nvfp4;
    if (s == "mxfp4") return Fp4Recipe::mxfp4;
    return std::nullopt;
}

}   // namespace paraplan
