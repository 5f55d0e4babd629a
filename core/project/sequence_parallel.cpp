#include "project/sequence_parallel.h"

namespace paraplan {

bool tp_sequence_parallel_on(const Layout& l, const FrameworkTraits& t) {
    if (l.tp <= 1) return false;
    if (t.tp_sequence_parallel == TpSequenceParallel::always) return true;
    if (t.seq_split_by_sp) return sp_tp_mode(l.sp_mode);
    return l.sp_mode != SpMode::none;
}

bool sequence_parallel_in_use(const Layout& l, const FrameworkTraits& t) {
    return l.sp > 1 || tp_sequence_parallel_on(l, t);
}

}   // namespace paraplan
