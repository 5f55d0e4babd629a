#pragma once
// The built-in GPU and model catalogs (embedded from resources/catalog/).
#include "catalog/gpu.h"
#include "catalog/model.h"

#include <string>
#include <string_view>
#include <vector>

namespace paraplan::catalog {

const std::vector<GpuSpec>& gpus();
const std::vector<ModelSpec>& models();

// nullptr if unknown.
const GpuSpec* find_gpu(const std::string& id);
const ModelSpec* find_model(const std::string& id);

std::vector<std::string> gpu_ids();
std::vector<std::string> model_ids();

// Parse catalog texts ({"gpus": [...]} / {"models": [...]}); errors name
// /gpus/<i>/<field> or /models/<i>/<field>. Used for the embedded catalogs.
std::vector<GpuSpec> parse_gpu_catalog(std::string_view json_text);
std::vector<ModelSpec> parse_model_catalog(std::string_view json_text);

}   // namespace paraplan::catalog
