#pragma once
// layout.fp4_recipe: which 4-bit recipe the linear layers' GEMMs run in (docs/project-format.md).
//   none:  no FP4 (the default);
//   nvfp4: E2M1 values in 16-element blocks, each with an E4M3 scale, under a per-tensor fp32 scale
//          (Transformer Engine v2.9 transformer_engine/common/recipe/__init__.py NVFP4BlockScaling);
//   mxfp4: E2M1 values in 32-element blocks with an E8M0 (power-of-two) scale each (OCP
//          Microscaling Formats (MX) v1.0, the MXFP4 row of its concrete formats).
// Parsed once where the project is read (project.cpp read_layout); everything else reads the enum.
#include <optional>
#include <string>
#include <vector>

namespace paraplan {

enum class Fp4Recipe { none, nvfp4, mxfp4 };

extern const std::vector<std::string> kFp4Recipes;   // none nvfp4 mxfp4, as project files spell them

const char* to_string(Fp4Recipe r);
std::optional<Fp4Recipe> parse_fp4_recipe(const std::string& s);   // nullopt for a name outside kFp4Recipes

}   // namespace paraplan
