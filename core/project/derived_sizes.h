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
//
// layout.num_microbatches is the microbatch count of ONE pipeline flush, and only where the
// framework has that knob with pp > 1; a global batch that holds k > 1 such flushes per data
// replica is k gradient-accumulation steps of one flush each:
//   ColossalAI (v0.5.1): HybridParallelPlugin(num_microbatches=...) hands it to
//     OneForwardOneBackwardSchedule, whose load_batch splits the per-rank batch one
//     execute_pipeline call receives into num_microbatches microbatches (asserting
//     batch == microbatch_size x num_microbatches); a training loop accumulates by calling
//     execute_pipeline k times, the first k - 1 inside booster.no_sync(), where
//     HybridParallelPlugin.execute_pipeline returns before sync_dp_grads.
//   torchtitan (v0.2.2): torchtitan/train.py Trainer.__init__ sets gradient_accumulation_steps =
//     global_batch_size // (local_batch_size x dp) and train_step runs pp_schedule.step once per
//     accumulation step on a local batch the schedule splits into
//     local_batch_size / pipeline_parallel_microbatch_size microbatches.
//   A plain DeviceMesh with torch.distributed.pipelining is driven the same way.
// Megatron-LM and DeepSpeed have no such knob: Megatron runs forward_backward_func once per
// iteration with num_microbatches = get_num_microbatches() (core_v0.19.0 training.py
// train_step), DeepSpeed's PipelineEngine sets micro_batches = gradient_accumulation_steps()
// and runs one TrainSchedule per train_batch (v0.19.5 runtime/pipe/engine.py). For them the
// count is always global / (micro x dp) and a layout count is not read (rules: *.num_microbatches).
// Which frameworks have the knob is the FrameworkTraits::num_microbatches_knob row.
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
    long long microbatches = 0;   // per pipeline flush per replica: layout_microbatches(), else batch_microbatches
    long long grad_accum =
        0;   // flushes per optimizer step: global / (micro x microbatches x batch_dp) when exact, else 0
};

// Whether the framework reads layout.num_microbatches as its per-flush microbatch count: its
// FrameworkTraits::num_microbatches_knob row (project/framework.h), true for an unknown framework
// (run as a plain DeviceMesh).
bool has_microbatch_knob(const std::string& framework);

// layout.num_microbatches where the framework reads it (has_microbatch_knob and pp > 1), else 0.
int layout_microbatches(const Layout& l);

// global_batch / (micro_batch x dp) when that is a whole number, else 0: the microbatches per
// optimizer step per data-parallel replica (Megatron's ConstantNumMicroBatchesCalculator).
long long microbatches_from_batch(long long global_batch, long long micro_batch, long long dp);

// The microbatches of one pipeline flush per replica that the timeline, the exporters and the
// estimate use, given the caller's data-parallel size: layout_microbatches() when set, else
// global / (micro x dp) when exact, else its floor and at least 1 (an inexact batch, which the
// rules report).
int step_microbatches(const Layout& l, const Training& t, int dp);

// Unknown frameworks count every axis (tp pp sp cp), as a plain DeviceMesh does.
DerivedSizes derived_sizes(const Layout& l, const Training& t, int world);

}   // namespace paraplan
