// The typed layout choices (project/layout_enums.h): every value of each enum has one name in its
// table, the names are the project-file spellings Paraplan has always written, parse(name(v)) is
// v, the lists layout.h gives the combos are the tables' names, and a name outside a table is
// refused where the project is read, naming the field's pointer, the value and the allowed names.
#include "project/framework.h"
#include "project/layout.h"
#include "project/layout_enums.h"
#include "project/project.h"
#include "rules/apply_fix.h"
#include "util/input_error.h"

#include <QtTest>

#include <set>
#include <string>
#include <vector>

using namespace paraplan;
using nlohmann::json;

namespace {

// The spellings project files have used for each value, written apart from the tables. A switch
// with no default: the build (-Wswitch, -Werror) stops here when a value is added to an enum
// without a name being decided for it, so "every value" below is every value.
const char* spelled(Recompute v) {
    switch (v) {
    case Recompute::none: return "none";
    case Recompute::selective: return "selective";
    case Recompute::full: return "full";
    }
    return nullptr;
}
const char* spelled(Offload v) {
    switch (v) {
    case Offload::none: return "none";
    case Offload::cpu: return "cpu";
    case Offload::nvme: return "nvme";
    }
    return nullptr;
}
const char* spelled(LossLogits v) {
    switch (v) {
    case LossLogits::framework: return "auto";
    case LossLogits::freed: return "freed";
    case LossLogits::kept: return "kept";
    case LossLogits::kept_fp32: return "kept_fp32";
    }
    return nullptr;
}
const char* spelled(TpMode v) {
    switch (v) {
    case TpMode::one_d: return "1d";
    case TpMode::two_d: return "2d";
    case TpMode::two_and_half_d: return "2.5d";
    case TpMode::three_d: return "3d";
    }
    return nullptr;
}
const char* spelled(MoeDispatcher v) {
    switch (v) {
    case MoeDispatcher::alltoall: return "alltoall";
    case MoeDispatcher::allgather: return "allgather";
    case MoeDispatcher::deepep: return "deepep";
    }
    return nullptr;
}
const char* spelled(Optimizer v) {
    switch (v) {
    case Optimizer::adamw: return "adamw";
    case Optimizer::adam: return "adam";
    case Optimizer::sgd: return "sgd";
    case Optimizer::lion: return "lion";
    case Optimizer::adafactor: return "adafactor";
    }
    return nullptr;
}
const char* spelled(SpMode v) {
    switch (v) {
    case SpMode::none: return "none";
    case SpMode::split_gather: return "split_gather";
    case SpMode::ring: return "ring";
    case SpMode::all_to_all: return "all_to_all";
    case SpMode::ring_attn: return "ring_attn";
    }
    return nullptr;
}
const char* spelled(KernelStack v) {
    switch (v) {
    case KernelStack::framework: return "auto";
    case KernelStack::te: return "te";
    case KernelStack::compile: return "compile";
    case KernelStack::eager: return "eager";
    }
    return nullptr;
}
const char* spelled(Precision v) {
    switch (v) {
    case Precision::fp32: return "fp32";
    case Precision::tf32: return "tf32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
    case Precision::fp8: return "fp8";
    }
    return nullptr;
}
const char* spelled(Fp8Recipe v) {
    switch (v) {
    case Fp8Recipe::tensorwise: return "tensorwise";
    case Fp8Recipe::delayed: return "delayed";
    case Fp8Recipe::rowwise: return "rowwise";
    case Fp8Recipe::mxfp8: return "mxfp8";
    case Fp8Recipe::blockwise: return "blockwise";
    }
    return nullptr;
}

const char* spelled(Schedule v) {
    switch (v) {
    case Schedule::gpipe: return "gpipe";
    case Schedule::one_f_one_b: return "1f1b";
    case Schedule::interleaved: return "interleaved";
    case Schedule::interleaved_megatron: return "interleaved-megatron";
    case Schedule::interleaved_colossalai: return "interleaved-colossalai";
    case Schedule::interleaved_pytorch: return "interleaved-pytorch";
    case Schedule::looped_bfs: return "looped-bfs";
    case Schedule::zb1p: return "zb1p";
    case Schedule::zbh2: return "zbh2";
    case Schedule::interleaved_zb: return "interleaved-zb";
    case Schedule::zbv: return "zbv";
    case Schedule::dualpipev: return "dualpipev";
    }
    return nullptr;
}

// Every value of E from 0 up to `last`, the enum's last enumerator (the enums are dense from 0).
template <class E>
std::vector<E> values_up_to(E last) {
    std::vector<E> out;
    for (int i = 0; i <= static_cast<int>(last); ++i) out.push_back(static_cast<E>(i));
    return out;
}

// The table of E: one entry per value, names distinct and as spelt, parse(name(v)) == v.
template <class E>
void check_table(E last) {
    const std::vector<E> values = values_up_to(last);
    QCOMPARE(EnumNames<E>::table.size(), values.size());
    std::set<std::string> names;
    for (const E v : values) {
        const std::string name = to_string(v);
        QVERIFY2(spelled(v) != nullptr && name == spelled(v), (std::string(EnumNames<E>::field) + ": " + name).c_str());
        QVERIFY2(names.insert(name).second, ("a name twice: " + name).c_str());
        QCOMPARE(parse_enum<E>(name), std::optional<E>(v));
        QCOMPARE(json(v), json(name));
        QCOMPARE(json(name).get<E>(), v);
    }
    const std::vector<std::string> listed = enum_names<E>();
    QCOMPARE(std::set<std::string>(listed.begin(), listed.end()), names);
    QCOMPARE(listed.size(), names.size());
    QVERIFY(!parse_enum<E>("no-such-value"));
    QVERIFY(!parse_enum<E>(""));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, json("no-such-value").get<E>());
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, json(1).get<E>());   // never read as the integer
}

