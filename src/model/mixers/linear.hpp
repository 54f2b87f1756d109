#pragma once
// The linear mixer (docs/universality.md §1): M is a free n×n matrix, learned directly and
// initialised to I: the unconstrained fixed linear layer, the bar every structured mixer is
// measured against (the best fixed operator M_fix is one of its values). The fixed-operator
// branch applies it to each sample.
#include <stdexcept>

#include "model/mixers/fixed_operator.hpp"

namespace ufl::model {

template <class T>
class LinearMixer : public Mixer<T> {
 public:
  static constexpr int kM = 0;

  std::string_view name() const override { return "linear"; }
  std::string_view summary() const override {
    return "M = a free n×n matrix: the unconstrained fixed linear layer";
  }
  bool input_dependent() const override { return false; }
  bool has_factors() const override { return false; }
  std::vector<std::string> config_keys() const override { return {}; }
  OperatorFamily operator_family(const LayerShape& shape, const LayerConfig&) const override {
    return {OperatorFamily::Fixed::kRankAtMost, shape.n, "one fixed n×n matrix for every input"};
  }

  std::vector<TensorSpec> parameters(const LayerShape& shape, const LayerConfig&) const override {
    return {{"M", shape.n, shape.n}};
  }
  void initialize(ParameterViews<T> params, const LayerShape&, const LayerConfig&,
                  data::Rng&) const override {
    params[kM].setIdentity();
  }
  MixerGraph record(Tape<T>& tape, Var h, const std::vector<Var>& params, Var w_v,
                    const LayerShape& shape, LayerKernels kernels, bool) const override {
    return record_fixed_operator(tape, h, params[kM], w_v, kernels, shape);
  }
  HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                const LayerShape& shape) const override {
    return fixed_head_inputs(tape, params[kM], shape);
  }
};

// Hand-set: M = `matrix`.
inline void set_linear(MatrixMap<double> m, const Eigen::MatrixXd& matrix) {
  if (matrix.rows() != m.rows() || matrix.cols() != m.cols())
    throw std::invalid_argument("set_linear: the matrix must be n×n");
  m = matrix;
}

}  // namespace ufl::model
