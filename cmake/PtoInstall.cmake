# `cmake --install`: headers, libraries, the pto CLI, chip profiles and a CMake package, so another
# project can `find_package(pto)` and `target_link_libraries(app PRIVATE pto::pto)`.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

foreach(layer dsl backend runtime)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${layer}/include/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  target_include_directories(pto_${layer} PUBLIC $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
endforeach()

install(TARGETS pto_dsl pto_backend pto_runtime pto_pto pto_warnings
        EXPORT ptoTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(TARGETS pto RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# The compiler module, opened with dlopen on a process's first compile (pto/backend/Compiler.hpp):
# no installed target links it, and so no consumer links LLVM.
install(TARGETS pto_compiler LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(FILES ${CMAKE_SOURCE_DIR}/runtime/chips/a2.json ${CMAKE_SOURCE_DIR}/runtime/chips/a5.json
        DESTINATION ${CMAKE_INSTALL_DATADIR}/pto/chips)
install(EXPORT ptoTargets NAMESPACE pto:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pto)

configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/ptoConfig.cmake.in ${CMAKE_BINARY_DIR}/ptoConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pto)
write_basic_package_version_file(${CMAKE_BINARY_DIR}/ptoConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_BINARY_DIR}/ptoConfig.cmake ${CMAKE_BINARY_DIR}/ptoConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/pto)
