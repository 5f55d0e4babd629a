#include "project/derived_sizes.h"

#include "project/framework.h"

#include <algorithm>

namespace paraplan {

long long microbatches_from_batch(long long global_batch, long long micro_batch, long long dp) {
    if (micro_batch <= 0 || dp <= 0 || global_batch % (micro_batch * dp) != 0) return 0;
    return global_batch / (micro_batch * dp);
}

bool has_microbatch_knob(const std::string& framework) {
    const FrameworkTraits* tr = find_traits(framework);
    return !tr || tr->num_microbatches_knob;
}

int layout_microbatches(const Layout& l) {
    return l.num_microbatches > 0 && l.pp > 1 && has_microbatch_knob(l.framework) ? l.num_microbatches : 0;
}

int step_microbatches(const Layout& l, const Training& t, int dp) {
    const long long mbs = std::max(1, t.micro_batch_size);
    const long long replicas = std::max(1, dp);
    if (const int n = layout_microbatches(l)) return n;
    return int(std::max<long long>(1, t.global_batch_size / (mbs * replicas)));
}

DerivedSizes derived_sizes(const Layout& l, const Training& t, int world) {
    DerivedSizes s;
    s.world = world;
    const FrameworkTraits* tr = find_traits(l.framework);
    const WorldAxes axes = tr ? tr->world : WorldAxes{true, true, true, true, false};
    s.tp = axes.tp ? std::max(1, l.tp) : 1;
    s.pp = axes.pp ? std::max(1, l.pp) : 1;
    s.cp = axes.cp ? std::max(1, l.cp) : 1;
    s.ep = std::max(1, l.ep);
    s.sp = axes.sp && (!axes.sp_only_in_axis_mode || sp_axis_mode(l.sp_mode)) ? std::max(1, l.sp) : 1;
    s.model = 1LL * s.tp * s.pp * s.cp * s.sp;
    s.dp = (world > 0 && world % s.model == 0) ? int(world / s.model) : 0;
    if (tr && tr->dp_shard_replicate && s.dp > 0) {
        const int rep = std::max(1, l.dp_replicate);
        const int shard = l.dp_shard > 0 ? l.dp_shard : s.dp / rep;
        s.dp = (1LL * rep * shard * s.model == world) ? rep * shard : 0;
    }
    s.batch_dp = s.dp;
    const long long gbs = t.global_batch_size;
    const long long mbs = std::max(1, t.micro_batch_size);
    s.batch_microbatches = microbatches_from_batch(gbs, mbs, s.batch_dp);
    const long long from_layout = layout_microbatches(l);
    s.microbatches = from_layout > 0 ? from_layout : s.batch_microbatches;
    if (s.batch_dp > 0 && s.microbatches > 0) {
        const long long per_step = mbs * s.microbatches * s.batch_dp;
        s.grad_accum = gbs % per_step == 0 ? gbs / per_step : 0;
    }
    return s;
}

}   // namespace paraplan
