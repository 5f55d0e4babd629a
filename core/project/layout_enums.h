#pragma once
// The closed choices of a project's layout and training sections, as enums with one name table
// each: the table is the only place a value's project-file spelling lives. The project reader
// (project.cpp) parses each field once against its table, refusing an unknown name with the
// field's pointer and the allowed names; the writer, the lists in layout.h (kRecompute ...), the
// app's combos and the exporters read the names back from the same table. Here, in project/, so
// that core/estimate (config.h) uses the same types rather than a second enum per meaning.
#include <nlohmann/json.hpp>

#include <array>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

namespace paraplan {

// layout.recompute: activation checkpointing; selective recomputes attention's internals only,
// full recomputes each layer (Korthikanti et al. 2022, "Reducing Activation Recomputation").
enum class Recompute { none, selective, full };
// layout.offload: where optimizer states (and, with some frameworks, parameters) are moved.
enum class Offload { none, cpu, nvme };
// layout.loss_logits (layout.h has the meaning of each); framework is written "auto".
enum class LossLogits { framework, freed, kept, kept_fp32 };
// layout.tp_mode: ColossalAI's legacy tensor modes "1d" "2d" "2.5d" "3d".
enum class TpMode { one_d, two_d, two_and_half_d, three_d };
// layout.moe_dispatcher (estimate/config.h MoeOptions says what each moves).
enum class MoeDispatcher { alltoall, allgather, deepep };
// training.optimizer.
enum class Optimizer { adamw, adam, sgd, lion, adafactor };
// layout.sp_mode: ColossalAI's sequence-parallelism modes (v0.5.1 colossalai/shardformer/shard/
// shard_config.py SUPPORT_SP_MODE), none for off. split_gather and ring
// split the sequence over the tp group; all_to_all (DeepSpeed-Ulysses) and ring_attn split it over
// an sp axis of their own. Megatron and torchtitan read split_gather as --sequence-parallel.
enum class SpMode { none, split_gather, ring, all_to_all, ring_attn };
// layout.kernels: the kernel stack the layers run on: Transformer Engine / fused kernels (te),
// torch.compile (compile), eager PyTorch (eager); framework, written "auto", is the framework's
// default for the layout's switches (kernel_stack, layout.h, resolves it).
enum class KernelStack { framework, te, compile, eager };
// training.precision: the compute dtype; fp8 is version 1's legacy spelling of bf16 with
// layout.fp8 (project/migrate.h rewrites it in a file; a fix or the CLI can still set it).
enum class Precision { fp32, tf32, fp16, bf16, fp8 };
// layout.fp8_recipe: the scaling of the FP8 linear layers (with layout.fp8 on).
//   tensorwise: one scale per tensor from the current amax (torchao Float8Linear default,
//               TE Float8CurrentScaling, Megatron --fp8-recipe tensorwise);
//   delayed:    per-tensor scale from an amax history (TE DelayedScaling, Megatron's default);
//   rowwise:    one scale per row (torchao recipe_name = "rowwise");
//   mxfp8:      32-element blocks with E8M0 scales (Blackwell MX, TE MXFP8BlockScaling);
//   blockwise:  1x128 / 128x128 blocks (DeepSeek-V3 style, TE Float8BlockScaling).
enum class Fp8Recipe { tensorwise, delayed, rowwise, mxfp8, blockwise };
// layout.schedule: the pipeline schedule (with pp > 1), one per schedule core/schedule/ generates
// (schedule_names(): simulator_name, framework.h, maps them), plus interleaved, which names the
// framework's own interleaved 1F1B (resolved_schedule, framework.h: the estimate, the rules and the
// exporters read the resolved value).
//   interleaved_megatron:    Megatron forward_backward_pipelining_with_interleaving;
//   interleaved_colossalai:  ColossalAI InterleavedSchedule;
//   interleaved_pytorch:     PyTorch ScheduleInterleaved1F1B;
//   zb1p:                    ZB-H1 (Qi et al. 2023), one chunk (PyTorch ScheduleInterleavedZeroBubble with
//                            one stage per rank); interleaved_zb: ScheduleInterleavedZeroBubble;
//   zbv, dualpipev:          two chunks per rank in a V (ScheduleZBVZeroBubble, ScheduleDualPipeV).
enum class Schedule {
    gpipe,
    one_f_one_b,
    interleaved,
    interleaved_megatron,
    interleaved_colossalai,
    interleaved_pytorch,
    looped_bfs,
    zb1p,
    zbh2,
    interleaved_zb,
    zbv,
    dualpipev
};

template <class E>
struct EnumName {
    E value;
    const char* name;   // as project files spell it
};

// The one name table of each enum (every value once, in the order lists and combos show them)
// and the field it is read from, for messages.
template <class E>
struct EnumNames;

template <>
struct EnumNames<Recompute> {
    static constexpr const char* field = "recompute";
    static constexpr std::array<EnumName<Recompute>, 3> table{
        {{Recompute::none, "none"}, {Recompute::selective, "selective"}, {Recompute::full, "full"}}};
};
template <>
struct EnumNames<Offload> {
    static constexpr const char* field = "offload";
    static constexpr std::array<EnumName<Offload>, 3> table{
        {{Offload::none, "none"}, {Offload::cpu, "cpu"}, {Offload::nvme, "nvme"}}};
};
template <>
struct EnumNames<LossLogits> {
    static constexpr const char* field = "loss_logits";
    static constexpr std::array<EnumName<LossLogits>, 4> table{{{LossLogits::framework, "auto"},
                                                                {LossLogits::freed, "freed"},
                                                                {LossLogits::kept, "kept"},
                                                                {LossLogits::kept_fp32, "kept_fp32"}}};
};
template <>
struct EnumNames<TpMode> {
    static constexpr const char* field = "tp_mode";
    static constexpr std::array<EnumName<TpMode>, 4> table{
        {{TpMode::one_d, "1d"}, {TpMode::two_d, "2d"}, {TpMode::two_and_half_d, "2.5d"}, {TpMode::three_d, "3d"}}};
};
template <>
struct EnumNames<MoeDispatcher> {
    static constexpr const char* field = "moe_dispatcher";
    static constexpr std::array<EnumName<MoeDispatcher>, 3> table{{{MoeDispatcher::alltoall, "alltoall"},
                                                                   {MoeDispatcher::allgather, "allgather"},
                                                                   {MoeDispatcher::deepep, "deepep"}}};
};
template <>
struct EnumNames<Optimizer> {
    static constexpr const char* field = "optimizer";
    static constexpr std::array<EnumName<Optimizer>, 5> table{{{Optimizer::adamw, "adamw"},
                                                               {Optimizer::adam, "adam"},
                                                               {Optimizer::sgd, "sgd"},
                                                               {Optimizer::lion, "lion"},
                                                               {Optimizer::adafactor, "adafactor"}}};
};

template <>
struct EnumNames<SpMode> {
    static constexpr const char* field = "sp_mode";
    static constexpr std::array<EnumName<SpMode>, 5> table{{{SpMode::none, "none"},
                                                            {SpMode::split_gather, "split_gather"},
                                                            {SpMode::ring, "ring"},
                                                            {SpMode::all_to_all, "all_to_all"},
                                                            {SpMode::ring_attn, "ring_attn"}}};
};
template <>
struct EnumNames<KernelStack> {
    static constexpr const char* field = "kernels";
    static constexpr std::array<EnumName<KernelStack>, 4> table{{{KernelStack::framework, "auto"},
                                                                 {KernelStack::te, "te"},
                                                                 {KernelStack::compile, "compile"},
                                                                 {KernelStack::eager, "eager"}}};
};
template <>
struct EnumNames<Precision> {
    static constexpr const char* field = "precision";
    static constexpr std::array<EnumName<Precision>, 5> table{{{Precision::fp32, "fp32"},
                                                               {Precision::tf32, "tf32"},
                                                               {Precision::fp16, "fp16"},
                                                               {Precision::bf16, "bf16"},
                                                               {Precision::fp8, "fp8"}}};
};

template <>
struct EnumNames<Fp8Recipe> {
    static constexpr const char* field = "fp8_recipe";
    static constexpr std::array<EnumName<Fp8Recipe>, 5> table{{{Fp8Recipe::tensorwise, "tensorwise"},
                                                               {Fp8Recipe::delayed, "delayed"},
                                                               {Fp8Recipe::rowwise, "rowwise"},
                                                               {Fp8Recipe::mxfp8, "mxfp8"},
                                                               {Fp8Recipe::blockwise, "blockwise"}}};
};

template <>
struct EnumNames<Schedule> {
    static constexpr const char* field = "schedule";
    static constexpr std::array<EnumName<Schedule>, 12> table{
        {{Schedule::gpipe, "gpipe"},
         {Schedule::one_f_one_b, "1f1b"},
         {Schedule::interleaved, "interleaved"},
         {Schedule::interleaved_megatron, "interleaved-megatron"},
         {Schedule::interleaved_colossalai, "interleaved-colossalai"},
         {Schedule::interleaved_pytorch, "interleaved-pytorch"},
         {Schedule::looped_bfs, "looped-bfs"},
         {Schedule::zb1p, "zb1p"},
         {Schedule::zbh2, "zbh2"},
         {Schedule::interleaved_zb, "interleaved-zb"},
         {Schedule::zbv, "zbv"},
         {Schedule::dualpipev, "dualpipev"}}};
};

// Other names project files and imported configs give a schedule, each with the value it reads as:
// the frameworks' and papers' own (PipeDream-flush, VPP, ZB-H1, ZBVZeroBubble, DualPipe ...). Written
// lower case without '-', '_' or ' ', which parse_schedule ignores.
struct ScheduleAlias {
    const char* name;
    Schedule value;
};
inline constexpr ScheduleAlias kScheduleAliases[] = {
    {"pipedreamflush", Schedule::one_f_one_b},
    {"onefoneb", Schedule::one_f_one_b},
    {"interleaved1f1b", Schedule::interleaved},
    {"vpp", Schedule::interleaved},
    {"looped", Schedule::interleaved},
    {"zbh1", Schedule::zb1p},
    {"zerobubble", Schedule::zb1p},
    {"interleavedzerobubble", Schedule::interleaved_zb},
    {"zbvzerobubble", Schedule::zbv},
    {"zbvzb", Schedule::zbv},
    {"zerobubblev", Schedule::zbv},
    {"dualpipe", Schedule::dualpipev},
};

// A schedule by any of its names: a table name, or (case, '-', '_' and ' ' ignored) a table name
// or an alias; nullopt for any other. The project reader reads layout.schedule with it and saves the
// table name (to_string).
std::optional<Schedule> parse_schedule(std::string_view name);

// The sp modes with an sp axis of their own (ColossalAI sp_size), and those that reuse the tp
// group (v0.5.1 booster/plugin/hybrid_parallel_plugin.py HybridParallelPlugin.__init__: sp_size
// is tp_size for split_gather and ring).
constexpr bool sp_axis_mode(SpMode m) { return m == SpMode::all_to_all || m == SpMode::ring_attn; }
constexpr bool sp_tp_mode(SpMode m) { return m == SpMode::split_gather || m == SpMode::ring; }

template <class E>
concept NamedEnum = requires {
    EnumNames<E>::table;
};

// The value's name ("" for a value outside the table, which a cast alone can make).
template <NamedEnum E>
constexpr const char* to_string(E v) {
    for (const auto& e : EnumNames<E>::table)
        if (e.value == v) return e.name;
    return "";
}

// The value a name stands for; nullopt for a name outside the table (exact spelling only).
template <NamedEnum E>
constexpr std::optional<E> parse_enum(std::string_view name) {
    for (const auto& e : EnumNames<E>::table)
        if (name == e.name) return e.value;
    return std::nullopt;
}

// The value a name read from a file, a fix or a command line stands for: the table's exact name, and
// for a schedule also its other names (parse_schedule). Every reader of a typed field uses it (the
// project reader's one_of_enum, from_json), so an enum with aliases has them everywhere at once.
template <NamedEnum E>
std::optional<E> read_enum_name(std::string_view name) {
    if constexpr (std::is_same_v<E, Schedule>) return parse_schedule(name);
    else return parse_enum<E>(name);
}

// Every name of the table, in its order (layout.h's kRecompute ... are these).
template <NamedEnum E>
std::vector<std::string> enum_names() {
    std::vector<std::string> out;
    for (const auto& e : EnumNames<E>::table) out.emplace_back(e.name);
    return out;
}

// Every value of the table, in its order.
template <NamedEnum E>
std::vector<E> enum_values() {
    std::vector<E> out;
    for (const auto& e : EnumNames<E>::table) out.push_back(e.value);
    return out;
}

// "\"none\", \"selective\", \"full\"": the allowed names, for messages.
template <NamedEnum E>
std::string quoted_enum_names() {
    std::string s;
    for (const auto& e : EnumNames<E>::table) s += (s.empty() ? "\"" : ", \"") + std::string(e.name) + "\"";
    return s;
}

// The value a JSON name stands for; anything else is refused with std::invalid_argument
// "<where>: expected one of <the allowed names>, got <the JSON>".
template <NamedEnum E>
E enum_from_json(const nlohmann::json& j, const std::string& where) {
    const auto parsed = j.is_string() ? read_enum_name<E>(j.get_ref<const std::string&>()) : std::nullopt;
    if (!parsed)
        throw std::invalid_argument(where + ": expected one of " + quoted_enum_names<E>() + ", got " + j.dump());
    return *parsed;
}

// JSON: the value's name. Reading refuses a name outside the table naming the field and the
// allowed names (the project reader refuses with the pointer first).
template <NamedEnum E>
void to_json(nlohmann::json& j, E v) {
    j = to_string(v);
}
template <NamedEnum E>
void from_json(const nlohmann::json& j, E& v) {
    v = enum_from_json<E>(j, EnumNames<E>::field);
}

}   // namespace paraplan
