#pragma once
// The lowrank mixer (docs/universality.md §1, docs/design.md §2.1): M = P·Σ·Qᵀ, P, Q ∈ R^{n×r},
// Σ = diag(softplus(s)): one fixed operator of rank ≤ r = layer.rank, the universal layer with its
// content and bias rows removed and γ fixed to 0. Its U = P and V = Q carry the universal layer's
// orthogonality penalty (‖PᵀP − I‖²_F + ‖QᵀQ − I‖²_F)/r². M and the penalty are built once per
// step on shared tensors (the tape's prelude); the fixed-operator branch applies M to each sample.
//
// Initialisation: P and Q are drawn exactly as the universal layer draws the position rows of A
// and B (its content rows are drawn too and dropped), s = 0: at one seed and rank, a lowrank layer
// starts from the universal layer's position operator.
//
// Hand-set: P, Σ, Q = the top-k singular triplets of a matrix make M its truncated SVD.
#include <stdexcept>

#include "model/mixers/fixed_operator.hpp"
#include "model/mixers/universal.hpp"

namespace ufl::model {

template <class T>
class LowrankMixer : public Mixer<T> {
 public:
  static constexpr int kP = 0, kS = 1, kQ = 2;

  std::string_view name() const override { return "lowrank"; }
  std::string_view summary() const override {
    return "M = P·diag(softplus(s))·Qᵀ, P, Q n×r: one fixed operator of rank ≤ r = layer.rank";
  }
  bool input_dependent() const override { return false; }
  bool has_factors() const override { return true; }
  std::vector<std::string> config_keys() const override { return {"layer.rank"}; }
  OperatorFamily operator_family(const LayerShape& shape, const LayerConfig&) const override {
    return {OperatorFamily::Fixed::kRankAtMost, shape.r,
            "one fixed operator of rank ≤ " + std::to_string(shape.r)};
  }

  std::vector<TensorSpec> parameters(const LayerShape& shape, const LayerConfig&) const override {
    return {{"P", shape.n, shape.r}, {"s", 1, shape.r}, {"Q", shape.n, shape.r}};
  }
  void initialize(ParameterViews<T> params, const LayerShape& shape, const LayerConfig&,
                  data::Rng& rng) const override {
    const double position_std = 1.0 / std::sqrt(double(shape.n));
    const std::size_t content = std::size_t(shape.d) * shape.r;
    for (int factor : {kP, kQ}) {
      for (std::size_t e = 0; e < content; ++e) (void)rng.normal();  // A's (B's) content rows
      T* rows = params[factor].data();
      for (std::size_t e = 0; e < std::size_t(shape.n) * shape.r; ++e)
        rows[e] = T(position_std * rng.normal());
    }
  }
  MixerGraph record(Tape<T>& tape, Var h, const std::vector<Var>& params, Var w_v,
                    const LayerShape& shape, LayerKernels kernels,
                    bool with_penalty) const override {
    MixerGraph graph =
        record_fixed_operator(tape, h, record_operator(tape, params), w_v, kernels, shape);
    graph.U = params[kP];
    graph.V = params[kQ];
    if (with_penalty)
      graph.penalty = add(tape, gram_penalty(tape, params[kP], "U"),
                          gram_penalty(tape, params[kQ], "V"), "penalty");
    return graph;
  }
  HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                const LayerShape& shape) const override {
    return fixed_head_inputs(tape, record_operator(tape, params), shape);
  }

  // Ω over homogeneous coordinates [h; e_i; 1] has P and Q as its position rows, zero elsewhere:
  // the universal layer's form of this operator.
  std::optional<Factors> factors(const ConstParameterViews<T>& params,
                                 const LayerShape& shape) const override {
    Factors factors{Eigen::MatrixXd::Zero(shape.homogeneous_dim(), shape.r),
                    Eigen::MatrixXd::Zero(shape.homogeneous_dim(), shape.r),
                    Eigen::VectorXd(shape.r)};
    factors.A.middleRows(shape.d, shape.n) = params[kP].template cast<double>();
    factors.B.middleRows(shape.d, shape.n) = params[kQ].template cast<double>();
    for (int j = 0; j < shape.r; ++j) factors.sigma(j) = stable_softplus(double(params[kS](0, j)));
    return factors;
  }
  std::vector<DerivedArray<T>> derived_arrays(const ConstParameterViews<T>& params) const override {
    return {sigma_array(params[kS])};
  }

 private:
  // M = P·diag(softplus s)·Qᵀ on the tape.
  static Var record_operator(Tape<T>& tape, const std::vector<Var>& params) {
    const Var sigma = softplus(tape, params[kS], "Sigma");
    const Var p_sigma = diag_scale(tape, params[kP], sigma, "P_Sigma");
    return matmul(tape, p_sigma, params[kQ], false, true, "M");
  }
};

// Hand-set: M = left·diag(singular_values)·rightᵀ with n×k factors, k ≤ r (the rest zero: the
// unused columns of P and Q are 0, so their Σ entries do not matter).
inline void set_lowrank(MatrixMap<double> p, MatrixMap<double> s, MatrixMap<double> q,
                        const Eigen::MatrixXd& left, const Eigen::VectorXd& singular_values,
                        const Eigen::MatrixXd& right) {
  const auto k = singular_values.size();
  if (left.rows() != p.rows() || right.rows() != q.rows() || left.cols() != k ||
      right.cols() != k || k > p.cols())
    throw std::invalid_argument("set_lowrank: factors must be n×k with k ≤ r");
  p.setZero();
  q.setZero();
  p.leftCols(k) = left;
  q.leftCols(k) = right;
  for (Eigen::Index j = 0; j < s.cols(); ++j)
    s(0, j) = inverse_softplus(j < k ? singular_values(j) : 1.0);
}

}  // namespace ufl::model
