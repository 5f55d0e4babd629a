#pragma once
// Divisibility predicates shared by the rules (which explain a failure and search fixes) and
// the planner (which prunes its enumeration with them): one statement of each condition.
// Sources are at the rules that use them (core/rules/<framework>.cpp).
namespace paraplan::rules {

// The world splits into whole model-parallel groups.
inline bool world_splits(long long world, long long model) { return model > 0 && world % model == 0; }
// Attention heads (or query groups) split evenly over tp.
inline bool tp_splits_heads(long long heads, long long tp) { return tp > 0 && heads % tp == 0; }
// Megatron: layers (plus the embedding / loss when counted) split over pp x virtual stages.
inline bool stages_split_layers(long long layers, long long pp, long long chunks = 1) {
    return pp > 0 && chunks > 0 && layers % (pp * chunks) == 0;
}
// Context parallelism's load balancing cuts each sequence into 2 x cp chunks.
inline bool cp_splits_sequence(long long seq, long long cp) { return cp <= 1 || seq % (2 * cp) == 0; }
// Ulysses (all_to_all) sequence parallelism scatters each sequence over sp.
inline bool sp_splits_sequence(long long seq, long long sp) { return sp > 0 && seq % sp == 0; }
// The global batch is a whole number of micro x dp.
inline bool batch_splits(long long global_batch, long long micro_batch, long long dp) {
    return micro_batch > 0 && dp > 0 && global_batch % (micro_batch * dp) == 0;
}
// Interleaved and V schedules run microbatches in groups of pp.
inline bool microbatches_fill_pp_groups(long long microbatches, long long pp) {
    return pp > 0 && microbatches % pp == 0;
}

}   // namespace paraplan::rules
