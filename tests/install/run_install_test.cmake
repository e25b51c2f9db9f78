# Installs the build tree into a temporary prefix, then configures, builds and runs tests/install/app
# against it. Arguments: -DBUILD_DIR= -DSOURCE_DIR= -DWORK_DIR=
file(REMOVE_RECURSE ${WORK_DIR})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD_DIR} --prefix ${WORK_DIR}/prefix
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SOURCE_DIR}/tests/install/app -B ${WORK_DIR}/app -G Ninja
                        -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${WORK_DIR}/prefix
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "configuring the out-of-tree app failed: ${rc}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${WORK_DIR}/app RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the out-of-tree app failed: ${rc}")
endif()
# The app compiles its kernel with the installed compiler module (the prefix was chosen here, so
# it is named explicitly; a default install finds it where the build baked in CMAKE_INSTALL_LIBDIR).
file(GLOB module ${WORK_DIR}/prefix/lib*/libpto_compiler.so)
if(NOT module)
  message(FATAL_ERROR "the install has no lib/libpto_compiler.so")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E env PTO_COMPILER_MODULE=${module} ${WORK_DIR}/app/app RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the out-of-tree app failed: ${rc}")
endif()
# The app links no LLVM: only the module does.
execute_process(COMMAND ldd ${WORK_DIR}/app/app OUTPUT_VARIABLE deps)
if(deps MATCHES "libLLVM")
  message(FATAL_ERROR "the out-of-tree app links LLVM:\n${deps}")
endif()
