# Writes OUTPUT, a C++ file defining `std::string_view SYMBOL` with the bytes of INPUT.
# Used so the built-in chip profile is the JSON file itself, not numbers copied into code.
file(READ "${INPUT}" content)
file(WRITE "${OUTPUT}" "#include <string_view>\nnamespace pto::generated {\nextern const std::string_view ${SYMBOL};\nconst std::string_view ${SYMBOL} = R\"pto_embed(${content})pto_embed\";\n}\n")
