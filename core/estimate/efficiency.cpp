#include "estimate/efficiency.h"

#include <algorithm>

namespace paraplan::estimate {

Efficiency efficiency_for(const std::string& arch) { return efficiency_for(arch, KernelStack::te); }

Efficiency efficiency_for(const std::string& arch, KernelStack kernels, std::optional<Fp8Recipe> fp8, Fp4Recipe fp4) {
    Efficiency e;
    // Attention through PyTorch SDPA (torchtitan, Hugging Face models) is FlashAttention-2;
    // Transformer Engine picks cuDNN's fused attention (FlashAttention-3 class on Hopper).
    const bool sdpa = kernels != KernelStack::te;
    if (arch == "ampere") {
        e.gemm_max = 0.80;
        e.attention = 0.55;   // FlashAttention-2 on A100: 50-73% of peak forward (Dao 2023); same kernel via SDPA
    } else if (arch == "hopper") {
        e.gemm_max = 0.70;
        // Least squares on log step time over the NeMo 24.07 DGX-H100 FP8 tune rows (GPT3-175B/128,
        // Llama2-7B, Llama3-70B), refitted (0.58 -> 0.56) with their TP communication overlap in place.
        e.gemm_max_fp8 = 0.56;
        e.attention = sdpa ? 0.35 : 0.50;   // FA2 ~35% of H100 peak; FA3/cuDNN up to 75% forward (Shah et al. 2024)
    } else if (arch == "blackwell") {
        e.gemm_max = 0.70;
        // Least squares on log step time over the NeMo 25.02 DGX-B200 FP8 tune rows (Llama3-8B,
        // Llama3-70B), refitted (0.50 -> 0.43) with their TP communication overlap in place.
        e.gemm_max_fp8 = 0.43;
        e.attention = sdpa ? 0.35 : 0.50;
    } else if (arch == "volta") {
        e.gemm_max = 0.75;
        e.attention = 0.4;
    } else {
        // ada, cdna2, cdna3, cdna4: no published measured run in the accuracy table; not calibrated.
        e.gemm_max = 0.65;
        e.gemm_max_fp8 = 0.55;
        e.attention = 0.4;
    }
    // Element-wise passes per kernel stack: TE fuses norm + cast + GEMM prologues, bias-GeLU /
    // SwiGLU and RoPE; torch.compile generates fused Triton kernels; eager PyTorch runs one
    // kernel per op (RMSNorm alone is ~5 of them in fp32). Fitted on the tune rows
    // (torchtitan's eager vs compiled 8B runs, llama3_h100_202412 Table 1).
    switch (kernels) {
    case KernelStack::framework:   // resolved before the estimate (kernel_stack, layout.h); not seen here
    case KernelStack::te: e.elementwise_passes = 3; break;
    case KernelStack::compile: e.elementwise_passes = 4; break;
    case KernelStack::eager: e.elementwise_passes = 8; break;
    }
    if (fp8) switch (*fp8) {
        case Fp8Recipe::delayed: e.fp8_cast_bytes = 4; break;      // amax taken inside the cast kernel
        case Fp8Recipe::tensorwise: e.fp8_cast_bytes = 6; break;   // separate amax read of the 16-bit tensor
        case Fp8Recipe::rowwise:
            // Row- and column-scaled copies of each operand (two amax reductions, two casts) and
            // GEMMs with per-row scale epilogues.
            e.fp8_cast_bytes = 10;
            // Refitted (0.65 -> 0.80) on the tune row (torchtitan asyncTP 70B rowwise) once the
            // rowwise casts of the 16-bit all-gathered input were counted (time.cpp); torchtitan
            // issue #1207 puts the rest on the small wk / wv linears (~40% slower in rowwise FP8).
            e.gemm_max_fp8 *= 0.80;
            break;
        case Fp8Recipe::mxfp8:
            e.fp8_cast_bytes = 4.1;
            break;   // one read, row- and column-wise MX copies with 1/32 scales
        case Fp8Recipe::blockwise: e.fp8_cast_bytes = 4.1; break;
        }
    if (kernels == KernelStack::compile) e.fp8_cast_bytes *= 0.67;   // inductor fuses amax and cast into neighbours
    switch (fp4) {
    case Fp4Recipe::none: break;
    case Fp4Recipe::nvfp4:
        // Transformer Engine v2.9 pytorch/csrc/quantizer.cpp NVFP4Quantizer::quantize_impl, with the
        // NVFP4BlockScaling defaults (random Hadamard transform on the inputs and gradients): one
        // nvte_hadamard_transform_amax read (2 B) gives the per-tensor amax of the input and of its
        // transformed transpose; the row-wise quantize reads the 16-bit tensor again (2 B) and writes E2M1
        // (0.5 B) plus an E4M3 scale per 16 (1/16 B); the column-wise Hadamard-cast fusion does the same
        // for the wgrad copy. Stochastic rounding of the gradients happens inside that cast.
        e.fp4_cast_bytes = 2 + 2 * (2 + 0.5 + 1.0 / 16);
        break;
    case Fp4Recipe::mxfp4:
        // OCP MX: E8M0 scales from each 32-block's own amax, so no per-tensor amax pass and no Hadamard
        // transform: one 16-bit read, row- and column-wise E2M1 copies with a 1-byte scale per 32.
        e.fp4_cast_bytes = 2 + 2 * (0.5 + 1.0 / 32);
        break;
    }
    return e;
}

double gemm_efficiency(const Efficiency& e, double d) {
    d = std::max(1.0, d);
    return e.gemm_max * d / (d + e.gemm_d0);
}

double gemm_efficiency_fp8(const Efficiency& e, double d) {
    d = std::max(1.0, d);
    const double m = e.gemm_max_fp8 > 0 ? e.gemm_max_fp8 : e.gemm_max;
    return m * d / (d + e.gemm_d0);
}

LinearFormat linear_format(const Config& c, const Hardware& hw) {
    if (c.fp4 != Fp4Recipe::none && hw.peak_fp4_tflops > 0) return LinearFormat::fp4;
    if (c.fp8 && hw.peak_fp8_tflops > 0) return LinearFormat::fp8;
    return LinearFormat::wide;
}

double linear_peak_flops(LinearFormat f, const Hardware& hw) {
    switch (f) {
    case LinearFormat::wide: break;
    case LinearFormat::fp8: return hw.peak_fp8_tflops * 1e12;
    case LinearFormat::fp4: return hw.peak_fp4_tflops * 1e12;
    }
    return hw.peak_tflops * 1e12;
}

double linear_gemm_efficiency(LinearFormat f, const Efficiency& e, double d) {
    return f == LinearFormat::wide ? gemm_efficiency(e, d) : gemm_efficiency_fp8(e, d);
}

double linear_cast_bytes(LinearFormat f, const Efficiency& e) {
    switch (f) {
    case LinearFormat::wide: break;
    case LinearFormat::fp8: return e.fp8_cast_bytes;
    case LinearFormat::fp4: return e.fp4_cast_bytes;
    }
    return 0;
}

}   // namespace paraplan::estimate