const char* kProject = R"({
  "paraplan": 1,
  "name": "typed",
  "cluster": {"gpu": "h100-sxm", "nodes": 1, "gpus_per_node": 8},
  "model": {"preset": "llama3.1-8b"},
  "training": {"global_batch_size": 8, "micro_batch_size": 1, "seq_len": 2048},
  "layout": {"framework": "colossalai", "tp": 2, "pp": 1}
})";

// Where each field lives in a project file.
bool in_training(const std::string& field) { return field == "optimizer" || field == "precision"; }
std::string pointer_of(const std::string& field) { return (in_training(field) ? "/training/" : "/layout/") + field; }
json& section_of(json& j, const std::string& field) { return j[in_training(field) ? "training" : "layout"]; }

// A project naming `value` for `field` is refused at the field's pointer, naming the value and
// every allowed name.
template <class E>
void check_refused(const json& value) {
    const std::string field = EnumNames<E>::field;
    json j = json::parse(kProject);
    section_of(j, field)[field] = value;
    try {
        project_from_json(j);
        QFAIL(("expected an InputError for " + field + " = " + value.dump()).c_str());
    } catch (const InputError& e) {
        QCOMPARE(e.pointer(), pointer_of(field));
        const std::string msg = e.message();
        QVERIFY2(msg.find(value.dump()) != std::string::npos, msg.c_str());
        for (const auto& name : enum_names<E>())
            QVERIFY2(msg.find("\"" + name + "\"") != std::string::npos, (msg + " lacks " + name).c_str());
    }
}

// Each value read from a project file, saved under the same name, read back equal; the default
// value of a field written only when it differs from the default is still left out. `legacy`, a
// value a file spells in a form migrate.h rewrites, is checked apart (precisionFp8IsLegacy).
template <class E>
void check_round_trip(E def, bool default_written, E Layout::*lf, E Training::*tf, std::optional<E> legacy = {}) {
    const std::string field = EnumNames<E>::field;
    for (const auto& e : EnumNames<E>::table) {
        if (legacy == e.value) continue;
        json j = json::parse(kProject);
        section_of(j, field)[field] = e.name;
        const Project p = project_from_json(j);
        QCOMPARE(lf ? p.layout.*lf : p.training.*tf, e.value);
        const json saved = project_to_json(p);
        const json& sec = saved.at(in_training(field) ? "training" : "layout");
        if (e.value == def && !default_written) {
            QVERIFY2(!sec.contains(field), field.c_str());
        } else {
            QCOMPARE(sec.at(field), json(e.name));
        }
        QVERIFY(project_from_json(saved) == p);
        // A fix names the field the same way (rules/apply_fix.h; no rule changes loss_logits).
        if (field == "loss_logits") continue;
        Project q = p;
        set_field(q, pointer_of(field), e.name);
        QCOMPARE(get_field(q, pointer_of(field)), json(e.name));
    }
}

}   // namespace

