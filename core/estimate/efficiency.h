#pragma once
// Achievable share of a GPU's dense peak, per architecture, dtype and kernel stack.
// Matrix multiplies reach a ceiling e_max only when every GEMM dimension is large; small
// per-GPU matrices (narrow TP shards, short microbatches, small experts) fall off as
// d / (d + d0), d being the smallest GEMM dimension. FP8 GEMMs have their own ceiling on the
// FP8 peak. Attention runs at a share of the 16-bit peak set by the kernel (FlashAttention-2
// through PyTorch SDPA, or the cuDNN / FlashAttention-3 class kernels Transformer Engine
// uses on Hopper). Element-wise work (norms, activations, RoPE, softmax, residual adds, FP8
// casts) is bound by HBM bandwidth; how many passes it makes depends on the kernel stack
// (fused TE kernels, torch.compile's generated kernels, or one eager kernel per op).
//
// Calibration (docs/accuracy.md): constants are fitted on the `tune` rows of
// tests/data/estimate_accuracy.json only; the `held_out` rows report the error. Published
// kernel figures bound them: cuBLAS bf16 GEMMs ~0.8-0.9 of peak on A100; FlashAttention-2
// reaches 50-73% of A100 peak forward (Dao 2023, abstract) but only ~35% of H100's
// (Shah et al. 2024, FlashAttention-3, abstract), FlashAttention-3 up to 75% of H100's
// bf16 peak and ~1.2 PFLOP/s in FP8 (same paper).
#include "estimate/config.h"

#include <string>

namespace paraplan::estimate {

struct Efficiency {
    double gemm_max = 0.8;           // e_max, 16-bit GEMMs (share of the 16-bit peak)
    double gemm_max_fp8 = 0;         // e_max of FP8 GEMMs (share of the FP8 peak); 0: no FP8
    double gemm_d0 = 128;            // half-efficiency dimension
    double attention = 0.55;         // flash-attention kernels, share of the 16-bit peak
    double hbm = 0.8;                // achievable share of HBM bandwidth
    double elementwise_passes = 3;   // HBM bytes moved per stored activation byte (fwd)
    double score_passes = 1.5;       // same for the attention scores (fused scale-mask-softmax)
    double causal_attention = 0.5;   // share of the s^2 work flash kernels run under a causal mask
    // FP8 cast and scaling traffic, HBM bytes per element of each FP8 GEMM operand
    // (activations forward, output gradients backward): read the 16-bit tensor, write the
    // FP8 copy and its transpose (Hopper FP8 GEMMs take K-major operands only), plus a
    // separate amax pass where the scale comes from the current tensor.
    double fp8_cast_bytes = 6;
    // The same for FP4 GEMM operands (Config::fp4; efficiency_for sets it per recipe).
    double fp4_cast_bytes = 0;
    // Share of the attention kernel's rate that the cp - 1 later steps of PyTorch's SDPA-based
    // ring attention keep (half-size non-causal calls plus eager fp32 output/LSE merges and
    // k/v-gradient accumulation; step 0, the local causal call, runs at the plain rate);
    // fitted on the torchtitan 8B CP 4 tune row.
    double ring_sdpa = 0.53;
};

// Transformer Engine / fused kernels (the calibration the A100/H100 Megatron rows were fitted with).
Efficiency efficiency_for(const std::string& arch);
Efficiency efficiency_for(const std::string& arch, KernelStack kernels, std::optional<Fp8Recipe> fp8 = std::nullopt,
                          Fp4Recipe fp4 = Fp4Recipe::none);

// Share of peak for a GEMM whose smallest dimension is d.
double gemm_efficiency(const Efficiency& e, double d);
// The same for an FP8 GEMM (share of the FP8 peak).
double gemm_efficiency_fp8(const Efficiency& e, double d);

// The format the linear layers' GEMMs run in, one meaning for the dense and the expert GEMMs, their
// casts and the summaries: FP4 where Config::fp4 is set and the GPU has an FP4 peak, else FP8 where
// Config::fp8 is set and the GPU has an FP8 peak, else the training precision (16-bit).
enum class LinearFormat { wide, fp8, fp4 };
LinearFormat linear_format(const Config& c, const Hardware& hw);
// The format's dense peak, FLOP/s (the training precision's for wide).
double linear_peak_flops(LinearFormat f, const Hardware& hw);
// Share of that peak for a GEMM whose smallest dimension is d. FP8 and FP4 GEMMs share one ceiling,
// gemm_max_fp8, each on its own peak: no measured FP4 run is in the accuracy table to fit another.
double linear_gemm_efficiency(LinearFormat f, const Efficiency& e, double d);
// HBM bytes per element of a GEMM operand that the format's cast moves (0 for wide).
double linear_cast_bytes(LinearFormat f, const Efficiency& e);

}   // namespace paraplan::estimate
