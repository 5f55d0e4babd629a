#pragma once
// Achievable share of a GPU's dense peak. Matrix multiplies reach a ceiling e_max
// (per architecture) only when every GEMM dimension is large; small per-GPU matrices
// (narrow TP shards, short microbatches, small experts) fall off as d / (d + d0),
// d being the smallest GEMM dimension. Element-wise work (norms, activations,
// dropout, softmax, residual adds) is bound by HBM bandwidth instead.
//
// Calibration (docs/accuracy.md): e_max and d0 are fitted so that the step-time model
// reproduces the measured end-to-end throughput of Narayanan et al. 2021 Table 1 and
// Korthikanti et al. 2022 Table 4 on A100, and the Llama 3 paper (Dubey et al. 2024,
// Table 4) on H100; NVIDIA's own large-GEMM figures (A100 ~ 0.8-0.9 of 312 TF/s, H100
// ~ 0.7-0.8 of 989 TF/s for bf16 cuBLAS) bound e_max from above.
#include <string>

namespace paraplan::estimate {

struct Efficiency {
    double gemm_max = 0.8;      // e_max
    double gemm_d0 = 128;       // half-efficiency dimension
    double attention = 0.55;    // flash-attention kernels, share of peak
    double hbm = 0.8;           // achievable share of HBM bandwidth
    double elementwise_passes = 3;   // HBM bytes moved per stored activation byte (fwd)
    double score_passes = 1.5;       // same for the attention scores (fused scale-mask-softmax)
    double causal_attention = 0.5;   // share of the s^2 work flash kernels run under a causal mask
};

Efficiency efficiency_for(const std::string& arch);

// Share of peak for a GEMM whose smallest dimension is d.
double gemm_efficiency(const Efficiency& e, double d);

}  // namespace paraplan::estimate
