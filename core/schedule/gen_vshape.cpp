// V-shaped schedules: each rank holds two chunks, virtual stages s and 2*pp-1-s
// (PyTorch generate_stage_to_rank_mapping style "v"), so the first and the last
// virtual stage live on rank 0.
#include "schedule/generate.h"

#include <algorithm>
#include <deque>
#include <utility>

namespace paraplan::schedule {
namespace {

Schedule blank_v(const char* name, int pp, int m) {
    Schedule s;
    s.name = name;
    s.pp = pp;
    s.microbatches = m;
    s.chunks = 2;
    s.placement = Placement::V;
    s.stages.resize(static_cast<std::size_t>(pp));
    return s;
}

}   // namespace

// ZB-V (Qi et al. §6), in the order of PyTorch ScheduleZBVZeroBubble
// ._calculate_single_rank_operations: rank r runs 2(pp - r) - 1 forwards of chunk 0,
// r pairs F(chunk 1) F(chunk 0), pp - r triples F B W on chunk 1, then the steady
// F0 B0 W0 F1 B1 W1 rounds, then the cooldown. It plans max(2pp - 1, m)
// microbatches and drops the ones past m, as PyTorch does.
Schedule make_zbv(int pp, int m) {
    Schedule s = blank_v("zbv", pp, m);
    const int n_micro = std::max(2 * pp - 1, m);
    for (int rank = 0; rank < pp; ++rank) {
        auto& ops = s.stages[static_cast<std::size_t>(rank)];
        ops.reserve(static_cast<std::size_t>(6 * n_micro));
        int f0 = 0, f1 = 0, b0 = 0, b1 = 0;
        auto add = [&](OpKind k, int mb, int chunk) {
            if (mb < m) ops.push_back({k, mb, chunk, false});
        };
        for (int i = 0; i < 2 * (pp - rank) - 1; ++i) add(OpKind::Forward, f0++, 0);
        for (int i = 0; i < rank; ++i) {
            add(OpKind::Forward, f1++, 1);
            add(OpKind::Forward, f0++, 0);
        }
        for (int i = 0; i < pp - rank; ++i) {
            add(OpKind::Forward, f1++, 1);
            add(OpKind::BackwardInput, b1, 1);
            add(OpKind::BackwardWeight, b1++, 1);
        }
        while (f1 < f0 || f0 < n_micro) {
            if (f0 < n_micro) add(OpKind::Forward, f0++, 0);
            add(OpKind::BackwardInput, b0, 0);
            add(OpKind::BackwardWeight, b0++, 0);
            add(OpKind::Forward, f1++, 1);
            add(OpKind::BackwardInput, b1, 1);
            add(OpKind::BackwardWeight, b1++, 1);
        }
        int w0 = b0, w1 = b1;
        for (int i = 0; i < rank; ++i) {
            add(OpKind::BackwardInput, b0++, 0);
            add(OpKind::BackwardInput, b1++, 1);
        }
        for (int i = 0; i < pp - rank; ++i) {
            add(OpKind::BackwardInput, b0++, 0);
            add(OpKind::BackwardWeight, w0++, 0);
        }
        while (w1 < b1) add(OpKind::BackwardWeight, w1++, 1);
        while (w0 < b0) add(OpKind::BackwardWeight, w0++, 0);
    }
    return s;
}

// DualPipeV (DeepSeek DualPipe repository, "cut-in-half" V variant), in the eight
// steps of PyTorch ScheduleDualPipeV._calculate_single_rank_operations. Step 4's
// "F0B1-F1B0" pairs run a forward of one chunk overlapped with the full backward of
// the other (OVERLAP_F_B); step 6 switches to split backward (B then W later) half way.
Schedule make_dualpipev(int pp, int m) {
    Schedule s = blank_v("dualpipev", pp, m);
    for (int rank = 0; rank < pp; ++rank) {
        auto& ops = s.stages[static_cast<std::size_t>(rank)];
        ops.reserve(static_cast<std::size_t>(6 * m));
        int fwd[2] = {0, 0};
        int bwd[2] = {0, 0};                  // next backward (input or full) per chunk
        std::deque<std::pair<int, int>> wq;   // pending W: (chunk, microbatch)
        auto forward = [&](int c, bool overlap = false) { ops.push_back({OpKind::Forward, fwd[c]++, c, overlap}); };
        auto backward = [&](int c, bool split) {
            const int mb = bwd[c]++;
            ops.push_back({split ? OpKind::BackwardInput : OpKind::FullBackward, mb, c, false});
            if (split) wq.emplace_back(c, mb);
        };
        auto weight_if_pending = [&] {
            if (wq.empty()) return;
            const auto [c, mb] = wq.front();
            wq.pop_front();
            ops.push_back({OpKind::BackwardWeight, mb, c, false});
        };
        auto overlap_f_b = [&](int f_chunk, int b_chunk) {
            forward(f_chunk, true);
            backward(b_chunk, false);
        };
        // Step 1: F0
        for (int i = 0; i < (pp - rank - 1) * 2; ++i) forward(0);
        // Step 2: F0 F1
        for (int i = 0; i < rank + 1; ++i) {
            forward(0);
            forward(1);
        }
        // Step 3: B1 W1 F1 (zero bubble)
        for (int i = 0; i < pp - rank - 1; ++i) {
            backward(1, true);
            weight_if_pending();
            forward(1);
        }
        // Step 4 (main): F0&B1, F1&B0 overlapped
        const int step4 = m - 2 * pp + rank + 1;
        for (int i = 0; i < step4; ++i) {
            if (i == 0 && rank == pp - 1) {
                forward(0);   // not overlapped, to shrink the bubble (PyTorch note)
                backward(1, false);
            } else {
                overlap_f_b(0, 1);
            }
            overlap_f_b(1, 0);
        }
        // Step 5: B1, F1&B0
        for (int i = 0; i < pp - rank - 1; ++i) {
            backward(1, false);
            overlap_f_b(1, 0);
        }
        // Step 6: B1 B0; the second half uses split backward
        bool zb = false;
        const int step6 = rank + 1;
        for (int i = 0; i < step6; ++i) {
            if (i == step6 / 2 && rank % 2 == 1) zb = true;
            backward(1, zb);
            if (i == step6 / 2 && rank % 2 == 0) zb = true;
            backward(0, zb);
        }
        // Step 7: W0 B0
        for (int i = 0; i < pp - rank - 1; ++i) {
            weight_if_pending();
            backward(0, zb);
        }
        // Step 8: W0
        for (int i = 0; i < rank + 1; ++i) weight_if_pending();
    }
    return s;
}

}   // namespace paraplan::schedule
