#include "schedule/schedule.h"

namespace paraplan::schedule {

int Schedule::virtual_stage(int stage, int chunk) const {
    if (placement == Placement::V) return chunk == 0 ? stage : 2 * pp - 1 - stage;
    return chunk * pp + stage;
}

int Schedule::stage_of(int vs) const {
    if (placement == Placement::V) return vs < pp ? vs : 2 * pp - 1 - vs;
    return vs % pp;
}

int Schedule::chunk_of(int vs) const {
    if (placement == Placement::V) return vs < pp ? 0 : 1;
    return vs / pp;
}

std::size_t Schedule::op_count() const {
    std::size_t n = 0;
    for (const auto& s : stages) n += s.size();
    return n;
}

const char* kind_letter(OpKind k) {
    switch (k) {
    case OpKind::Forward: return "F";
    case OpKind::BackwardInput: return "B";
    case OpKind::BackwardWeight: return "W";
    case OpKind::FullBackward: return "B";
    }
    return "?";
}

const char* pytorch_letter(OpKind k) {
    switch (k) {
    case OpKind::Forward: return "F";
    case OpKind::BackwardInput: return "I";
    case OpKind::BackwardWeight: return "W";
    case OpKind::FullBackward: return "B";
    }
    return "?";
}

bool is_backward(OpKind k) { return k == OpKind::BackwardInput || k == OpKind::FullBackward; }

}   // namespace paraplan::schedule
