#pragma once
// The registry of mixers: one line per mixer. Instantiated in registry.cpp (float) and with the
// tests (double).
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/mixers/attention.hpp"
#include "model/mixers/convolution.hpp"
#include "model/mixers/distance.hpp"
#include "model/mixers/fourier.hpp"
#include "model/mixers/linear.hpp"
#include "model/mixers/lowrank.hpp"
#include "model/mixers/registry.hpp"
#include "model/mixers/universal.hpp"

namespace ufl::model {

namespace detail {

// One instance of a mixer for the whole program.
template <class ConcreteMixer>
const ConcreteMixer* instance() {
  static const ConcreteMixer mixer;
  return &mixer;
}

}  // namespace detail

template <class T>
const std::vector<const Mixer<T>*>& mixers() {
  static const std::vector<const Mixer<T>*> all = {
      detail::instance<UniversalMixer<T>>(),  // (1−γ)S + γ·softmax(S): the default
      detail::instance<AttentionMixer<T>>(),  // softmax(S), γ = 1
      detail::instance<DistanceMixer<T>>(),   // S = −½‖U_i − V_j‖²_Σ, gated as universal
      detail::instance<ConvolutionMixer<T>>(),  // a Toeplitz band of w taps
      detail::instance<FourierMixer<T>>(),      // a symmetric circulant filter
      detail::instance<LowrankMixer<T>>(),      // P·Σ·Qᵀ of rank ≤ r
      detail::instance<LinearMixer<T>>(),       // a free n×n matrix
  };
  return all;
}

template <class T>
const Mixer<T>* find_mixer(std::string_view name) {
  for (const Mixer<T>* candidate : mixers<T>())
    if (candidate->name() == name) return candidate;
  return nullptr;
}

template <class T>
const Mixer<T>& mixer(std::string_view name) {
  if (const Mixer<T>* found = find_mixer<T>(name)) return *found;
  throw std::invalid_argument("layer.mixer: unknown mixer \"" + std::string(name) +
                              "\" (expected one of " + mixer_names() + ")");
}

}  // namespace ufl::model
