# Our own code builds with every warning as an error.
# Two GCC 12 false positives inside libstdc++ stay warnings:
#  - -Wrestrict in std::string operator+ at -O3 (GCC bug 105329);
#  - -Wmaybe-uninitialized in <regex> and <functional> when instrumented with
#    -fsanitize=address (the sanitizer's instrumentation confuses the analysis).
# paraplan_warnings(<target> [SANITIZED]): SANITIZED for a target instrumented by its own options
# (core's paraplan_core_sanitized) rather than by CMAKE_CXX_FLAGS.
function(paraplan_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror
    $<$<CXX_COMPILER_ID:GNU>:-Wno-error=restrict>)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND (CMAKE_CXX_FLAGS MATCHES "-fsanitize=" OR "${ARGN}" STREQUAL "SANITIZED"))
    target_compile_options(${target} PRIVATE -Wno-error=maybe-uninitialized)
  endif()
endfunction()
