# paraplan_add_tests(<folder> <library>): every tests/<folder>/tst_*.cpp becomes a
# Qt Test executable registered with CTest (offscreen, private HOME, timeout).
#
# The executables of one folder share one precompiled header (cmake/ParaplanPch.cmake: Qt Test,
# nlohmann/json, the standard library; Qt Widgets for gui/): the first one builds it, the others
# reuse it (they have the same flags and definitions, which GCC checks).
function(paraplan_add_tests folder lib)
  file(GLOB tests CONFIGURE_DEPENDS "${CMAKE_CURRENT_SOURCE_DIR}/${folder}/tst_*.cpp")
  set(pch_holder "")
  foreach(src IN LISTS tests)
    get_filename_component(name "${src}" NAME_WE)
    set(target "${folder}_${name}")
    add_executable(${target} "${src}")
    target_link_libraries(${target} PRIVATE ${lib} Qt6::Test)
    target_include_directories(${target} PRIVATE "${CMAKE_CURRENT_SOURCE_DIR}")
    target_compile_definitions(${target} PRIVATE
      PARAPLAN_SOURCE_DIR="${PROJECT_SOURCE_DIR}"
      PARAPLAN_TEST_DATA="${PROJECT_SOURCE_DIR}/tests/data"
      PARAPLAN_BINARY_DIR="${PROJECT_BINARY_DIR}")
    if(TARGET paraplan-cli)
      target_compile_definitions(${target} PRIVATE PARAPLAN_CLI="$<TARGET_FILE:paraplan-cli>")
      add_dependencies(${target} paraplan-cli)
    endif()
    if(TARGET paraplan)
      target_compile_definitions(${target} PRIVATE PARAPLAN_GUI="$<TARGET_FILE:paraplan>")
      add_dependencies(${target} paraplan)
    endif()
    paraplan_warnings(${target})
    # AUTOMOC's mocs_compilation.cpp is all but empty for a test (its class is moc'ed into the
    # tst_*.moc it includes): loading the precompiled header would be its whole cost.
    set_source_files_properties("${CMAKE_CURRENT_BINARY_DIR}/${target}_autogen/mocs_compilation.cpp"
                                PROPERTIES SKIP_PRECOMPILE_HEADERS ON)
    if(pch_holder)
      target_precompile_headers(${target} REUSE_FROM ${pch_holder})
    else()
      set(pch_holder ${target})
      if(folder STREQUAL "gui")
        paraplan_precompile(${target} <QtTest> <QtWidgets>)
      else()
        paraplan_precompile(${target} <QtTest>)
      endif()
    endif()
    set(home "${CMAKE_CURRENT_BINARY_DIR}/home/${target}")
    file(MAKE_DIRECTORY "${home}")
    add_test(NAME ${target} COMMAND ${target})
    set_tests_properties(${target} PROPERTIES
      LABELS "${folder}"
      TIMEOUT 300
      # A test function that skips because a component it needs is missing (QSKIP naming sshd,
      # Slurm, python3-torch or torchrun, ffmpeg or zsh) shows the whole test as skipped in CTest,
      # never as passed. Only the message after "Class::function(tag) " is read: a data tag such as
      # "llama3.1-70b-lora-1node/torchtitan/vpp" names an export format, not a missing component.
      SKIP_REGULAR_EXPRESSION "SKIP   : [^ \n]* [^\n]*(sshd|[Ss]lurm|python3-torch|torchrun|ffmpeg|Xvfb|openbox|zsh)"
      ENVIRONMENT "QT_QPA_PLATFORM=offscreen;HOME=${home};XDG_CONFIG_HOME=${home}/.config;XDG_DATA_HOME=${home}/.local/share;XDG_STATE_HOME=${home}/.local/state;QTEST_FUNCTION_TIMEOUT=240000")
  endforeach()
endfunction()
