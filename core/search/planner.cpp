#include "search/planner.h"

#include "estimate/estimate.h"
#include "project/derived_sizes.h"
#include "project/framework.h"
#include "rules/predicates.h"
#include "rules/validate.h"
#include "util/input_error.h"

#include <algorithm>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace paraplan::search {

using namespace paraplan::estimate;

// ---- constraints ---------------------------------------------------------------

namespace {

std::string canonical(std::string k) {
    if (k == "mbs" || k == "micro_batch" || k == "micro_batch_size") return "micro_batch_size";
    if (k == "zero" || k == "zero_stage") return "zero_stage";
    if (k == "vpp" || k == "chunks" || k == "v") return "chunks";
    if (k == "m" || k == "num_microbatches") return "num_microbatches";
    return k;
}

bool is_int_knob(const std::string& k) {
    static const char* kInts[] = {
        "tp", "pp", "cp", "sp", "ep", "dp", "zero_stage", "micro_batch_size", "chunks", "num_microbatches"};
    return std::find_if(std::begin(kInts), std::end(kInts), [&](const char* s) { return k == s; }) != std::end(kInts);
}

}   // namespace

Constraints Constraints::parse(const std::string& text) {
    Constraints c;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t end = text.find(',', pos);
        if (end == std::string::npos) end = text.size();
        const std::string item = text.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty()) continue;
        const std::size_t eq = item.find('=');
        if (eq == std::string::npos || eq == 0)
            throw std::invalid_argument("constraint '" + item + "' is not KNOB=VALUE");
        const std::string key = canonical(item.substr(0, eq));
        const std::string val = item.substr(eq + 1);
        if (is_int_knob(key)) {
            auto num = [&](const std::string& s, int def) {
                if (s.empty()) return def;
                std::size_t used = 0;
                int v = 0;
                try {
                    v = std::stoi(s, &used);
                } catch (const std::exception&) {
                    used = 0;
                }
                if (used != s.size())
                    throw std::invalid_argument("constraint '" + item + "': '" + s + "' is not an integer");
                return v;
            };
            const std::size_t dots = val.find("..");
            if (dots == std::string::npos) {
                const int v = num(val, 0);
                c.bounds[key] = {v, v};
            } else {
                c.bounds[key] = {num(val.substr(0, dots), 0), num(val.substr(dots + 2), 1 << 30)};
            }
        } else if (key == "schedule") {
            // Any of the schedule's names (parse_schedule), kept as the table's name the search compares.
            const auto s = parse_schedule(val);
            if (!s)
                throw std::invalid_argument("constraint '" + item + "': unknown schedule; one of " +
                                            quoted_enum_names<Schedule>());
            c.fixed[key] = to_string(*s);
        } else if (key == "framework" || key == "recompute" || key == "offload" || key == "sp_mode") {
            c.fixed[key] = val;
        } else {
            throw std::invalid_argument("constraint '" + item + "': unknown knob '" + key + "'");
        }
    }
    return c;
}

bool Constraints::allows(const std::string& knob, int v) const {
    auto it = bounds.find(knob);
    return it == bounds.end() || (v >= it->second.first && v <= it->second.second);
}

bool Constraints::allows(const std::string& knob, const std::string& v) const {
    auto it = fixed.find(knob);
    return it == fixed.end() || it->second == v;
}

// ---- enumeration ---------------------------------------------------------------

