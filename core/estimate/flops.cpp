#include "estimate/flops.h"

#include "estimate/hybrid.h"
#include "estimate/lora.h"

namespace paraplan::estimate {

StepFlops step_flops(const ModelSpec& m, const LayerShapes& s, double sequences, double seq, Recompute r,
                     int mtp_layers, const LoraOptions& lora) {
    const double tokens = sequences * seq;
    if (m.is_hybrid()) {
        // Megatron's hybrid_flops (training.py, core_v0.16.0): 3 x forward of the pattern layers and the
        // logits (hybrid.h). Recomputation adds what runs again, as for a transformer.
        const double fwd = hybrid_fwd_flops_per_token(m, seq);
        StepFlops out;
        out.model = 3 * tokens * (fwd + 2 * s.h * s.vocab);
        out.hardware = out.model;
        if (r == Recompute::full) out.hardware += tokens * fwd;
        if (r == Recompute::selective) out.hardware += 3 * tokens * hybrid_attention_core_flops_per_token(m, seq);
        return out;
    }
    double fwd_layers = 0, fwd_attn = 0, fwd_lora = 0;
    const LayerFlops dense = layer_flops_per_token(s, false, seq);
    const LayerFlops moe = s.experts > 0 ? layer_flops_per_token(s, true, seq) : dense;
    const double lora_dense = lora_fwd_flops_per_token(s, false, lora);
    const double lora_moe = s.experts > 0 ? lora_fwd_flops_per_token(s, true, lora) : lora_dense;
    for (int i = 0; i < m.layers; ++i) {   // summed layer by layer, in order
        const bool is_moe = m.experts > 0 && is_moe_layer(m, i);
        const LayerFlops& f = is_moe ? moe : dense;
        fwd_layers += f.gemm + f.attention;
        fwd_attn += f.attention;
        fwd_lora += is_moe && s.experts > 0 ? lora_moe : lora_dense;
    }
    double logits = 2 * s.h * s.vocab;
    if (mtp_layers > 0 && m.layers > 0) {
        const LayerFlops& f = is_moe_layer(m, m.layers - 1) ? moe : dense;
        fwd_layers += mtp_layers * (f.gemm + f.attention + 2 * (3 * s.h + 2 * s.h * s.h));
        fwd_attn += mtp_layers * f.attention;
        logits *= 1 + mtp_layers;
    }
    StepFlops out;
    out.model = lora.on() ? tokens * (3 * fwd_attn + 2 * (fwd_layers - fwd_attn + logits) + 3 * fwd_lora)
                          : 3 * tokens * (fwd_layers + logits);
    out.hardware = out.model;
    if (r == Recompute::full) out.hardware += tokens * (fwd_layers + fwd_lora);
    // Korthikanti et al. App. A count selective recomputation as 72BLsh^2 * s/(6h) extra, i.e.
    // the attention core's forward + backward again (3 x its forward); their Table 4 HFU/MFU
    // ratios follow this count.
    if (r == Recompute::selective) out.hardware += 3 * tokens * fwd_attn;
    return out;
}

double narayanan_params(double l, double h, double V, double s) {
    return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}
double narayanan_flops(double B, double s, double l, double h, double V) {
    return 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
}
double korthikanti_model_flops(double B, double L, double s, double h, double V) {
    return 72 * B * L * s * h * h * (1 + s / (6 * h) + V / (12 * h * L));
}
double korthikanti_selective_hw_flops(double B, double L, double s, double h, double V) {
    return 72 * B * L * s * h * h * (1 + s / (3 * h) + V / (12 * h * L));
}

}   // namespace paraplan::estimate
