// The registry of mixers: one line per mixer (registry_table.hpp), compiled here for float; the
// double mixers are compiled with the tests (model/block.hpp, build_blocks).
#include "model/mixers/registry_table.hpp"

namespace ufl::model {

std::string mixer_names() {
  std::string names;
  for (const Mixer<float>* candidate : mixers<float>())
    names += (names.empty() ? "" : ", ") + std::string(candidate->name());
  return names;
}

template const std::vector<const Mixer<float>*>& mixers<float>();
template const Mixer<float>* find_mixer<float>(std::string_view);
template const Mixer<float>& mixer<float>(std::string_view);

}  // namespace ufl::model
