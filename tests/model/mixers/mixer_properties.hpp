#pragma once
// What a mixer is, as the rest of the program asks it (model/mixer.hpp: its properties, and the
// config keys it reads): each mixer's own test pins its answers with check_properties, so the
// tests generated from the registry (tests/config/keys_test.cpp, the in-context copy test) need
// no line per mixer.
#include <doctest/doctest.h>

#include <string>
#include <string_view>
#include <vector>

#include "model/mixers/registry.hpp"

namespace ufl::testing {

struct MixerProperties {
  bool input_dependent = false, softmax_branch = false, learned_gate = false;
  bool distance_scores = false, has_factors = false, has_causal_form = true;
  std::vector<std::string> config_keys;
};

inline void check_properties(std::string_view name, const MixerProperties& expected) {
  CAPTURE(name);
  const model::Mixer<float>& mixer = model::mixer<float>(name);
  CHECK(mixer.name() == name);
  CHECK(mixer.input_dependent() == expected.input_dependent);
  CHECK(mixer.softmax_branch() == expected.softmax_branch);
  CHECK(mixer.learned_gate() == expected.learned_gate);
  CHECK(mixer.distance_scores() == expected.distance_scores);
  CHECK(mixer.has_factors() == expected.has_factors);
  CHECK(mixer.has_causal_form() == expected.has_causal_form);
  CHECK(mixer.config_keys() == expected.config_keys);
  // The double mixer the gradient tests use answers the same.
  const model::Mixer<double>& twin = model::mixer<double>(name);
  CHECK(twin.input_dependent() == expected.input_dependent);
  CHECK(twin.softmax_branch() == expected.softmax_branch);
  CHECK(twin.learned_gate() == expected.learned_gate);
  CHECK(twin.distance_scores() == expected.distance_scores);
}

}  // namespace ufl::testing
