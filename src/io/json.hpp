#pragma once
// nlohmann/json with the instantiations every JSON-reading or -writing file needs (the json type,
// its parser on std::string and its serializer) compiled once, in io/json.cpp, rather than in each
// of some thirty files (1-2 s of compile time each). UFL_PCH precompiles this header in place of
// <nlohmann/json.hpp> (CMakeLists.txt), so every file sees these declarations; the code is
// nlohmann's either way.
#include <nlohmann/json.hpp>
#include <string>

// NLOHMANN_JSON_NAMESPACE is nlohmann::json_abi_v3_11_2 (its ABI tag) in 3.11.
NLOHMANN_JSON_NAMESPACE_BEGIN
extern template class basic_json<>;
namespace detail {
extern template class serializer<json>;
extern template class lexer<json, iterator_input_adapter<std::string::const_iterator>>;
extern template class parser<json, iterator_input_adapter<std::string::const_iterator>>;
extern template class json_sax_dom_parser<json>;
extern template class json_sax_dom_callback_parser<json>;
}  // namespace detail
NLOHMANN_JSON_NAMESPACE_END