class TestLayoutEnums : public QObject {
    Q_OBJECT
private slots:
    void everyValueHasOneNameAndRoundTrips() {
        check_table(Recompute::full);
        check_table(Offload::nvme);
        check_table(LossLogits::kept_fp32);
        check_table(TpMode::three_d);
        check_table(MoeDispatcher::deepep);
        check_table(Optimizer::adafactor);
        check_table(SpMode::ring_attn);
        check_table(Precision::fp8);
        check_table(KernelStack::eager);
        check_table(Fp8Recipe::blockwise);
        check_table(Schedule::dualpipev);
    }

    // layout.schedule also reads the other names a schedule goes by (kScheduleAliases), with case,
    // '-', '_' and ' ' ignored, and saves the table's name; "interleaved" is each framework's own.
    void scheduleAliasesAndFrameworks() {
        const std::pair<const char*, Schedule> read[] = {{"vpp", Schedule::interleaved},
                                                         {"Interleaved_1F1B", Schedule::interleaved},
                                                         {"PipeDream-Flush", Schedule::one_f_one_b},
                                                         {"zbh1", Schedule::zb1p},
                                                         {"ZB-H1", Schedule::zb1p},
                                                         {"ZBVZeroBubble", Schedule::zbv},
                                                         {"dualpipe", Schedule::dualpipev},
                                                         {"interleaved_megatron", Schedule::interleaved_megatron},
                                                         {"InterleavedZeroBubble", Schedule::interleaved_zb}};
        for (const auto& [name, value] : read) {
            QCOMPARE(parse_schedule(name), std::optional<Schedule>(value));
            json j = json::parse(kProject);
            j["layout"]["schedule"] = name;
            const Project p = project_from_json(j);
            QCOMPARE(p.layout.schedule, value);
            QCOMPARE(project_to_json(p)["layout"]["schedule"], json(to_string(value)));
            QCOMPARE(json(name).get<Schedule>(), value);   // a fix's value reads the same way
        }
        for (const auto& a : kScheduleAliases) QVERIFY2(!parse_enum<Schedule>(a.name), a.name);   // no alias is a name
        for (const char* bad : {"zb2p", "pipedream-2bw", "", "1f1b1"}) QVERIFY2(!parse_schedule(bad), bad);
        QCOMPARE(resolved_schedule(Schedule::interleaved, "colossalai"), Schedule::interleaved_colossalai);
        QCOMPARE(resolved_schedule(Schedule::interleaved, "megatron"), Schedule::interleaved_megatron);
        QCOMPARE(resolved_schedule(Schedule::interleaved, "torchtitan"), Schedule::interleaved_pytorch);
        QCOMPARE(resolved_schedule(Schedule::zbv, "megatron"), Schedule::zbv);
        QVERIFY(runs_schedule("colossalai", Schedule::interleaved_colossalai));
        QVERIFY(!runs_schedule("colossalai", Schedule::interleaved_megatron));
        QVERIFY(runs_schedule("megatron", Schedule::interleaved_megatron));
        QVERIFY(!runs_schedule("deepspeed", Schedule::zbv));
        // Each framework's interleaved is one of the three interleaved 1F1B schedules.
        for (const auto& t : framework_table())
            QVERIFY2(is_interleaved_1f1b(t.interleaved) && t.interleaved != Schedule::interleaved, t.name);
    }

