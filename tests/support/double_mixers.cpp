// The double mixers of the finite-difference gradient tests (model/block.hpp, build_blocks): the
// registry's one instance of each, compiled with the tests rather than into `ufl`.
#include "model/mixers/registry_table.hpp"

namespace ufl::model {

template const std::vector<const Mixer<double>*>& mixers<double>();
template const Mixer<double>* find_mixer<double>(std::string_view);
template const Mixer<double>& mixer<double>(std::string_view);

}  // namespace ufl::model
