#pragma once
// Whether a layout's tensor-parallel communication overlap runs, in the one meaning the estimate
// prices it and the rule kernel.tp_comm_overlap reports it. Each framework reads its own switch
// (FrameworkTraits::tp_comm_overlap_kind): Megatron-LM layout.tp_comm_overlap, torchtitan
// layout.enable_async_tensor_parallel.
#include "project/framework.h"
#include "project/layout.h"

namespace paraplan {

enum class TpOverlapBlock {
    none,                   // runs (or nothing was asked)
    no_tensor_parallel,     // asked with tp 1: nothing to overlap
    no_sequence_parallel,   // Megatron arguments.py: overlap "only when sequence parallelism is enabled"
    needs_compile,          // torchtitan parallelize_llama: "Async TP requires torch.compile"
};

struct TpOverlapState {
    TpCommOverlapKind runs = TpCommOverlapKind::none;   // what the estimate prices
    TpOverlapBlock block = TpOverlapBlock::none;        // why the framework's own switch, set, does not run
    const char* ignored = "";                           // a switch set that the framework does not read ("" when none)
};

// Layout field of the switch the framework reads ("" when it has none).
const char* tp_comm_overlap_field(const FrameworkTraits& t);

// Why a block stops the overlap, in the words the estimate's notes and the rule's message both use
// ("" for none and for tp 1): "TP communication overlap runs only with sequence parallelism",
// "async TP needs compiled blocks (kernels: compile)".
const char* tp_overlap_block_reason(TpOverlapBlock b);

// Compiled blocks are read from the layout's kernel stack as run (kernel_stack(l), layout.h), the
// one the estimate runs.
TpOverlapState tp_comm_overlap_state(const Layout& l, const FrameworkTraits& t);

}   // namespace paraplan