    // layout.h's lists, which the app's combos show, are the tables' names in their order.
    void listsComeFromTheTables() {
        QCOMPARE(kRecompute, (std::vector<std::string>{"none", "selective", "full"}));
        QCOMPARE(kOffload, (std::vector<std::string>{"none", "cpu", "nvme"}));
        QCOMPARE(kOptimizers, (std::vector<std::string>{"adamw", "adam", "sgd", "lion", "adafactor"}));
        QCOMPARE(kLossLogits, (std::vector<std::string>{"auto", "freed", "kept", "kept_fp32"}));
        QCOMPARE(kTpModes, (std::vector<std::string>{"1d", "2d", "2.5d", "3d"}));
        QCOMPARE(kMoeDispatchers, (std::vector<std::string>{"alltoall", "allgather", "deepep"}));
        QCOMPARE(kSpModes, (std::vector<std::string>{"none", "split_gather", "ring", "all_to_all", "ring_attn"}));
        QCOMPARE(kPrecisions, (std::vector<std::string>{"fp32", "tf32", "fp16", "bf16", "fp8"}));
        QCOMPARE(kRecompute, enum_names<Recompute>());
        QCOMPARE(kOptimizers, enum_names<Optimizer>());
        QCOMPARE(kSpModes, enum_names<SpMode>());
        QCOMPARE(kPrecisions, enum_names<Precision>());
        QCOMPARE(kKernelStacks, (std::vector<std::string>{"auto", "te", "compile", "eager"}));
        QCOMPARE(kKernelStacks, enum_names<KernelStack>());
        QCOMPARE(kFp8Recipes, (std::vector<std::string>{"tensorwise", "delayed", "rowwise", "mxfp8", "blockwise"}));
        QCOMPARE(kFp8Recipes, enum_names<Fp8Recipe>());
        QCOMPARE(enum_values<Fp8Recipe>(), values_up_to(Fp8Recipe::blockwise));
    }

    // The sp modes other than none either have an sp axis of their own (all_to_all, ring_attn) or
    // reuse the tp group (split_gather, ring), never both; and each framework's accepted modes
    // (FrameworkTraits::sp_modes) are named values, none among them, each once.
    void spModeKindsAndFrameworkLists() {
        for (const SpMode m : values_up_to(SpMode::ring_attn)) {
            const std::string name = to_string(m);
            QCOMPARE(sp_axis_mode(m), name == "all_to_all" || name == "ring_attn");
            QCOMPARE(sp_tp_mode(m), name == "split_gather" || name == "ring");
        }
        for (const auto& t : framework_table()) {
            QVERIFY2(!t.sp_modes.empty() && t.sp_modes.front() == SpMode::none, t.name);
            std::set<std::string> seen;
            for (const SpMode m : t.sp_modes) {
                QVERIFY2(*to_string(m) != '\0', t.name);
                QVERIFY2(seen.insert(to_string(m)).second, t.name);
            }
        }
    }

    void defaultsAreTheOldDefaults() {
        const Project p = project_from_json(json::parse(kProject));
        QCOMPARE(p.layout.recompute, Recompute::none);
        QCOMPARE(p.layout.offload, Offload::none);
        QCOMPARE(p.layout.loss_logits, LossLogits::framework);
        QCOMPARE(p.layout.tp_mode, TpMode::one_d);
        QCOMPARE(p.layout.moe_dispatcher, MoeDispatcher::alltoall);
        QCOMPARE(p.training.optimizer, Optimizer::adamw);
        QCOMPARE(p.layout.sp_mode, SpMode::none);
        QCOMPARE(p.training.precision, Precision::bf16);
        QCOMPARE(p.layout.fp8_recipe, Fp8Recipe::tensorwise);
    }

