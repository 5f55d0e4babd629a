#pragma once
// Checks a whole project against the rules of its framework. Diagnostics come in
// the order the framework itself checks them.
#include "project/project.h"
#include "util/diagnostic.h"

#include <vector>

namespace paraplan {

std::vector<Diagnostic> validate(const Project& p);

}   // namespace paraplan
