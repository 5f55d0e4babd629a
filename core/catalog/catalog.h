#pragma once
// The built-in GPU and model catalogs (embedded from resources/catalog/).
#include "catalog/gpu.h"
#include "catalog/model.h"

#include <string>
#include <vector>

namespace paraplan::catalog {

const std::vector<GpuSpec>& gpus();
const std::vector<ModelSpec>& models();

// nullptr if unknown.
const GpuSpec* find_gpu(const std::string& id);
const ModelSpec* find_model(const std::string& id);

std::vector<std::string> gpu_ids();
std::vector<std::string> model_ids();

}  // namespace paraplan::catalog
