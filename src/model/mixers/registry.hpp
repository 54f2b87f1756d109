#pragma once
// The registry of mixers (layer.mixer): one line per mixer in registry_table.hpp. Every other file
// finds a mixer here by its name (the config's) or by its properties, and asks it; none compares
// mixer names.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/mixer.hpp"

namespace ufl::model {

// Every registered mixer, in the order --describe and the docs list them (float and double).
template <class T>
const std::vector<const Mixer<T>*>& mixers();
// The mixer named `name`; nullptr if none.
template <class T>
const Mixer<T>* find_mixer(std::string_view name);
// The mixer named `name`; throws std::invalid_argument listing the mixers if none.
template <class T>
const Mixer<T>& mixer(std::string_view name);
// "universal, attention, …".
std::string mixer_names();

// The mixer of each of the layer's layer.heads heads (at least one), in order: layer.mixer's for
// every head, or with a list (LayerConfig::head_mixers) head k's own. Throws
// std::invalid_argument for an unknown name, or a list whose length is not layer.heads.
template <class T>
std::vector<const Mixer<T>*> head_mixers(const LayerConfig& layer) {
  const int heads = layer.heads > 1 ? layer.heads : 1;
  if (!layer.head_mixers.empty() && int(layer.head_mixers.size()) != heads)
    throw std::invalid_argument(
        "layer.mixer: a list of " + std::to_string(layer.head_mixers.size()) +
        " mixers for layer.heads = " + std::to_string(heads) + "; give one mixer per head");
  std::vector<const Mixer<T>*> found;
  for (int k = 0; k < heads; ++k) found.push_back(&mixer<T>(layer.mixer_of_head(k)));
  return found;
}

// As head_mixers, for a config that may not be valid (the resource estimate): null for a head
// whose mixer the registry does not know or the list lacks.
template <class T>
std::vector<const Mixer<T>*> find_head_mixers(const LayerConfig& layer) {
  const int heads = layer.heads > 1 ? layer.heads : 1;
  std::vector<const Mixer<T>*> found;
  for (int k = 0; k < heads; ++k)
    found.push_back(layer.head_mixers.empty() || k < int(layer.head_mixers.size())
                        ? find_mixer<T>(layer.mixer_of_head(k))
                        : nullptr);
  return found;
}

// The first registered mixer (in the registry's order) that `is` (a predicate on a Mixer<T>)
// holds for; nullptr if none. How the rest of the program finds a mixer by what it is
// (Mixer's properties) rather than by its name.
template <class T, class Predicate>
const Mixer<T>* find_mixer_if(Predicate is) {
  for (const Mixer<T>* candidate : mixers<T>())
    if (is(*candidate)) return candidate;
  return nullptr;
}

}  // namespace ufl::model
