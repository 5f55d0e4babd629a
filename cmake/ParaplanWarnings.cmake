# Our own code builds with every warning as an error.
# GCC 12 reports false -Wrestrict positives inside libstdc++'s std::string operator+
# at -O3 (GCC bug 105329); those stay warnings.
function(paraplan_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Werror
    $<$<CXX_COMPILER_ID:GNU>:-Wno-error=restrict>)
endfunction()
