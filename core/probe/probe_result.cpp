#include "probe/probe_result.h"

#include "util/input_error.h"
#include "util/json_read.h"

namespace paraplan::runtime {

using json_read::Obj;
using nlohmann::json;

namespace {

double number(const Obj& o, std::string_view key) {
    const json* v = o.get(key);
    if (!v || !v->is_number()) json_read::fail(o.at(key), "a number", v ? *v : json());
    return v->get<double>();
}

}   // namespace

int ProbeResult::failed_groups() const {
    int n = 0;
    for (const auto& g : groups) n += g.membership_ok ? 0 : 1;
    return n;
}

ProbeResult probe_result_from_json(const json& j) {
    const Obj o(j, "");
    if (o.integer("paraplan_probe", 0) != 1)
        throw InputError("/paraplan_probe", "not a Paraplan probe result (expected \"paraplan_probe\": 1)");
    ProbeResult r;
    r.ok = o.boolean("ok", false);
    r.backend = o.string("backend");
    r.world_size = o.positive_int("world_size");
    r.torch_version = o.string("torch_version", "");
    r.elapsed_s = o.has("elapsed_s") ? number(o, "elapsed_s") : 0;
    if (o.has("groups")) {
        const json& gs = o.array("groups");
        for (std::size_t i = 0; i < gs.size(); ++i) {
            const Obj g(gs[i], o.at("groups") + "/" + std::to_string(i));
            ProbeGroup pg;
            pg.kind = g.string("kind");
            pg.index = g.non_negative_int("index", 0);
            pg.ranks = g.int_list("ranks");
            pg.membership_ok = g.boolean("membership_ok", false);
            pg.allreduce_sum = g.has("allreduce_sum") ? number(g, "allreduce_sum") : 0;
            pg.expected_sum = g.has("expected_sum") ? number(g, "expected_sum") : 0;
            if (g.has("bandwidth")) {
                const json& bs = g.array("bandwidth");
                for (std::size_t k = 0; k < bs.size(); ++k) {
                    const Obj b(bs[k], g.at("bandwidth") + "/" + std::to_string(k));
                    pg.bandwidth.push_back({b.one_of("op", {"all_reduce", "all_gather"}, ""), b.int64("bytes", 0),
                                            number(b, "time_ms"), number(b, "algbw_gbps"), number(b, "busbw_gbps")});
                }
            }
            r.groups.push_back(std::move(pg));
        }
    }
    if (o.has("p2p")) {
        const json& ps = o.array("p2p");
        for (std::size_t i = 0; i < ps.size(); ++i) {
            const Obj p(ps[i], o.at("p2p") + "/" + std::to_string(i));
            r.p2p.push_back({p.non_negative_int("group", 0), p.non_negative_int("src", 0), p.non_negative_int("dst", 0),
                             p.non_negative_int("src_stage", 0), p.non_negative_int("dst_stage", 0),
                             p.int64("bytes", 0), number(p, "time_ms"), number(p, "gbps")});
        }
    }
    if (o.has("errors")) {
        const json& es = o.array("errors");
        for (std::size_t i = 0; i < es.size(); ++i) {
            if (!es[i].is_string()) json_read::fail(o.at("errors") + "/" + std::to_string(i), "a string", es[i]);
            r.errors.push_back(es[i].get<std::string>());
        }
    }
    return r;
}

ProbeResult probe_result_from_text(std::string_view text) { return probe_result_from_json(json_read::parse(text)); }

std::string find_probe_result_line(std::string_view line) {
    const std::string_view m = kProbeResultMarker;
    const auto at = line.find(m);
    if (at == std::string_view::npos) return "";
    return std::string(line.substr(at + m.size()));
}

}   // namespace paraplan::runtime
