// The recall circuit of model/recall_circuit.hpp, set by hand.
#include "model/recall_circuit.hpp"

#include <cmath>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "model/mixers/universal.hpp"

namespace ufl::model {
namespace {

// The circuit writes a universal layer's parameters (A, B, s, g; UniversalMixer's kA … kG) and
// needs its form, M = (1−γ)·S + γ·softmax(S) of dot-product scores: asked of the layer's mixer
// (its properties and its parameters' names), not of its name.
template <class T>
bool universal_form(const MixerPart<T>& layer, const LayerConfig& config) {
  const Mixer<T>& mixer = *layer.mixer;
  if (!mixer.softmax_branch() || !mixer.learned_gate() || mixer.distance_scores()) return false;
  const std::vector<TensorSpec> specs = mixer.parameters(layer.shape, config);
  const std::vector<std::pair<int, std::string>> expected = {{UniversalMixer<T>::kA, "A"},
                                                             {UniversalMixer<T>::kB, "B"},
                                                             {UniversalMixer<T>::kS, "s"},
                                                             {UniversalMixer<T>::kG, "g"}};
  if (specs.size() != expected.size()) return false;
  for (const auto& [index, name] : expected)
    if (specs[index].name != name) return false;
  return true;
}

}  // namespace

template <class T>
void set_recall_circuit(Model<T>& model, double noise, const RecallCircuit& circuit) {
  const int n = model.n, d = model.d, width = model.width, pairs = n / 4;
  auto require = [](bool holds, const std::string& what) {
    if (!holds) throw std::invalid_argument("set_recall_circuit: " + what);
  };
  require(model.depth() == 2 && model.config.residual, "needs a residual stack of 2 layers");
  require(n % 4 == 0, "needs n divisible by 4 (induction data)");
  require(width >= 2 * d, "needs a stream of width D ≥ 2d");
  for (int l = 0; l < model.depth(); ++l)
    require(universal_form(model.part(l), model.layer_config), "needs universal layers");
  const int r = model.part(0).shape.r;
  require(r >= n - 1 && r >= d + pairs + 1, "needs rank r ≥ max(n − 1, d + n/4 + 1)");
  using Mixer = UniversalMixer<T>;
  const int content = 0, position = width;  // first rows of A and B for h and for e_i
  auto is_blank = [n](int i) { return i >= n / 2 && i % 2 == 1; };
  auto is_first_value = [n](int i) { return i < n / 2 && i % 2 == 1; };

  // Layer 1: M_1 = P·Qᵀ with P[i, i−1] = 1 and Q[j, j] = 1, so M_1[i, j] = 1 exactly when
  // j = i − 1; γ = 0; W_v,1 copies the data's channels into the next d.
  {
    ParameterViews<T> p = model.mixer_parameters(0);
    for (int k : {Mixer::kA, Mixer::kB, Mixer::kS, Mixer::kG}) p[k].setZero();
    for (int i = 1; i < n; ++i) p[Mixer::kA](position + i, i - 1) = T(1);
    for (int j = 0; j + 1 < n; ++j) p[Mixer::kB](position + j, j) = T(1);
    p[Mixer::kS].setConstant(T(inverse_softplus(1.0)));
    p[Mixer::kG](0, 0) = T(kGateClosed);
    MatrixMap<T> w_v = model.w_v(0);
    w_v.setZero();
    for (int c = 0; c < d; ++c) w_v(c, d + c) = T(1);
  }

  // Layer 2: γ = 1 − ε, value weight w with γ·w = 1/(1+σ²).
  {
    const double epsilon = circuit.linear_share, gamma = 1.0 - epsilon;
    const double value_weight = 1.0 / ((1.0 + noise * noise) * gamma);
    ParameterViews<T> p = model.mixer_parameters(1);
    for (int k : {Mixer::kA, Mixer::kB, Mixer::kS, Mixer::kG}) p[k].setZero();
    MatrixMap<T> a = p[Mixer::kA], b = p[Mixer::kB];
    // Columns 0..d−1: the content match β⟨h_i[d:2d], h_j[d:2d]⟩.
    for (int c = 0; c < d; ++c) {
      a(content + d + c, c) = T(1);
      b(content + d + c, c) = T(1);
      p[Mixer::kS](0, c) = T(inverse_softplus(circuit.match_sharpness));
    }
    // Columns d..d+K−1, one per blank: its row of S gets −suppress off the first half's value
    // positions, and −1/(wε) on itself, so that (1−γ)·S[b, b]·w = −1 removes the blank's own
    // (pure noise) input from the residual stream.
    int column = d;
    for (int blank = 0; blank < n; ++blank) {
      if (!is_blank(blank)) continue;
      a(position + blank, column) = T(1);
      for (int j = 0; j < n; ++j)
        if (!is_first_value(j)) b(position + j, column) = T(-circuit.suppress);
      b(position + blank, column) = T(-1.0 / (value_weight * epsilon));
      ++column;
    }
    // Column d+K: every other row prefers the blanks (noise-only channels 0..d−1) by blank_bonus.
    for (int i = 0; i < n; ++i) {
      if (is_blank(i))
        b(position + i, column) = T(1);
      else
        a(position + i, column) = T(circuit.blank_bonus);
    }
    for (int k = d; k <= column; ++k) p[Mixer::kS](0, k) = T(inverse_softplus(1.0));
    for (int k = column + 1; k < r; ++k) p[Mixer::kS](0, k) = T(inverse_softplus(1.0));
    p[Mixer::kG](0, 0) = T(std::log(gamma / epsilon));
    MatrixMap<T> w_v = model.w_v(1);
    w_v.setZero();
    for (int c = 0; c < d; ++c) w_v(c, c) = T(value_weight);
  }
}

template void set_recall_circuit<float>(Model<float>&, double, const RecallCircuit&);
template void set_recall_circuit<double>(Model<double>&, double, const RecallCircuit&);

}  // namespace ufl::model
