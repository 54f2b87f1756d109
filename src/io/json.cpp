// The one instance of each nlohmann/json class that io/json.hpp declares `extern template`.
#include "io/json.hpp"

NLOHMANN_JSON_NAMESPACE_BEGIN
template class basic_json<>;
namespace detail {
template class serializer<json>;
template class lexer<json, iterator_input_adapter<std::string::const_iterator>>;
template class parser<json, iterator_input_adapter<std::string::const_iterator>>;
template class json_sax_dom_parser<json>;
template class json_sax_dom_callback_parser<json>;
}  // namespace detail
NLOHMANN_JSON_NAMESPACE_END
