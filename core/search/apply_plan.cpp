#include "search/apply_plan.h"

#include <sstream>

namespace paraplan::search {

void apply_entry(const PlanEntry& e, Project& p) {
    p.layout = e.layout;
    p.training.micro_batch_size = e.micro_batch_size;
}

std::string describe(const PlanEntry& e) {
    const Layout& l = e.layout;
    std::ostringstream s;
    s << l.framework << ": tp " << l.tp << " · pp " << l.pp;
    if (l.cp > 1) s << " · cp " << l.cp;
    if (l.sp > 1) s << " · sp " << l.sp;
    if (l.ep > 1) s << " · ep " << l.ep;
    s << " · dp " << e.dp;
    if (l.distributed_optimizer) s << " · distributed optimizer";
    else if (l.zero_stage > 0) s << " · ZeRO-" << l.zero_stage;
    if (l.pp > 1) {
        s << " · " << to_string(l.schedule);
        if (l.chunks > 1) s << " v" << l.chunks;
        s << " · " << l.num_microbatches << " microbatches";
    }
    s << " · mbs " << e.micro_batch_size;
    if (l.recompute != Recompute::none) s << " · " << to_string(l.recompute) << " recompute";
    if (l.offload != Offload::none) s << " · offload " << to_string(l.offload);
    return s.str();
}

}   // namespace paraplan::search
