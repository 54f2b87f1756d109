// The registry of mixers: one line per mixer.
#include "model/mixers/registry.hpp"

#include <memory>
#include <stdexcept>

#include "model/mixers/attention.hpp"
#include "model/mixers/convolution.hpp"
#include "model/mixers/distance.hpp"
#include "model/mixers/fourier.hpp"
#include "model/mixers/linear.hpp"
#include "model/mixers/lowrank.hpp"
#include "model/mixers/universal.hpp"

namespace ufl::model {

namespace {

// One instance of a mixer for the whole program.
template <class ConcreteMixer>
const ConcreteMixer* instance() {
  static const ConcreteMixer mixer;
  return &mixer;
}

}  // namespace

template <class T>
const std::vector<const Mixer<T>*>& mixers() {
  static const std::vector<const Mixer<T>*> all = {
      instance<UniversalMixer<T>>(),    // (1−γ)S + γ·softmax(S): the default
      instance<AttentionMixer<T>>(),    // softmax(S), γ = 1
      instance<DistanceMixer<T>>(),     // S = −½‖U_i − V_j‖²_Σ, gated as universal
      instance<ConvolutionMixer<T>>(),  // a Toeplitz band of w taps
      instance<FourierMixer<T>>(),      // a symmetric circulant filter
      instance<LowrankMixer<T>>(),      // P·Σ·Qᵀ of rank ≤ r
      instance<LinearMixer<T>>(),       // a free n×n matrix
  };
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
