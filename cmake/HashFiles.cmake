# Writes OUTPUT, a C++ file defining `std::string_view SYMBOL` as the SHA-256 of the files in FILES
# (a |-list, hashed in order with their names). Used as the code generator's fingerprint in the
# compile cache's keys: a rebuilt backend never links an object an older backend compiled.
set(all "")
string(REPLACE "|" ";" FILES "${FILES}")
foreach(f IN LISTS FILES)
  file(SHA256 "${f}" h)
  get_filename_component(name "${f}" NAME)
  string(APPEND all "${name}=${h}\n")
endforeach()
string(SHA256 digest "${all}")
set(text "#include <string_view>\nnamespace pto::generated {\nextern const std::string_view ${SYMBOL};\nconst std::string_view ${SYMBOL} = \"${digest}\";\n}\n")
if(EXISTS "${OUTPUT}")
  file(READ "${OUTPUT}" old)
endif()
if(NOT old STREQUAL text)
  file(WRITE "${OUTPUT}" "${text}")
endif()