namespace {

struct Knobs {
    short fw = 0;
    int tp = 1, pp = 1, cp = 1, ep = 1, dp = 1, zero = 0, mbs = 1, chunks = 1, m = 1;
    short schedule = 0;    // index into kSchedules
    short recompute = 0;   // index into kRecompute (EnumNames<Recompute>::table)
    short sp_mode = 0;     // index into kSpModes (EnumNames<SpMode>::table)
    short offload = 0;     // index into kOffload (EnumNames<Offload>::table)
};

// The first three are searched by default; the others (every schedule core/schedule
// generates) only when --fix names one.
constexpr Schedule kSchedules[] = {Schedule::one_f_one_b,
                                   Schedule::interleaved,
                                   Schedule::zbv,
                                   Schedule::gpipe,
                                   Schedule::interleaved_megatron,
                                   Schedule::interleaved_pytorch,
                                   Schedule::looped_bfs,
                                   Schedule::zb1p,
                                   Schedule::zbh2,
                                   Schedule::interleaved_zb,
                                   Schedule::dualpipev};
constexpr int kDefaultSchedules = 3;
constexpr int kAllSchedules = int(sizeof(kSchedules) / sizeof(kSchedules[0]));

std::vector<int> divisors(int n) {
    std::vector<int> d;
    for (int i = 1; i <= n; ++i)
        if (n % i == 0) d.push_back(i);
    return d;
}

int index_of(const std::vector<std::string>& v, const std::string& s) {
    auto it = std::find(v.begin(), v.end(), s);
    return it == v.end() ? 0 : int(it - v.begin());
}

// The layouts of one framework, pruned by its traits (project/framework.h) and by the
// divisibility predicates its rules use (rules/predicates.h); every survivor is estimated and
// the ones that could be returned go through the full rules (rules/validate).
void enumerate(const PlanRequest& req, short fw_index, const FrameworkTraits& ft, std::vector<Knobs>& out) {
    using namespace paraplan::rules;
    const ModelSpec& m = req.base.model;
    const int world = req.base.world_size();
    const int gpn = std::max(1, req.hardware.gpus_per_node);
    const Training& t = req.base.training;
    const Constraints& cons = req.constraints;
    const bool seq_by_sp = ft.seq_split_by_sp;   // ColossalAI: sp axis / modes; else cp
    const int kv = m.kv_heads > 0 ? m.kv_heads : m.heads;
    auto accepts = [&](SpMode mode) {
        return std::find(ft.sp_modes.begin(), ft.sp_modes.end(), mode) != ft.sp_modes.end();
    };
    Schedule kinds[kAllSchedules];   // each schedule as this framework runs it, resolved once
    for (int si = 0; si < kAllSchedules; ++si) kinds[si] = resolved_schedule(kSchedules[si], ft.name);

    // Tensor parallel within a node on the flat network, which cannot price it further out. On the
    // cluster's tiers it may span up to twice the scale-up domain (an NVL72 rack's trays, or two
    // 8-GPU nodes), so that the ranking, not the enumeration, keeps it where it pays.
    const int tp_reach = req.hardware.network ? 2 * std::max(gpn, req.hardware.network->domain().domain_gpus) : gpn;
    std::vector<int> tps;
    for (int tp : divisors(world))
        if (tp <= tp_reach && (req.hardware.network || gpn % tp == 0)) tps.push_back(tp);
    for (int tp : tps) {
        if (!cons.allows("tp", tp)) continue;
        if (!tp_splits_heads(m.heads, tp)) continue;
        if (ft.kv_heads_divisible_by_tp && !tp_splits_heads(kv, tp)) continue;
        if (!ft.world.tp && tp > 1) continue;
        if (!world_splits(world, tp)) continue;
        for (int pp : divisors(world / tp)) {
            if (!cons.allows("pp", pp) || pp > m.layers) continue;
            if (ft.layers_divisible_by_stages && !stages_split_layers(m.layers, pp)) continue;
            if (!ft.world.pp && pp > 1) continue;
            // Sequence split: (mode, size).
            std::vector<std::pair<SpMode, int>> splits;
            if (seq_by_sp) {
                if (cons.allows("sp_mode", "none")) splits.push_back({SpMode::none, 1});
                if (tp > 1 && cons.allows("sp_mode", "split_gather") && accepts(SpMode::split_gather))
                    splits.push_back({SpMode::split_gather, 1});
                if (ft.world.sp && accepts(SpMode::all_to_all))
                    for (int sp = 2; sp <= 64; sp *= 2)
                        if (cons.allows("sp_mode", "all_to_all") && tp_splits_heads(m.heads, 1LL * tp * sp) &&
                            sp_splits_sequence(t.seq_len, sp) && world_splits(world / tp / pp, sp) &&
                            (ft.sp_axis_with_pp || pp == 1))
                            splits.push_back({SpMode::all_to_all, sp});
            } else if (ft.context_parallel) {
                const SpMode mode = tp > 1 ? SpMode::split_gather : SpMode::none;
                if (cons.allows("sp_mode", to_string(mode)) || !cons.fixed.count("sp_mode"))
                    for (int cp = 1; cp <= 64; cp *= 2)
                        if (cp_splits_sequence(t.seq_len, cp)) splits.push_back({mode, cp});
            } else {
                splits.push_back({SpMode::none, 1});
            }
            for (const auto& [mode, split] : splits) {
                if (!cons.allows(seq_by_sp ? "sp" : "cp", split)) continue;
                if (!cons.allows("cp", seq_by_sp ? 1 : split) || (seq_by_sp && !cons.allows("sp", split))) continue;
                const long long mp = 1LL * tp * pp * split;
                if (!world_splits(world, mp)) continue;
                const int dp = int(world / mp);
                if (!cons.allows("dp", dp)) continue;
                std::vector<int> eps = {1};
                if (m.experts > 0 && ft.ep) {
                    eps.clear();
                    for (int ep : divisors(m.experts)) {
                        // ColossalAI carves ep out of dp; an expert grid out of the ranks beside tp x pp.
                        if (!world_splits(ft.ep_from_dp ? dp : world / (tp * pp), ep)) continue;
                        eps.push_back(ep);
                    }
                }
                for (int ep : eps) {
                    if (!cons.allows("ep", ep)) continue;
                    std::vector<int> zeros;
                    if (ft.zero == ZeroSemantics::fsdp) zeros = {dp == 1 ? 0 : 3};   // FSDP2 on whenever it can shard
                    else zeros = zero_stages(ft, pp);   // Megatron: 1 = distributed optimizer
                    for (int mbs : {1, 2, 4, 8, 16}) {
                        if (!cons.allows("micro_batch_size", mbs)) continue;
                        if (!batch_splits(t.global_batch_size, mbs, dp)) continue;
                        int nmb = int(microbatches_from_batch(t.global_batch_size, mbs, dp));
                        if (!cons.allows("num_microbatches", nmb)) {
                            // Bounds below the batch's count: where the framework runs
                            // num_microbatches per pipeline flush, the largest count in bounds
                            // that divides it, the rest as gradient accumulation over flushes
                            // (project/derived_sizes.h; the estimate counts every flush).
                            if (pp <= 1 || !ft.num_microbatches_knob) continue;
                            int fit = 0;
                            for (int d = nmb - 1; d >= 1 && !fit; --d)
                                if (nmb % d == 0 && cons.allows("num_microbatches", d)) fit = d;
                            if (!fit) continue;
                            nmb = fit;
                        }
                        for (int si = 0; si < kAllSchedules; ++si) {
                            if (pp == 1 && si > 0) continue;
                            // A non-default schedule only when the constraints name it.
                            if (si >= kDefaultSchedules && !cons.fixed.count("schedule")) continue;
                            const Schedule sched = kSchedules[si];
                            if (!cons.allows("schedule", to_string(sched)) && pp > 1) continue;
                            if (sched == Schedule::zbv && !ft.zbv) continue;
                            if (si == 0 && ft.one_f_one_b_needs_stages_of_microbatches && pp > 1 && nmb < pp) continue;
                            const Schedule kind = kinds[si];
                            std::vector<int> chunk_opts = {1};
                            if (is_multi_chunk(kind)) chunk_opts = {2, 3, 4};
                            if (is_v_shape(kind)) chunk_opts = {2};
                            for (int v : chunk_opts) {
                                if (!cons.allows("chunks", v)) continue;
                                if ((is_multi_chunk(kind) || is_v_shape(kind)) && !microbatches_fill_pp_groups(nmb, pp))
                                    continue;
                                if (m.layers < pp * v) continue;
                                if (ft.layers_divisible_by_stages && is_multi_chunk(kind) &&
                                    !stages_split_layers(m.layers, pp, v))
                                    continue;
                                for (int zero : zeros) {
                                    if (!cons.allows("zero_stage", zero)) continue;
                                    for (int r = 0; r < int(kRecompute.size()); ++r) {
                                        if (!cons.allows("recompute", kRecompute[r])) continue;
                                        for (int off = 0; off < int(kOffload.size()); ++off) {
                                            // Offload only when asked for (it is never faster).
                                            const bool asked = cons.fixed.count("offload") &&
                                                               cons.fixed.at("offload") == kOffload[off];
                                            if (off > 0 && !asked) continue;
                                            if (!cons.allows("offload", kOffload[off])) continue;
                                            if (off > 0 && zero == 0) continue;
                                            Knobs k;
                                            k.fw = fw_index;
                                            k.tp = tp;
                                            k.pp = pp;
                                            k.cp = split;
                                            k.ep = ep;
                                            k.dp = dp;
                                            k.zero = zero;
                                            k.mbs = mbs;
                                            k.m = nmb;
                                            k.schedule = short(si);
                                            k.chunks = v;
                                            k.recompute = short(r);
                                            k.sp_mode = short(index_of(kSpModes, to_string(mode)));
                                            k.offload = short(off);
                                            out.push_back(k);
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

// The candidate as a whole layout: the knobs the planner decides over the base layout. What
// the planner does not enumerate keeps the user's choice (rank order within the same
// framework, kernel switches, unknown keys); what it assumes (1D tensor parallelism, etp = tp,
// the framework's even layer split, default ring and torchtitan dp degrees) is reset, so the
// layout that is validated and estimated is exactly the one a user applies.
// `l` is the base layout or the last candidate set on it (a worker's reused layout): every field
// to_layout sets is set again, and the order is the base's or empty.
void set_layout(Layout& l, const Knobs& k, const std::string& fw, const Layout& base) {
    if (fw != base.framework) l.order.clear();   // an order string belongs to its framework
    else l.order = base.order;
    l.framework = fw;
    l.tp = k.tp;
    l.pp = k.pp;
    const FrameworkTraits& ft = traits_of(fw);
    const bool colossal = ft.seq_split_by_sp;
    l.sp_mode = EnumNames<SpMode>::table[static_cast<std::size_t>(k.sp_mode)].value;
    l.sp = colossal && l.sp_mode == SpMode::all_to_all ? k.cp : 1;
    l.cp = colossal ? 1 : k.cp;
    l.ep = k.ep;
    l.etp = 0;
    l.dp = 0;
    const bool dist_opt = ft.zero == ZeroSemantics::distributed_optimizer;
    l.zero_stage = dist_opt ? 0 : k.zero;
    l.distributed_optimizer = dist_opt && k.zero > 0;
    l.schedule = kSchedules[k.schedule];
    l.chunks = k.chunks;
    l.num_microbatches = k.m;
    l.recompute = EnumNames<Recompute>::table[static_cast<std::size_t>(k.recompute)].value;
    l.offload = EnumNames<Offload>::table[static_cast<std::size_t>(k.offload)].value;
    l.tp_mode = TpMode::one_d;
    l.tp_depth = 1;
    l.num_layers_per_stage.clear();
    l.inner_ring_size = 0;
    l.dp_shard = -1;
    l.dp_replicate = 1;
}

Layout to_layout(const Knobs& k, const std::string& fw, const Layout& base) {
    Layout l = base;
    set_layout(l, k, fw, base);
    return l;
}

// The returned entries estimated as whole projects (estimate_project), then ranked again;
// the Pareto front is recomputed over its refined points so it stays a front.
void refine(const PlanRequest& req, PlanResult& res) {
    Project p = req.base;
    // A layout both in the first `top` and on the Pareto front (the fastest always is) is
    // estimated once: the same project gives the same estimate.
    struct Done {
        Layout layout;
        int micro_batch_size = 1;
        bool fits = false;
        PlanEntry entry;
    };
    std::vector<Done> done;
    auto redo_one = [&](PlanEntry& e) {   // false: it does not fit once its schedule is simulated
        p.layout = e.layout;
        p.training.micro_batch_size = e.micro_batch_size;
        try {
            const Estimate est = estimate_project(p, req.hardware);
            if (!est.memory.fits) return false;
            e.step_s = est.time.step_s;
            e.mfu = est.time.mfu;
            e.hfu = est.time.hfu;
            e.tokens_per_s = est.time.tokens_per_s;
            e.peak_gib = est.memory.peak_bytes / estimate::kGiB;
        } catch (const std::exception&) {
            // Keep the closed-form figures (the layout passed make_config already).
        }
        return true;
    };
    auto redo = [&](PlanEntry& e) {
        for (const Done& d : done)
            if (d.micro_batch_size == e.micro_batch_size && d.layout == e.layout) {
                if (d.fits) e = d.entry;
                return d.fits;
            }
        const bool fits = redo_one(e);
        done.push_back({e.layout, e.micro_batch_size, fits, e});
        return fits;
    };
    std::erase_if(res.results, [&](PlanEntry& e) { return !redo(e); });
    std::erase_if(res.pareto, [&](PlanEntry& e) { return !redo(e); });
    auto by_time = [](const PlanEntry& a, const PlanEntry& b) {
        return a.step_s != b.step_s ? a.step_s < b.step_s : a.peak_gib < b.peak_gib;
    };
    auto by_mem = [](const PlanEntry& a, const PlanEntry& b) {
        return a.peak_gib != b.peak_gib ? a.peak_gib < b.peak_gib : a.step_s < b.step_s;
    };
    std::stable_sort(res.results.begin(), res.results.end(), req.objective == Objective::memory ? by_mem : by_time);
    std::stable_sort(res.pareto.begin(), res.pareto.end(), by_time);
    std::vector<PlanEntry> front;
    for (auto& e : res.pareto)
        if (front.empty() || e.peak_gib < front.back().peak_gib) front.push_back(std::move(e));
    res.pareto = std::move(front);
}

struct Scored {
    std::size_t index = 0;
    double step_s = 0, mfu = 0, hfu = 0, peak = 0, tps = 0;
};

}   // namespace

PlanResult plan(const PlanRequest& req, const std::atomic<bool>* cancel,
                const std::function<void(long long, long long)>& progress) {
    const auto t0 = std::chrono::steady_clock::now();
    PlanResult res;
    std::vector<std::string> fws = req.frameworks;
    if (fws.empty())
        fws.push_back(req.constraints.fixed.count("framework") ? req.constraints.fixed.at("framework")
                                                               : req.base.layout.framework);
    std::vector<Knobs> cands;
    for (std::size_t i = 0; i < fws.size(); ++i) {
        const FrameworkTraits* ft = find_traits(fws[i]);
        if (!ft) throw InputError("/layout/framework", "unknown framework '" + fws[i] + "'");
        if (!req.constraints.allows("framework", fws[i])) continue;
        enumerate(req, short(i), *ft, cands);
    }
    const long long total = (long long)cands.size();
    const LayerShapes shapes = layer_shapes(req.base.model);
    const int world = req.base.world_size();

    unsigned n_threads = req.threads > 0 ? unsigned(req.threads) : std::max(1u, std::thread::hardware_concurrency());
    n_threads = std::max(1u, std::min<unsigned>(n_threads, unsigned(std::max<long long>(1, total / 64))));
    std::atomic<std::size_t> next{0};
    std::atomic<long long> evaluated{0}, valid{0}, fitting{0};
    std::mutex mu, progress_mu;
    std::vector<Scored> scored;

    auto worker = [&]() {
        Project p = req.base;   // one copy per thread; only layout and training change
        std::vector<Scored> local;
        for (;;) {
            if (cancel && cancel->load(std::memory_order_relaxed)) break;
            const std::size_t i = next.fetch_add(1);
            if (i >= cands.size()) break;
            const Knobs& k = cands[i];
            const std::string& fw = fws[k.fw];
            evaluated.fetch_add(1, std::memory_order_relaxed);
            set_layout(p.layout, k, fw, req.base.layout);
            p.training.micro_batch_size = k.mbs;
            try {
                const Config c = make_config(p.model, p.training, p.layout, req.hardware, world);
                valid.fetch_add(1, std::memory_order_relaxed);
                // Memory first, as evaluate() counts it with the closed form's in-flight microbatches
                // (which need no step time): most layouts of a search do not fit, and those need no time.
                if (!estimate_memory(shapes, c, req.hardware, closed_form_inflight(c)).fits) continue;
                // Closed-form pipeline term (no PipelineFn), fast over every candidate;
                // estimate_project() runs the schedule simulator for a single project.
                const Estimate e = evaluate(p.model, shapes, c, req.hardware);
                if (!e.memory.fits) continue;
                fitting.fetch_add(1, std::memory_order_relaxed);
                local.push_back(
                    {i, e.time.step_s, e.time.mfu, e.time.hfu, e.memory.peak_bytes / kGiB, e.time.tokens_per_s});
            } catch (const InputError&) {
                continue;
            }
            if (progress && (i % 1024) == 0) {
                std::lock_guard<std::mutex> g(progress_mu);
                progress((long long)i, total);
            }
        }
        std::lock_guard<std::mutex> g(mu);
        scored.insert(scored.end(), local.begin(), local.end());
    };
    std::vector<std::thread> pool;
    for (unsigned i = 1; i < n_threads; ++i) pool.emplace_back(worker);
    worker();
    for (auto& th : pool) th.join();
    if (progress) progress(total, total);

    auto cancelled = [&] { return cancel && cancel->load(std::memory_order_relaxed); };
    res.evaluated = evaluated;
    res.valid = valid;
    res.fitting = fitting;
    // A cancelled search is incomplete: it returns its counts and no layouts, without the
    // rule pass or the refinement (each can take a second at 16,384 ranks).
    auto finish_cancelled = [&]() {
        res.cancelled = true;
        res.results.clear();
        res.pareto.clear();
        res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return res;
    };
    if (cancelled()) return finish_cancelled();

    auto key_time = [](const Scored& a, const Scored& b) {
        return a.step_s != b.step_s ? a.step_s < b.step_s : (a.peak != b.peak ? a.peak < b.peak : a.index < b.index);
    };
    auto key_mem = [](const Scored& a, const Scored& b) {
        return a.peak != b.peak ? a.peak < b.peak : (a.step_s != b.step_s ? a.step_s < b.step_s : a.index < b.index);
    };
    auto entry = [&](const Scored& s) {
        PlanEntry e;
        e.layout = to_layout(cands[s.index], fws[cands[s.index].fw], req.base.layout);
        e.micro_batch_size = cands[s.index].mbs;
        e.dp = cands[s.index].dp;
        e.step_s = s.step_s;
        e.mfu = s.mfu;
        e.hfu = s.hfu;
        e.peak_gib = s.peak;
        e.tokens_per_s = s.tps;
        return e;
    };
    // The frameworks' full rules (rules/validate, which builds the rank map) cost far more
    // than an estimate, so they run only on the layouts that could be returned: in rank
    // order until `top` pass, and on the Pareto candidates.
    Project vp = req.base;
    long long rejected = 0;
    std::vector<char> checked(cands.size(), 0), ok(cands.size(), 1);
    auto passes = [&](const Scored& s) {
        if (!req.use_rules) return true;
        if (!checked[s.index]) {
            if (cancelled()) return false;
            checked[s.index] = 1;
            vp.layout = to_layout(cands[s.index], fws[cands[s.index].fw], req.base.layout);
            vp.training.micro_batch_size = cands[s.index].mbs;
            ok[s.index] = has_errors(validate(vp)) ? 0 : 1;
            rejected += ok[s.index] ? 0 : 1;
        }
        return ok[s.index] != 0;
    };
    // Pareto front over (step time, peak memory): sort by time, keep strictly decreasing memory.
    std::sort(scored.begin(), scored.end(), key_time);
    double best_mem = 1e300;
    for (const auto& s : scored) {
        if (cancelled()) break;
        if (s.peak < best_mem && passes(s)) {
            res.pareto.push_back(entry(s));
            best_mem = s.peak;
        }
    }
    if (req.objective == Objective::memory) std::sort(scored.begin(), scored.end(), key_mem);
    // time and throughput rank the same for a fixed cluster and batch.
    const std::size_t want = std::size_t(std::max(0, req.top));
    for (std::size_t i = 0; i < scored.size() && res.results.size() < want && !cancelled(); ++i)
        if (passes(scored[i])) res.results.push_back(entry(scored[i]));
    res.rules_checked = (long long)std::count(checked.begin(), checked.end(), char(1));
    if (cancelled()) return finish_cancelled();
    if (req.refine) refine(req, res);
    if (cancelled()) return finish_cancelled();
    res.valid -= rejected;
    res.fitting -= rejected;
    res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return res;
}

nlohmann::json to_json(const PlanEntry& e) {
    const Layout& l = e.layout;
    nlohmann::json layout = {{"framework", l.framework},
                             {"tp", l.tp},
                             {"pp", l.pp},
                             {"sp", l.sp},
                             {"sp_mode", to_string(l.sp_mode)},
                             {"cp", l.cp},
                             {"ep", l.ep},
                             {"zero_stage", l.zero_stage},
                             {"schedule", to_string(l.schedule)},
                             {"chunks", l.chunks},
                             {"num_microbatches", l.num_microbatches},
                             {"micro_batch_size", e.micro_batch_size},
                             {"dp", e.dp},
                             {"recompute", to_string(l.recompute)},
                             {"offload", to_string(l.offload)}};
    const FrameworkTraits* ft = find_traits(l.framework);
    if (ft && ft->zero == ZeroSemantics::distributed_optimizer)
        layout["distributed_optimizer"] = l.distributed_optimizer;
    if (l.peft) layout["peft"] = to_json(*l.peft);   // kept from the base project: the planner does not vary it
    return {{"layout", layout}, {"step_s", e.step_s},     {"mfu", e.mfu},
            {"hfu", e.hfu},     {"peak_gib", e.peak_gib}, {"tokens_per_s", e.tokens_per_s}};
}

nlohmann::json to_json(const PlanResult& r) {
    nlohmann::json results = nlohmann::json::array(), pareto = nlohmann::json::array();
    for (const auto& e : r.results) results.push_back(to_json(e));
    for (const auto& e : r.pareto) pareto.push_back(to_json(e));
    return {
        {"evaluated", r.evaluated},         {"valid", r.valid},         {"fitting", r.fitting}, {"seconds", r.seconds},
        {"rules_checked", r.rules_checked}, {"cancelled", r.cancelled}, {"results", results},   {"pareto", pareto}};
}

}   // namespace paraplan::search
