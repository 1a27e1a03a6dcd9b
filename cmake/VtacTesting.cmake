# vtac_add_unit_test(NAME SOURCES src... LIBS lib... [LABELS label...])
# One Catch2 executable per area, registered with CTest (one CTest entry per binary,
# so `ctest` output stays short; Catch2 prints each failing case).
add_library(vtac_catch_main STATIC ${PROJECT_SOURCE_DIR}/tests/unit/catch_main.cpp)
target_link_libraries(vtac_catch_main PUBLIC Catch2::Catch2)

function(vtac_add_unit_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE vtac_catch_main ${ARG_LIBS})
  set_target_properties(${name} PROPERTIES RUNTIME_OUTPUT_DIRECTORY ${PROJECT_BINARY_DIR}/tests)
  # -w NoAssertions: a test case (or leaf section) that asserts nothing fails instead of passing.
  add_test(NAME ${name} COMMAND ${name} -w NoAssertions)
  set_tests_properties(${name} PROPERTIES LABELS "unit;${ARG_LABELS}"
                       WORKING_DIRECTORY ${PROJECT_SOURCE_DIR})
endfunction()
