#include "project/tp_comm_overlap.h"

#include "project/sequence_parallel.h"

namespace paraplan {

namespace {

bool asked(const Layout& l, TpCommOverlapKind k) {
    switch (k) {
    case TpCommOverlapKind::userbuffers: return l.tp_comm_overlap;
    case TpCommOverlapKind::micro_pipeline: return l.enable_async_tensor_parallel;
    case TpCommOverlapKind::none: return false;
    }
    return false;
}

const char* field_of(TpCommOverlapKind k) {
    switch (k) {
    case TpCommOverlapKind::userbuffers: return "tp_comm_overlap";
    case TpCommOverlapKind::micro_pipeline: return "enable_async_tensor_parallel";
    case TpCommOverlapKind::none: return "";
    }
    return "";
}

}   // namespace

const char* tp_overlap_block_reason(TpOverlapBlock b) {
    switch (b) {
    case TpOverlapBlock::no_sequence_parallel: return "TP communication overlap runs only with sequence parallelism";
    case TpOverlapBlock::needs_compile: return "async TP needs compiled blocks (kernels: compile)";
    case TpOverlapBlock::no_tensor_parallel:
    case TpOverlapBlock::none: return "";
    }
    return "";
}

const char* tp_comm_overlap_field(const FrameworkTraits& t) { return field_of(t.tp_comm_overlap_kind); }

TpOverlapState tp_comm_overlap_state(const Layout& l, const FrameworkTraits& t) {
    TpOverlapState s;
    const TpCommOverlapKind own = t.tp_comm_overlap_kind;
    for (const TpCommOverlapKind k : {TpCommOverlapKind::userbuffers, TpCommOverlapKind::micro_pipeline})
        if (k != own && asked(l, k)) s.ignored = field_of(k);
    if (!asked(l, own)) return s;
    if (l.tp <= 1) s.block = TpOverlapBlock::no_tensor_parallel;
    else if (!tp_sequence_parallel_on(l, t)) s.block = TpOverlapBlock::no_sequence_parallel;
    else if (own == TpCommOverlapKind::micro_pipeline && kernel_stack(l) != KernelStack::compile)
        s.block = TpOverlapBlock::needs_compile;
    else s.runs = own;
    return s;
}

}   // namespace paraplan
