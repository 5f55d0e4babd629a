#pragma once
// A pipeline schedule: the order of compute operations each pipeline stage (rank)
// runs in one training step. Generators (generate.h) build it the way a framework
// does; simulate.h places it in time.
//
// Terms, as the frameworks name them:
//   pp            number of pipeline stages (ranks in the pipeline group)
//   microbatches  number of microbatches per step (m)
//   chunks        model chunks per stage (v; Megatron "virtual pipeline", PyTorch
//                 "stages per rank"); the model is cut into pp * v virtual stages
//   F             forward of one microbatch on one chunk
//   B             backward for inputs (ZB paper "B", PyTorch "I"), or, when
//                 `full_backward`, the whole backward (input + weight grads,
//                 PyTorch "B")
//   W             backward for weights (ZB paper "W")
#include <cstdint>
#include <string>
#include <vector>

namespace paraplan::schedule {

enum class OpKind : std::uint8_t {
    Forward,          // F
    BackwardInput,    // B (input grad only; a W for the same microbatch follows)
    BackwardWeight,   // W
    FullBackward,     // B + W in one pass
};

// How virtual stages map onto ranks (PyTorch generate_stage_to_rank_mapping styles).
//   Loop: virtual stage = chunk * pp + stage  (Megatron, ColossalAI interleaved, PyTorch "loop")
//   V:    chunk 0 -> stage, chunk 1 -> 2 * pp - 1 - stage  (ZB-V, DualPipeV; exactly 2 chunks)
enum class Placement : std::uint8_t { Loop, V };

// One operation in a stage's order.
struct Action {
    OpKind kind = OpKind::Forward;
    std::int32_t microbatch = 0;
    std::int32_t chunk = 0;
    // When true, this action and the next one on the same stage run as one
    // overlapped unit (DualPipe "F&B", PyTorch OVERLAP_F_B): a forward of one chunk
    // together with the backward of the other.
    bool overlap_with_next = false;

    bool operator==(const Action&) const = default;
};

struct Schedule {
    std::string name;   // our id, e.g. "1f1b", "interleaved-megatron", "zbv"
    int pp = 1;
    int microbatches = 1;
    int chunks = 1;
    Placement placement = Placement::Loop;
    std::vector<std::vector<Action>> stages;   // stages[s] = rank s's actions in order

    int virtual_stages() const { return pp * chunks; }
    int virtual_stage(int stage, int chunk) const;
    int stage_of(int virtual_stage) const;
    int chunk_of(int virtual_stage) const;
    std::size_t op_count() const;
};

// "F", "B", "W"; a full backward prints as "B" (the CLI contract).
const char* kind_letter(OpKind k);
// PyTorch's action letter: F, I, W, B (torch.distributed.pipelining _ComputationType).
const char* pytorch_letter(OpKind k);
bool is_backward(OpKind k);   // BackwardInput or FullBackward

}   // namespace paraplan::schedule
