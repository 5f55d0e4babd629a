#pragma once
// Whether a layout actually runs sequence parallelism, in the one meaning the estimate models it
// and the rules and exporters that cannot express it refuse it.
#include "project/framework.h"
#include "project/layout.h"

namespace paraplan {

// Sequence parallelism inside the tp group (Korthikanti et al. 2022, "Reducing Activation
// Recomputation in Large Transformer Models", Sec. 4.2.2): the activations between the TP regions
// are sharded along the sequence. Needs tp > 1; then on with every tp for TpSequenceParallel::always,
// with sp_mode split_gather or ring where the sp axis splits sequences (ColossalAI ShardConfig), else
// with any sp_mode other than none (Megatron --sequence-parallel).
bool tp_sequence_parallel_on(const Layout& l, const FrameworkTraits& t);

// Any sequence parallelism: an sp axis (sp > 1) or tp_sequence_parallel_on. An sp_mode with
// tp = 1 and sp = 1 splits nothing.
bool sequence_parallel_in_use(const Layout& l, const FrameworkTraits& t);

}   // namespace paraplan
