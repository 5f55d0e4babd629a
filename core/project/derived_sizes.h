#pragma once
// The sizes a layout derives rather than states: the data-parallel size from the world and
// the model-parallel axes, the microbatch count from the batch sizes. One function, read by the
// rules, the exporters, the estimator, the planner and the timeline view.
//
// Megatron-LM (core_v0.19.0): megatron/core/parallel_state.py initialize_model_parallel,
//   data_parallel_size = world_size // (tensor_model_parallel_size * pipeline_model_parallel_size
//                                       * context_parallel_size);
//   megatron/core/num_microbatches_calculator.py ConstantNumMicroBatchesCalculator,
//   num_micro_batches = global_batch_size // (micro_batch_size * data_parallel_size), asserting
//   global_batch_size % (micro_batch_size * data_parallel_size) == 0.
// The other frameworks differ only in which axes enter the world product (FrameworkTraits::world)
// and, for torchtitan, in dp = dp_replicate x dp_shard (torchtitan/distributed/parallel_dims.py).
#include "project/layout.h"

namespace paraplan {

struct DerivedSizes {
    int world = 0;
    int tp = 1, pp = 1, cp = 1, ep = 1;   // as the framework reads them (an axis it lacks is 1)
    int sp = 1;            // a separate sequence-parallel axis (ColossalAI all_to_all / ring_attn, DeviceMesh)
    long long model = 1;   // product of the axes that multiply into the world
    int dp = 0;            // world / model when exact (0 when it does not divide)
    int batch_dp = 0;      // replicas reading distinct samples
    long long batch_microbatches = 0;   // global / (micro x batch_dp) when exact, else 0
    long long microbatches = 0;   // per optimizer step per replica: layout.num_microbatches, else batch_microbatches
    long long grad_accum = 0;     // global / (micro x microbatches x batch_dp) when exact, else 0
};

// global_batch / (micro_batch x dp) when that is a whole number, else 0: the microbatches per
// optimizer step per data-parallel replica (Megatron's ConstantNumMicroBatchesCalculator).
long long microbatches_from_batch(long long global_batch, long long micro_batch, long long dp);

// The microbatches per step per replica that the timeline and the exporters use, given the
// caller's data-parallel size: layout.num_microbatches when set (ColossalAI's plugin takes it as
// its own knob), else global / (micro x dp) when exact, else its floor and at least 1 (an
// inexact batch, which the rules report). The estimate lets an exact batch win over a
// disagreeing layout count and notes it.
int step_microbatches(const Layout& l, const Training& t, int dp);

// Unknown frameworks count every axis (tp pp sp cp), as a plain DeviceMesh does.
DerivedSizes derived_sizes(const Layout& l, const Training& t, int world);

}   // namespace paraplan
