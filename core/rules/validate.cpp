#include "rules/validate.h"

namespace paraplan {

std::vector<Diagnostic> validate(const Project& p) {
    std::vector<Diagnostic> out;
    const Layout& l = p.layout;
    const int world = p.world_size();
    const long long model_parallel = 1LL * l.tp * l.pp * l.sp * l.cp;
    if (model_parallel > 0 && world % model_parallel != 0) {
        Diagnostic d;
        d.rule = "layout.world_size_divisible";
        d.message = "The world size (" + std::to_string(world) + " GPUs) is not divisible by tp × pp × sp × cp = " +
                    std::to_string(model_parallel) + ", so no whole number of data-parallel replicas fits.";
        d.fields = {"/layout/tp", "/layout/pp", "/layout/sp", "/layout/cp"};
        out.push_back(d);
    }
    return out;
}

}  // namespace paraplan
