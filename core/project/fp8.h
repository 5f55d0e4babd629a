#pragma once
// Whether a job runs its linear layers in FP8: the one reading of the two fields that say so.
#include "project/layout.h"

namespace paraplan {

// layout.fp8, or training.precision "fp8": older files wrote bf16 with FP8 linear layers that way
// (project/migrate.h keeps reading it as such).
inline bool fp8_on(const Layout& l, const Training& t) { return l.fp8 || t.precision == Precision::fp8; }

}   // namespace paraplan