    void projectFileRoundTrip() {
        check_round_trip<Recompute>(Recompute::none, true, &Layout::recompute, nullptr);
        check_round_trip<Offload>(Offload::none, true, &Layout::offload, nullptr);
        check_round_trip<LossLogits>(LossLogits::framework, false, &Layout::loss_logits, nullptr);
        check_round_trip<TpMode>(TpMode::one_d, false, &Layout::tp_mode, nullptr);
        check_round_trip<MoeDispatcher>(MoeDispatcher::alltoall, false, &Layout::moe_dispatcher, nullptr);
        check_round_trip<Optimizer>(Optimizer::adamw, true, nullptr, &Training::optimizer);
        check_round_trip<SpMode>(SpMode::none, true, &Layout::sp_mode, nullptr);
        check_round_trip<Precision>(Precision::bf16, true, nullptr, &Training::precision, Precision::fp8);
        check_round_trip<KernelStack>(KernelStack::framework, false, &Layout::kernels, nullptr);
        check_round_trip<Fp8Recipe>(Fp8Recipe::tensorwise, false, &Layout::fp8_recipe, nullptr);
        check_round_trip<Schedule>(Schedule::one_f_one_b, true, &Layout::schedule, nullptr);
    }

    // training.precision "fp8" in a file is version 1's legacy spelling (project/migrate.h): read
    // as bf16 with layout.fp8 on, saved as "bf16". A fix still sets the value fp8 by its name.
    void precisionFp8IsLegacy() {
        json j = json::parse(kProject);
        j["training"]["precision"] = "fp8";
        const Project p = project_from_json(j);
        QCOMPARE(p.training.precision, Precision::bf16);
        QVERIFY(p.layout.fp8);
        QCOMPARE(project_to_json(p)["training"]["precision"], json("bf16"));
        Project q = p;
        set_field(q, "/training/precision", "fp8");
        QCOMPARE(q.training.precision, Precision::fp8);
        QCOMPARE(get_field(q, "/training/precision"), json("fp8"));
    }

    void unknownValueNamesFieldValueAndAllowed() {
        check_refused<Recompute>("partial");
        check_refused<Offload>("disk");
        check_refused<LossLogits>("dropped");
        check_refused<TpMode>("4d");
        check_refused<MoeDispatcher>("flex");
        check_refused<Optimizer>("muon");
        check_refused<SpMode>("zigzag");
        check_refused<Precision>("fp4");
        check_refused<KernelStack>("inductor");
        check_refused<Fp8Recipe>("nvfp4");
        check_refused<Schedule>("zb2p");
        check_refused<Schedule>(1);
        check_refused<Fp8Recipe>("Rowwise");
        check_refused<Precision>("BF16");
        check_refused<SpMode>(2);
        // Case matters: the names are read as written.
        check_refused<Recompute>("Full");
        // A value of the wrong type is refused the same way.
        check_refused<Offload>(true);
        check_refused<Optimizer>(3);
    }

    void fixWithAnUnknownValueIsRefused() {
        Project p = project_from_json(json::parse(kProject));
        try {
            set_field(p, "/layout/recompute", "partial");
            QFAIL("expected std::invalid_argument");
        } catch (const std::invalid_argument& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.starts_with("/layout/recompute: expected one of \"none\", \"selective\", \"full\""),
                     msg.c_str());
            QVERIFY2(msg.find("\"partial\"") != std::string::npos, msg.c_str());
        }
        QCOMPARE(p.layout.recompute, Recompute::none);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, set_field(p, "/training/optimizer", 2));
        try {
            set_field(p, "/layout/sp_mode", "ulysses");
            QFAIL("expected std::invalid_argument");
        } catch (const std::invalid_argument& e) {
            const std::string msg = e.what();
            QVERIFY2(msg.starts_with("/layout/sp_mode: expected one of \"none\", \"split_gather\", \"ring\", "
                                     "\"all_to_all\", \"ring_attn\""),
                     msg.c_str());
            QVERIFY2(msg.find("\"ulysses\"") != std::string::npos, msg.c_str());
        }
        QCOMPARE(p.layout.sp_mode, SpMode::none);
        QVERIFY_THROWS_EXCEPTION(std::invalid_argument, set_field(p, "/training/precision", "int8"));
        QCOMPARE(p.training.precision, Precision::bf16);
    }
};

QTEST_APPLESS_MAIN(TestLayoutEnums)
#include "tst_layout_enums.moc"
