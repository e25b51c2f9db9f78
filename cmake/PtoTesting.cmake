# pto_add_test(NAME SOURCES ... [LABELS ...] [LIBS ...])
# One doctest executable, registered as one ctest with the given labels (default: unit).
function(pto_add_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;LABELS;LIBS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE pto::pto pto_test_main pto_warnings ${ARG_LIBS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/tests)
  add_test(NAME ${name} COMMAND ${name})
  if(NOT ARG_LABELS)
    set(ARG_LABELS unit)
  endif()
  # Tests compile what they run: the persistent disk cache is off unless a test turns it on.
  set_tests_properties(${name} PROPERTIES LABELS "${ARG_LABELS}" TIMEOUT 600 ENVIRONMENT "PTO_CACHE_DIR=off")
endfunction()
