// The registry of mixers: one line per mixer.
#include "model/mixers/registry.hpp"

#include <memory>
#include <stdexcept>

#include "model/mixers/universal.hpp"

namespace ufl::model {

template <class T>
const std::vector<const Mixer<T>*>& mixers() {
  static const UniversalMixer<T> universal;
  static const std::vector<const Mixer<T>*> all = {&universal};
  return all;
}

template <class T>
const Mixer<T>* find_mixer(std::string_view name) {
  for (const Mixer<T>* candidate : mixers<T>())
    if (candidate->name() == name) return candidate;
  return nullptr;
}

std::string mixer_names() {
  std::string names;
  for (const Mixer<float>* candidate : mixers<float>())
    names += (names.empty() ? "" : ", ") + std::string(candidate->name());
  return names;
}

template <class T>
const Mixer<T>& mixer(std::string_view name) {
  if (const Mixer<T>* found = find_mixer<T>(name)) return *found;
  throw std::invalid_argument("layer.mixer: unknown mixer \"" + std::string(name) +
                              "\" (expected one of " + mixer_names() + ")");
}

template const std::vector<const Mixer<float>*>& mixers<float>();
template const std::vector<const Mixer<double>*>& mixers<double>();
template const Mixer<float>* find_mixer<float>(std::string_view);
template const Mixer<double>* find_mixer<double>(std::string_view);
template const Mixer<float>& mixer<float>(std::string_view);
template const Mixer<double>& mixer<double>(std::string_view);

}  // namespace ufl::model
