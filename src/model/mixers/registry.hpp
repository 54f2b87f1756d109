#pragma once
// The registry of mixers (layer.mixer): one line per mixer in registry_table.hpp. Every other file
// finds a mixer here by its name (the config's) or by its properties, and asks it; none compares
// mixer names.
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
