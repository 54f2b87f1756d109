#pragma once
// The convolution mixer (docs/universality.md §1, docs/design.md §2.4): M is the Toeplitz band of w
// taps,
//   M_ij = h_{j−i} for |j−i| ≤ ⌊w/2⌋, else 0        (no wrap-around: a valid convolution),
// the same kernel on every row, w = layer.kernel_width (odd). Learned: the taps h, stored as
// h[t + ⌊w/2⌋] for t = −⌊w/2⌋..⌊w/2⌋, initialised to the unit impulse (M = I). M is built once
// per step (the op below, in the tape's prelude) and applied by the fixed-operator branch.
#include <stdexcept>
#include <vector>

#include "model/mixers/fixed_operator.hpp"

namespace ufl::model {

// M = T(h), n×n.
template <class T>
void toeplitz_band_forward(const T* taps, int width, MatrixMap<T> m) {
  const int n = static_cast<int>(m.rows()), half = width / 2;
  m.setZero();
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - half); j <= std::min(n - 1, i + half); ++j)
      m(i, j) = taps[j - i + half];
}

// dh_t += Σ_i dM(i, i+t) over the rows where i+t is a position.
template <class T>
void toeplitz_band_backward(ConstMatrixMap<T> dm, int width, T* d_taps) {
  const int n = static_cast<int>(dm.rows()), half = width / 2;
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - half); j <= std::min(n - 1, i + half); ++j)
      d_taps[j - i + half] += dm(i, j);
}

// input: the taps [1, 1, w]; output: M [1, n, n].
template <class T>
struct ToeplitzBandOp : Op<T> {
  enum Operand : int { kTaps };
  void forward_sample(Tape<T>& tape, int b) override {
    const Tensor<T> taps = this->value_of(tape, kTaps);
    toeplitz_band_forward(taps.sample(b), taps.shape.cols, tape.value(this->output).matrix(b));
  }
  void backward_sample(Tape<T>& tape, int b) override {
    T* d_taps = this->sink(kTaps).begin_sample(b);
    if (d_taps == nullptr) return;
    toeplitz_band_backward(tape.grad(this->output).view(b), this->shape_of(tape, kTaps).cols,
                           d_taps);
  }
};

template <class T>
Var toeplitz_band(Tape<T>& tape, Var taps, int n, std::string name = "M") {
  const Shape& st = tape.shape(taps);
  if (st.rows != 1 || st.cols % 2 == 0)
    throw std::logic_error(name + ": taps must be [B, 1, w] with w odd, got " + st.str());
  auto op = std::make_unique<ToeplitzBandOp<T>>();
  op->inputs = {taps};
  return tape.record(std::move(op), Shape{st.batch, n, n}, std::move(name));
}

template <class T>
class ConvolutionMixer : public Mixer<T> {
 public:
  static constexpr int kTaps = 0;

  std::string_view name() const override { return "convolution"; }
  std::string_view summary() const override {
    return "M = Toeplitz band of w = layer.kernel_width learned taps, no wrap-around";
  }
  bool input_dependent() const override { return false; }
  bool has_factors() const override { return false; }
  std::vector<std::string> config_keys() const override { return {"layer.kernel_width"}; }
  OperatorFamily operator_family(const LayerShape&, const LayerConfig& config) const override {
    return {OperatorFamily::Fixed::kBand, config.kernel_width,
            "one band of " + std::to_string(config.kernel_width) + " taps, the same on every row"};
  }

  // Causal (next_token): the band is centred, 2w − 1 taps, and the mask keeps offsets 0…w−1
  // backwards; the w − 1 forward taps are masked out and never learn (docs/transformer.md §3).
  std::vector<TensorSpec> parameters(const LayerShape& shape,
                                     const LayerConfig& config) const override {
    return {{"taps", 1, shape.causal ? 2 * config.kernel_width - 1 : config.kernel_width}};
  }
  // The unit impulse: M = I.
  void initialize(ParameterViews<T> params, const LayerShape&, const LayerConfig&,
                  data::Rng&) const override {
    params[kTaps].setZero();
    params[kTaps](0, params[kTaps].cols() / 2) = T(1);
  }
  MixerGraph record(Tape<T>& tape, Var h, const std::vector<Var>& params, Var w_v,
                    const LayerShape& shape, LayerKernels kernels, bool) const override {
    return record_fixed_operator(tape, h, toeplitz_band(tape, params[kTaps], shape.n), w_v, kernels,
                                 shape);
  }
  HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                const LayerShape& shape) const override {
    return fixed_head_inputs(tape, toeplitz_band(tape, params[kTaps], shape.n), shape);
  }
};

// Hand-set: the taps of a centred kernel (odd length, as toeplitz_from_taps takes them).
inline void set_convolution(MatrixMap<double> taps, const std::vector<double>& kernel) {
  if (static_cast<std::size_t>(taps.cols()) != kernel.size())
    throw std::invalid_argument("set_convolution: the kernel must have layer.kernel_width taps");
  for (std::size_t t = 0; t < kernel.size(); ++t) taps(0, t) = kernel[t];
}

}  // namespace ufl::model
