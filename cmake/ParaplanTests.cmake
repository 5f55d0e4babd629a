# The sanitizers' runtime options, for a test that runs instrumented code: the dev build's
# core_tst_*_asan (core/CMakeLists.txt, PARAPLAN_SANITIZED_CORE) and every test of the asan and tsan
# presets, whose CMAKE_CXX_FLAGS instrument everything (CMakePresets.json).
set(PARAPLAN_ASAN_TEST_ENV ";ASAN_OPTIONS=detect_leaks=1:abort_on_error=1;UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1")
set(PARAPLAN_FLAGS_TEST_ENV "")
if(CMAKE_CXX_FLAGS MATCHES "-fsanitize=address")
  set(PARAPLAN_FLAGS_TEST_ENV "${PARAPLAN_ASAN_TEST_ENV}")
elseif(CMAKE_CXX_FLAGS MATCHES "-fsanitize=thread")
  # tests/tsan.supp: what ThreadSanitizer reports inside Debian's Qt, which is not built with it.
  set(PARAPLAN_FLAGS_TEST_ENV
      ";TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1:suppressions=${PROJECT_SOURCE_DIR}/tests/tsan.supp")
endif()

# paraplan_register_test(<executable> <label> <environment>): the executable as a CTest test of its
# own name (offscreen, private HOME, timeout, skips shown as skipped), with <environment> (";NAME=value...") appended.
function(paraplan_register_test exe label env)
  set(home "${CMAKE_CURRENT_BINARY_DIR}/home/${exe}")
  file(MAKE_DIRECTORY "${home}")
  add_test(NAME ${exe} COMMAND ${exe})
  set_tests_properties(${exe} PROPERTIES
    LABELS "${label}"
    TIMEOUT 300
    # A test function that skips because a component it needs is missing (QSKIP naming sshd,
    # Slurm, python3-torch or torchrun, ffmpeg or zsh) shows the whole test as skipped in CTest,
    # never as passed. Only the message after "Class::function(tag) " is read: a data tag such as
    # "llama3.1-70b-lora-1node/torchtitan/vpp" names an export format, not a missing component.
    SKIP_REGULAR_EXPRESSION "SKIP   : [^ \n]* [^\n]*(sshd|[Ss]lurm|python3-torch|torchrun|ffmpeg|Xvfb|openbox|zsh)"
    ENVIRONMENT "QT_QPA_PLATFORM=offscreen;HOME=${home};XDG_CONFIG_HOME=${home}/.config;XDG_DATA_HOME=${home}/.local/share;XDG_STATE_HOME=${home}/.local/state;QTEST_FUNCTION_TIMEOUT=240000${env}")
endfunction()

# paraplan_add_tests(<folder> <library>): every tests/<folder>/tst_*.cpp becomes a
# Qt Test executable registered with CTest (offscreen, private HOME, timeout).
#
# The executables of one folder share one precompiled header (cmake/ParaplanPch.cmake: Qt Test,
# nlohmann/json, the standard library; Qt Widgets for gui/): the first one builds it, the others
# reuse it (they have the same flags and definitions, which the compiler checks).
function(paraplan_add_tests folder lib)
  file(GLOB tests CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${folder}/tst_*.cpp")
  set(pch_holder "")
  foreach(src IN LISTS tests)
    get_filename_component(name "${src}" NAME_WE)
    set(target "${folder}_${name}")
    if(PARAPLAN_SANITIZED_CORE AND folder STREQUAL "core")
      # The test's objects, compiled once, linked twice: to paraplan_core (${target}) and to
      # paraplan_core_sanitized (${target}_asan, core/CMakeLists.txt).
      set(compiled ${target}_objects)
      add_library(${compiled} OBJECT "${src}")
      target_link_libraries(${compiled} PRIVATE Qt6::Test nlohmann_json::nlohmann_json)
      target_include_directories(${compiled} PRIVATE $<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>)
      target_compile_definitions(${compiled} PRIVATE $<TARGET_PROPERTY:${lib},INTERFACE_COMPILE_DEFINITIONS>)
      add_executable(${target} $<TARGET_OBJECTS:${compiled}>)
      add_executable(${target}_asan $<TARGET_OBJECTS:${compiled}>)
      set_target_properties(${target} ${target}_asan PROPERTIES AUTOMOC OFF AUTOUIC OFF AUTORCC OFF LINKER_LANGUAGE CXX)
      target_link_libraries(${target} PRIVATE ${lib} Qt6::Test)
      target_link_libraries(${target}_asan PRIVATE paraplan_core_sanitized Qt6::Test)
      paraplan_register_test(${target}_asan asan "${PARAPLAN_ASAN_TEST_ENV}")
    else()
      set(compiled ${target})
      add_executable(${target} "${src}")
      target_link_libraries(${target} PRIVATE ${lib} Qt6::Test)
    endif()
    target_include_directories(${compiled} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
    target_compile_definitions(${compiled} PRIVATE
      PARAPLAN_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      PARAPLAN_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data"
      PARAPLAN_BINARY_DIR="${PROJECT_BINARY_DIR}")
    if(TARGET paraplan-cli)
      target_compile_definitions(${compiled} PRIVATE PARAPLAN_CLI="$<TARGET_FILE:paraplan-cli>")
      add_dependencies(${compiled} paraplan-cli)
    endif()
    if(TARGET paraplan)
      target_compile_definitions(${compiled} PRIVATE PARAPLAN_GUI="$<TARGET_FILE:paraplan>")
      add_dependencies(${compiled} paraplan)
    endif()
    paraplan_warnings(${compiled})
    # A test's own code is compiled unoptimised: it drives the libraries (optimised as built) and
    # checks their answers, and -O0 compiles it about a third faster than the build type's -O2
    # (docs/benchmarks.md, "CI build"). Benchmarks (tests/benchmarks) keep the build type's flags.
    target_compile_options(${compiled} PRIVATE -O0)
    # AUTOMOC's mocs_compilation.cpp is all but empty for a test (its class is moc'ed into the
    # tst_*.moc it includes): loading the precompiled header would be its whole cost.
    set_source_files_properties("${CMAKE_CURRENT_BINARY_DIR}/${compiled}_autogen/mocs_compilation.cpp"
                                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    if(pch_holder)
      target_precompile_headers(${compiled} REUSE_FROM ${pch_holder})
    else()
      set(pch_holder ${compiled})
      if(folder STREQUAL "gui")
        paraplan_precompile(${compiled} <QtTest> <QtWidgets>)
      else()
        paraplan_precompile(${compiled} <QtTest>)
      endif()
    endif()
    paraplan_register_test(${target} ${folder} "${PARAPLAN_FLAGS_TEST_ENV}")
  endforeach()
endfunction()
