add_library(pto_warnings INTERFACE)
target_compile_options(pto_warnings INTERFACE -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers)
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
  # GCC 12 reports std::string copies inlined at -O3 as overlapping (GCC bug 105329): a false
  # positive in the standard library, not in this code.
  target_compile_options(pto_warnings INTERFACE -Wno-restrict)
endif()
if(PTO_WARNINGS_AS_ERRORS)
  target_compile_options(pto_warnings INTERFACE -Werror)
endif()
