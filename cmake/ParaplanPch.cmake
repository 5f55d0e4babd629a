# paraplan_precompile(<target> [HEADER...]): the system headers most of the target's sources
# parse, precompiled once per target (nlohmann/json, the standard library, and HEADER...).
# A header in it costs its first source nothing more and spares every other source the parse:
# docs/benchmarks.md ("Build time") has the measurement. The compiler checks that a source's flags and
# definitions match the header's; the targets that reuse one (cmake/ParaplanTests.cmake) share
# them. scripts/lint.sh gives clang's tools a compile database without it (a GCC build's .gch is not
# clang's). The fuzz preset compiles core's parsers without a precompiled header, so a source
# that forgot an include still fails there.
set(PARAPLAN_PCH_COMMON <nlohmann/json.hpp> <algorithm> <cmath> <functional> <map> <memory> <optional> <set>
    <string> <string_view> <vector>)
function(paraplan_precompile target)
  target_precompile_headers(${target} PRIVATE ${ARGN} ${PARAPLAN_PCH_COMMON})
endfunction()
