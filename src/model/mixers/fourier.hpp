#pragma once
// The fourier mixer (docs/universality.md §1, docs/design.md §2.3): M = Fᵀ·diag(g)·F, F the real
// orthonormal DFT basis (rows: the constant, cos and sin of each frequency 1 ≤ f < n/2, and for
// even n the alternating row of f = n/2), where the cos and sin rows of one frequency share one
// gain: a symmetric circulant filter. Learned: the n/2+1 gains g_f (f = 0..⌊n/2⌋), initialised to 1
// (M = I).
//
// Fᵀ diag(g) F = Σ_f g_f Π_f with Π_f the projector onto frequency f,
//   Π_f(i, j) = c_f·cos(2πf(i−j)/n)/n,   c_f = 2, or 1 for f = 0 and f = n/2,
// so M_ij = m((j−i) mod n) with m(ℓ) = Σ_f g_f c_f cos(2πfℓ/n)/n: the op below builds M from
// the gains once per step (in the tape's prelude) in O(n·(n/2+1) + n²).
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "model/mixers/fixed_operator.hpp"

namespace ufl::model {

// The number of gains: frequencies 0..⌊n/2⌋.
inline int fourier_gain_count(int n) { return n / 2 + 1; }

// basis[f·n + ℓ] = c_f·cos(2πfℓ/n)/n: the value of Π_f at lag ℓ.
inline std::vector<double> circulant_basis(int n) {
  const int count = fourier_gain_count(n);
  std::vector<double> basis(std::size_t(count) * n);
  for (int f = 0; f < count; ++f) {
    const double weight = (f == 0 || 2 * f == n) ? 1.0 : 2.0;
    for (int lag = 0; lag < n; ++lag)
      basis[std::size_t(f) * n + lag] =
          weight * std::cos(2 * std::numbers::pi * f * lag / n) / double(n);
  }
  return basis;
}

// M_ij = m((j−i) mod n), m(ℓ) = Σ_f g_f basis_f(ℓ). `lags` holds n values of scratch.
template <class T>
void circulant_filter_forward(const T* gains, const std::vector<T>& basis, T* lags,
                              MatrixMap<T> m) {
  const int n = static_cast<int>(m.rows()), count = fourier_gain_count(n);
  for (int lag = 0; lag < n; ++lag) {
    T value = T(0);
    for (int f = 0; f < count; ++f) value += gains[f] * basis[std::size_t(f) * n + lag];
    lags[lag] = value;
  }
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) m(i, j) = lags[(j - i + n) % n];
}

// dm(ℓ) = Σ_i dM(i, (i+ℓ) mod n); dg_f += Σ_ℓ dm(ℓ)·basis_f(ℓ).
template <class T>
void circulant_filter_backward(ConstMatrixMap<T> dm, const std::vector<T>& basis, T* lags,
                               T* d_gains) {
  const int n = static_cast<int>(dm.rows()), count = fourier_gain_count(n);
  for (int lag = 0; lag < n; ++lag) lags[lag] = T(0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) lags[(j - i + n) % n] += dm(i, j);
  for (int f = 0; f < count; ++f) {
    T total = T(0);
    for (int lag = 0; lag < n; ++lag) total += lags[lag] * basis[std::size_t(f) * n + lag];
    d_gains[f] += total;
  }
}

// input: the gains [1, 1, n/2+1]; output: M [1, n, n].
template <class T>
struct CirculantFilterOp : Op<T> {
  enum Operand : int { kGains };
  std::vector<T> basis;

  std::size_t extra_scratch_elements(const Tape<T>& tape) const override {
    return std::size_t(tape.shape(this->output).rows);
  }
  void forward_sample(Tape<T>& tape, int b) override {
    circulant_filter_forward(this->value_of(tape, kGains).sample(b), basis, this->scratch,
                             tape.value(this->output).matrix(b));
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* d_gains = this->sink(kGains).begin_sample(b);
    if (d_gains == nullptr) return;
    circulant_filter_backward(tape.grad(this->output).view(b), basis, this->scratch, d_gains);
  }
};

template <class T>
Var circulant_filter(Tape<T>& tape, Var gains, int n, std::string name = "M") {
  const Shape& sg = tape.shape(gains);
  if (sg.batch != 1 || sg.rows != 1 || sg.cols != fourier_gain_count(n))
    throw std::logic_error(name + ": gains must be [1, 1, n/2+1], got " + sg.str());
  auto op = std::make_unique<CirculantFilterOp<T>>();
  op->inputs = {gains};
  for (double value : circulant_basis(n)) op->basis.push_back(static_cast<T>(value));
  return tape.record(std::move(op), Shape{1, n, n}, std::move(name));
}

template <class T>
class FourierMixer : public Mixer<T> {
 public:
  static constexpr int kGains = 0;

  std::string_view name() const override { return "fourier"; }
  std::string_view summary() const override {
    return "M = Fᵀ diag(g) F, F the real DFT basis, one gain per frequency: a symmetric "
           "circulant filter";
  }
  bool input_dependent() const override { return false; }
  bool has_factors() const override { return false; }
  // A circulant filter mixes every position with every other: it has no causal form.
  bool has_causal_form() const override { return false; }
  std::vector<std::string> config_keys() const override { return {}; }
  OperatorFamily operator_family(const LayerShape&, const LayerConfig&) const override {
    return {OperatorFamily::Fixed::kSymmetricCirculant, 0,
            "a symmetric circulant filter (one gain per frequency)"};
  }

  std::vector<TensorSpec> parameters(const LayerShape& shape, const LayerConfig&) const override {
    return {{"gains", 1, fourier_gain_count(shape.n)}};
  }
  // Every gain 1: M = I.
  void initialize(ParameterViews<T> params, const LayerShape&, const LayerConfig&,
                  data::Rng&) const override {
    params[kGains].setOnes();
  }
  MixerGraph record(Tape<T>& tape, Var h, const std::vector<Var>& params, Var w_v,
                    const LayerShape& shape, LayerKernels kernels, bool) const override {
    return record_fixed_operator(tape, h, circulant_filter(tape, params[kGains], shape.n), w_v,
                                 kernels);
  }
  HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                const LayerShape& shape) const override {
    return fixed_head_inputs(tape, circulant_filter(tape, params[kGains], shape.n), shape);
  }
};

// Hand-set: gain 1 on the frequencies `kept`, 0 elsewhere: the projection onto them, as the DFT
// computes it by zeroing every other bin.
inline void set_fourier_projection(MatrixMap<double> gains, const std::vector<int>& kept) {
  gains.setZero();
  for (int f : kept) {
    if (f < 0 || f >= gains.cols())
      throw std::invalid_argument("set_fourier_projection: frequencies are 0..n/2");
    gains(0, f) = 1.0;
  }
}

}  // namespace ufl::model
