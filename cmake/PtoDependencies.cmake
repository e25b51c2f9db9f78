# Every third-party dependency is found here, once. All come from Debian 12 packages
# (scripts/bootstrap.sh installs them).
find_package(LLVM 16 REQUIRED CONFIG HINTS /usr/lib/llvm-16/lib/cmake/llvm)
# lld as a library: the compiler module links each kernel into a shared object (liblld-16-dev).
find_package(LLD 16 REQUIRED CONFIG HINTS /usr/lib/llvm-16/lib/cmake/lld)
find_package(Boost 1.74 REQUIRED COMPONENTS context)
find_package(TBB REQUIRED)
find_package(fmt REQUIRED)
find_package(nlohmann_json REQUIRED)
find_package(CLI11 REQUIRED)
find_package(doctest REQUIRED)
find_package(benchmark REQUIRED)
find_package(PkgConfig REQUIRED)
pkg_check_modules(XXHASH REQUIRED IMPORTED_TARGET libxxhash)
pkg_check_modules(OPENBLAS REQUIRED IMPORTED_TARGET openblas)

# LLVM is linked as the one shared library libLLVM-16.so: static LLVM archives would make every
# link on a 2-core machine take minutes. Only the compiler module links it (backend/CMakeLists.txt).
add_library(pto_llvm INTERFACE)
target_include_directories(pto_llvm SYSTEM INTERFACE ${LLVM_INCLUDE_DIRS})
target_link_libraries(pto_llvm INTERFACE LLVM)
