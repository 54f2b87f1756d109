#pragma once
// The registry of mixers (layer.mixer): one line per mixer in registry.cpp. Every other file
// finds a mixer here by its name and asks it; none compares mixer names.
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

}  // namespace ufl::model
