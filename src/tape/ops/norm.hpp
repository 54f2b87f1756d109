#pragma once
// The norms of a transformer block (docs/transformer.md §1), over the D channels of each row, as
// llm.c's layernorm_forward/layernorm_backward:
//   layernorm: x̂ = (x − μ)/√(σ² + ε), y = x̂ ⊙ gain + bias      (σ² the biased variance)
//   rmsnorm:   x̂ = x/√(mean(x²) + ε),  y = x̂ ⊙ gain
// with ε = 1e-5 (torch.nn.LayerNorm's). Each row's μ and 1/√(·) are kept for backward.
#include <cmath>

#include "tape/ops/broadcast.hpp"

namespace ufl {

inline constexpr double kNormEpsilon = 1e-5;

// A norm's operands by name: `rows` rows of `cols` channels, x (row-major), gain and, for
// layernorm, bias (nullptr for rmsnorm).
template <class T>
struct NormOperands {
  const T* x;
  const T* gain;
  const T* bias;
  int rows, cols;
};

// Where the norm's backward adds its gradients; each nullptr when not needed.
template <class T>
struct NormGradients {
  T *dx, *dgain, *dbias;
};

// y = norm(x) row by row; stats[2i] = μ_i (0 for rmsnorm), stats[2i+1] = 1/√(σ_i² + ε). Row by
// row over Eigen arrays, so each pass is vectorised.
template <class T>
void norm_forward(const NormOperands<T>& in, T* y, T* stats) {
  using Row = Eigen::Array<T, 1, Eigen::Dynamic>;
  const int cols = in.cols;
  const Eigen::Map<const Row> g(in.gain, cols);
  for (int i = 0; i < in.rows; ++i) {
    const Eigen::Map<const Row> row(in.x + std::size_t(i) * cols, cols);
    Eigen::Map<Row> out(y + std::size_t(i) * cols, cols);
    const T mean = in.bias != nullptr ? row.sum() / T(cols) : T(0);
    const T inverse = T(1) / std::sqrt((row - mean).square().sum() / T(cols) + T(kNormEpsilon));
    if (in.bias != nullptr)
      out = (row - mean) * inverse * g + Eigen::Map<const Row>(in.bias, cols);
    else
      out = row * inverse * g;
    stats[2 * i] = mean;
    stats[2 * i + 1] = inverse;
  }
}

// From dy and forward's stats: dx += r·(dx̂ − mean(dx̂) − x̂·mean(dx̂ ⊙ x̂)) with dx̂ = dy ⊙ gain
// (rmsnorm: no mean(dx̂) term, as μ is not subtracted); dgain += dy ⊙ x̂; dbias += dy.
template <class T>
void norm_backward(const NormOperands<T>& in, const T* stats, const T* dy,
                   const NormGradients<T>& grads) {
  using Row = Eigen::Array<T, 1, Eigen::Dynamic>;
  const int cols = in.cols;
  const bool has_bias = in.bias != nullptr;
  const Eigen::Map<const Row> g(in.gain, cols);
  for (int i = 0; i < in.rows; ++i) {
    const Eigen::Map<const Row> row(in.x + std::size_t(i) * cols, cols);
    const Eigen::Map<const Row> d_out(dy + std::size_t(i) * cols, cols);
    const T mean = stats[2 * i], inverse = stats[2 * i + 1];
    // Lazy expressions (no temporary rows): x̂ = (x − μ)·r, dx̂ = dy ⊙ gain.
    const auto normed = (row - mean) * inverse;
    const auto d_norm = d_out * g;
    const T mean_dnorm = has_bias ? d_norm.sum() / T(cols) : T(0);
    const T mean_dnorm_norm = (d_norm * normed).sum() / T(cols);
    if (grads.dgain != nullptr) Eigen::Map<Row>(grads.dgain, cols) += d_out * normed;
    if (grads.dbias != nullptr) Eigen::Map<Row>(grads.dbias, cols) += d_out;
    if (grads.dx != nullptr)
      Eigen::Map<Row>(grads.dx + std::size_t(i) * cols, cols) +=
          inverse * (d_norm - mean_dnorm - normed * mean_dnorm_norm);
  }
}

// inputs: x [B, n, D], gain [1, 1, D] and, for layernorm, bias [1, 1, D].
template <class T>
struct NormOp : Op<T> {
  enum Operand : int { kX, kGain, kBias };
  bool has_bias() const { return this->inputs.size() > kBias; }
  std::size_t extra_scratch_elements(const Tape<T>& tape) const override {
    const Shape& shape = this->shape_of(tape, kX);
    return std::size_t(shape.batch) * shape.rows * 2;
  }
  T* stats(const Tape<T>& tape, int b) const {
    return this->scratch + std::size_t(b) * this->shape_of(tape, kX).rows * 2;
  }
  // Sample b's operands.
  NormOperands<T> operands(const Tape<T>& tape, int b) const {
    const Shape& shape = this->shape_of(tape, kX);
    return {this->value_of(tape, kX).sample(b), this->value_of(tape, kGain).data,
            has_bias() ? this->value_of(tape, kBias).data : nullptr, shape.rows, shape.cols};
  }
  void forward_sample(Tape<T>& tape, int b) override {
    norm_forward<T>(operands(tape, b), tape.value(this->output).sample(b), stats(tape, b));
  }
  void backward_sample(Tape<T>& tape, int b) override {
    const NormGradients<T> grads{this->sink(kX).begin_sample(b), this->sink(kGain).begin_sample(b),
                                 has_bias() ? this->sink(kBias).begin_sample(b) : nullptr};
    norm_backward<T>(operands(tape, b), stats(tape, b), tape.grad(this->output).sample(b), grads);
  }
};

// x, gain and, for layernorm, bias (invalid for rmsnorm).
template <class T>
Var record_norm(Tape<T>& tape, Var x, Var gain, Var bias, const std::string& name) {
  const Shape& sx = tape.shape(x);
  for (Var parameter : {gain, bias})
    if (parameter.valid() && tape.shape(parameter) != Shape{1, 1, sx.cols})
      throw std::logic_error(name + ": gain and bias must be [1, 1, " + std::to_string(sx.cols) +
                             "], got " + tape.shape(parameter).str());
  auto op = std::make_unique<NormOp<T>>();
  op->inputs = {x, gain};                        // kX, kGain
  if (bias.valid()) op->inputs.push_back(bias);  // kBias
  return tape.record(std::move(op), sx, name);
}

template <class T>
Var layer_norm(Tape<T>& tape, Var x, Var gain, Var bias, std::string name = "layer_norm") {
  return record_norm(tape, x, gain, bias, name);
}
template <class T>
Var rms_norm(Tape<T>& tape, Var x, Var gain, std::string name = "rms_norm") {
  return record_norm(tape, x, gain, Var{}, name);
}

}  // namespace ufl
