# Our own code builds with every warning as an error.
# Our code also builds with GCC (the dev preset uses clang); two GCC 12 false positives inside
# libstdc++ stay warnings there:
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

# PARAPLAN_CLAZY (scripts/test.sh turns it on; clang and Debian's clazy): clazy's Qt checks run inside
# the compiler, as the plugin it is (clazy's README, "Using the plugin"), on every source of core/,
# widgets/ and app/ while it is compiled, so the lint costs no second parse of each file. A finding is a
# warning, which -Werror makes an error. scripts/lint.sh (clazy-standalone, a file at a time) reads the
# same checks from the cache: level 0 and level 1 (level 2 is style advice: QString allocations, ...), less
#  - non-pod-global-static: the file-local tables of QString/QColor constants (view names,
#    colours) are built once at start-up on purpose;
#  - qstring-ref: it asks for QString::midRef() and the like, which Qt 6 removed (clazy 1.11
#    still checks for Qt 5's QStringRef).
set(PARAPLAN_CLAZY_CHECKS "level0,level1,no-non-pod-global-static,no-qstring-ref" CACHE STRING
    "clazy checks of the build (PARAPLAN_CLAZY) and of scripts/lint.sh")
option(PARAPLAN_CLAZY "Run clazy's checks as a compiler plugin on core/, widgets/ and app/ (clang)" OFF)
if(PARAPLAN_CLAZY)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "PARAPLAN_CLAZY needs clang (the dev preset's compiler), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  find_file(PARAPLAN_CLAZY_PLUGIN ClazyPlugin.so PATHS /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib REQUIRED)
endif()
# paraplan_clazy(<target>): the target's own sources under clazy (when PARAPLAN_CLAZY is on). Code that
# moc and uic generate is Qt's, not ours: their folders (*_autogen) are left out.
function(paraplan_clazy target)
  if(NOT PARAPLAN_CLAZY)
    return()
  endif()
  target_compile_options(${target} PRIVATE
    "SHELL:-Xclang -load -Xclang ${PARAPLAN_CLAZY_PLUGIN} -Xclang -add-plugin -Xclang clazy"
    "SHELL:-Xclang -plugin-arg-clazy -Xclang ${PARAPLAN_CLAZY_CHECKS}")
  # The plugin reads its folders to leave out from the environment only: set there, ahead of ccache.
  set(launcher "${CMAKE_COMMAND}" -E env "CLAZY_IGNORE_DIRS=.*_autogen.*" ${CMAKE_CXX_COMPILER_LAUNCHER})
  set_target_properties(${target} PROPERTIES CXX_COMPILER_LAUNCHER "${launcher}")
endfunction()
