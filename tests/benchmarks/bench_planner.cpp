// Planner and estimator speed: one layout's estimate, and full searches for
// MT-NLG 530B on 5,120 A100s and Llama-3.1-405B on 16,384 H100s.
// Usage: bench_planner [threads] [which]   (docs/benchmarks.md, "Estimates and planner")
//   which: all (default), one, flat, dgx or llama: only that measurement; dump: the three searches'
//   results as JSON without their times (to compare two builds' answers with diff).
#include "estimate/estimate.h"
#include "network/systems.h"
#include "search/planner.h"
#include "../core/estimate_test_models.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>

using namespace paraplan;
using namespace paraplan::estimate;
using namespace paraplan::search;

namespace {

Hardware h100() {
    Hardware hw;
    hw.memory_gib = 80;
    hw.peak_tflops = 989;
    hw.hbm_gbps = 3352;
    hw.intra_node_gbps = 450;
    hw.inter_node_gbits = 3200;
    hw.arch = "hopper";
    return hw;
}

ModelSpec mtnlg() {
    ModelSpec m;
    m.name = "MT-NLG 530B";
    m.family = "gpt2";
    m.layers = 105;
    m.hidden = 20480;
    m.heads = 128;
    m.kv_heads = 128;
    m.ffn_hidden = 81920;
    m.vocab = 51200;
    m.max_seq = 2048;
    m.position = "learned";
    m.tied_embeddings = true;
    return m;
}

ModelSpec llama405() {
    ModelSpec m;
    m.name = "Llama-3.1-405B";
    m.family = "llama";
    m.layers = 126;
    m.hidden = 16384;
    m.heads = 128;
    m.kv_heads = 8;
    m.ffn_hidden = 53248;
    m.vocab = 128256;
    m.activation = "swiglu";
    m.norm = "rmsnorm";
    return m;
}

PlanRequest request(const ModelSpec& m, const Hardware& hw, int nodes, int gbs, int seq, int threads) {
    PlanRequest r;
    r.base.model = m;
    Node n;
    n.gpus = 8;
    r.base.cluster.nodes.assign(nodes, n);
    r.base.training.global_batch_size = gbs;
    r.base.training.seq_len = seq;
    r.hardware = hw;
    r.frameworks = {"megatron", "colossalai", "deepspeed", "torchtitan"};
    r.threads = threads;
    r.top = 5;
    return r;
}

bool g_dump = false;

void run_search(const char* name, const PlanRequest& r) {
    const PlanResult res = plan(r);
    if (g_dump) {
        nlohmann::json j = to_json(res);
        j.erase("seconds");
        std::printf("%s\n%s\n", name, j.dump(1).c_str());
        return;
    }
    std::printf("%-34s threads %d: %lld layouts, %lld valid, %lld fit, %.3f s, %.0f layouts/s\n", name, r.threads,
                res.evaluated, res.valid, res.fitting, res.seconds, res.evaluated / res.seconds);
    if (!res.results.empty()) {
        const auto& b = res.results.front();
        std::printf(
            "  best: %s tp=%d pp=%d cp=%d sp=%d mbs=%d m=%d %s v=%d zero=%d recompute=%s: step %.2f s, MFU %.1f%%, "
            "peak %.1f GiB\n",
            b.layout.framework.c_str(), b.layout.tp, b.layout.pp, b.layout.cp, b.layout.sp, b.micro_batch_size,
            b.layout.num_microbatches, paraplan::to_string(b.layout.schedule), b.layout.chunks, b.layout.zero_stage,
            to_string(b.layout.recompute), b.step_s, 100 * b.mfu, b.peak_gib);
    }
}

}   // namespace

int main(int argc, char** argv) {
    const int threads = argc > 1 ? std::atoi(argv[1]) : 2;
    const std::string which = argc > 2 ? argv[2] : "all";
    g_dump = which == "dump";
    auto wanted = [&](const char* name) {
        return which == "all" || which == name || (g_dump && std::string(name) != "one");
    };
    // One layout, repeated.
    if (wanted("one")) {
        const ModelSpec m = llama405();
        const Hardware hw = h100();
        Training t;
        t.global_batch_size = 2048;
        t.seq_len = 8192;
        Layout l;
        l.framework = "megatron";
        l.tp = 8;
        l.pp = 16;
        l.schedule = paraplan::Schedule::interleaved;
        l.chunks = 2;
        l.sp_mode = SpMode::split_gather;
        l.distributed_optimizer = true;
        const LayerShapes s = layer_shapes(m);
        const int n = 20000;
        double sink = 0;
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < n; ++i) {
            const Config c = make_config(m, t, l, hw, 16384);
            sink += evaluate(m, s, c, hw).time.step_s;
        }
        const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::printf("one layout (Llama-3.1-405B, 16,384 H100): %.2f us per estimate (%.0f/s) [%g]\n", 1e6 * sec / n,
                    n / sec, sink / n);
    }
    if (wanted("flat"))
        run_search("MT-NLG 530B on 5,120 A100", request(mtnlg(), paper_a100(), 640, 1920, 2048, threads));
    // The same search with every group priced on DGX A100 tiers (NVLink, 8 HDR rails, leaf, spine)
    // as NCCL runs its collectives.
    if (wanted("dgx")) {
        Hardware hw = paper_a100();
        hw.network = std::make_shared<const network::System>(*network::find_system("dgx-a100"));
        PlanRequest r = request(mtnlg(), hw, 640, 1920, 2048, threads);
        r.base.cluster.system = "dgx-a100";
        for (auto& n : r.base.cluster.nodes) n.gpu = "a100-80g";
        run_search("MT-NLG 530B on 5,120 A100 (dgx-a100)", r);
        if (!g_dump) {   // the per-layout cost alone: enumeration and estimates, no rules, no refinement
            PlanRequest e = r;
            e.use_rules = false;
            e.refine = false;
            e.top = 0;
            run_search("  the same, estimates only", e);
        }
        if (g_dump) {   // the closed-form figures of the first 200, unrefined
            r.refine = false;
            r.top = 200;
            run_search("MT-NLG 530B on 5,120 A100 (dgx-a100), top 200 unrefined", r);
        }
    }
    if (wanted("llama"))
        run_search("Llama-3.1-405B on 16,384 H100", request(llama405(), h100(), 2048, 2048, 8192, threads));
    return 0;
}
