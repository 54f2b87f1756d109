#pragma once
// The attention mixer (docs/universality.md §1, docs/design.md §2.2): the universal layer with its
// gate fixed open, γ = 1, and no g:
//   U = H̃A, V = H̃B, Σ = diag(softplus(s)), M = softmax_rows(UΣVᵀ),      branch = M·H·W_v,
// with the universal layer's orthogonality penalty on U and V. It runs on the universal layer's
// own kernels (model/mixers/universal.hpp) in their open-gate mode, so both compute the same
// softmax branch the same way.
//
// Hand-set: content rows of A = W_Q and of B = W_K, Σ = I make it softmax(X W_Q W_Kᵀ Xᵀ) X W_V.
#include <stdexcept>

#include "model/mixers/universal.hpp"

namespace ufl::model {

template <class T>
class AttentionMixer : public Mixer<T> {
 public:
  static constexpr int kA = 0, kB = 1, kS = 2;  // its parameters outside transformer blocks
  static constexpr int kWq = 0, kWk = 1;        // and in them

  std::string_view name() const override { return "attention"; }
  std::string_view summary() const override {
    return "M = softmax_rows(X̃AΣBᵀX̃ᵀ): the universal layer with its gate fixed open (γ = 1)";
  }
  bool input_dependent() const override { return true; }
  bool softmax_branch() const override { return true; }
  bool has_factors() const override { return true; }
  std::vector<std::string> config_keys() const override {
    return {"layer.rank", "layer.content_init_scale"};
  }
  // Its operators are row-stochastic: no linear family of fixed operators describes them.
  OperatorFamily operator_family(const LayerShape&, const LayerConfig&) const override {
    return {OperatorFamily::Fixed::kNone, 0,
            "an input-dependent M(X) whose rows are non-negative and sum to 1 (softmax)"};
  }

  // In a transformer block, standard softmax attention (docs/transformer.md §3): W_q, W_k
  // (D × r), S = (H·W_q)(H·W_k)ᵀ/√r, no position rows and no Σ.
  std::vector<TensorSpec> parameters(const LayerShape& shape, const LayerConfig&) const override {
    if (shape.transformer) return {{"W_q", shape.d, shape.r}, {"W_k", shape.d, shape.r}};
    const int h = shape.homogeneous_dim();
    return {{"A", h, shape.r}, {"B", h, shape.r}, {"s", 1, shape.r}};
  }
  // As the universal layer: the same draws, so both start from the same A and B at one seed.
  void initialize(ParameterViews<T> params, const LayerShape& shape, const LayerConfig& config,
                  data::Rng& rng) const override {
    if (shape.transformer) {
      for (MatrixMap<T>& matrix : params)
        for (Eigen::Index e = 0; e < matrix.size(); ++e)
          matrix.data()[e] = T(shape.init_std * rng.normal());
      return;
    }
    initialize_homogeneous_factors(params[kA], params[kB], shape, config, rng);
  }
  MixerGraph record(Tape<T>& tape, Var h, const std::vector<Var>& params, Var w_v,
                    const LayerShape& shape, LayerKernels kernels,
                    bool with_penalty) const override {
    if (shape.transformer) {
      MixerGraph graph;
      graph.kernel = "composite";
      const Var queries = matmul(tape, h, params[kWq], false, false, "Q");
      const Var keys = matmul(tape, h, params[kWk], false, false, "K");
      const Var S = scale(tape, matmul(tape, queries, keys, false, true, "QKᵀ"),
                          1.0 / std::sqrt(double(shape.r)), "S");
      graph.M = shape.causal ? causal_softmax_rows(tape, S, "M") : softmax_rows(tape, S, "M");
      graph.out = matmul(tape, graph.M, matmul(tape, h, w_v, false, false, "values"), false, false,
                         "branch");
      return graph;
    }
    return record_factorized(tape, h, {params[kA], params[kB], params[kS], Var{}, w_v},
                             {kernels, with_penalty});
  }
  // In a transformer block: W_q/√r and W_k (docs/transformer.md §8). Elsewhere (a transformer
  // block is always built with shape.transformer) there is no head.
  HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                const LayerShape& shape) const override {
    if (!shape.transformer) throw std::logic_error("attention: heads exist in transformer blocks");
    HeadInputs inputs;
    inputs.query_weights = scale(tape, params[kWq], 1.0 / std::sqrt(double(shape.r)), "W_q");
    inputs.key_weights = params[kWk];
    return inputs;
  }

  std::optional<double> gate(const ConstParameterViews<T>&) const override { return 1.0; }
  // In a transformer block Ω's factors over x̃ = [x̂, e_i, 1] are W_q and W_k with zero position
  // and bias rows, σ = 1/√r (the scores' scale): S = x̃·A·diag(σ)·Bᵀ·x̃ᵀ (docs/head_structure.md §2).
  std::optional<Factors> factors(const ConstParameterViews<T>& params,
                                 const LayerShape& shape) const override {
    if (shape.transformer) {
      Factors factors{Eigen::MatrixXd::Zero(shape.homogeneous_dim(), shape.r),
                      Eigen::MatrixXd::Zero(shape.homogeneous_dim(), shape.r),
                      Eigen::VectorXd::Constant(shape.r, 1.0 / std::sqrt(double(shape.r)))};
      factors.A.topRows(shape.d) = params[kWq].template cast<double>();
      factors.B.topRows(shape.d) = params[kWk].template cast<double>();
      return factors;
    }
    return homogeneous_factors(params[kA], params[kB], params[kS]);
  }
  std::vector<DerivedArray<T>> derived_arrays(const ConstParameterViews<T>& params) const override {
    return {sigma_array(params[kS])};
  }
};

// One attention mixer's parameters, by name, with its layer's W_v.
template <class T>
struct AttentionParameters {
  LayerShape shape;
  MatrixMap<T> A, B, s, W_v;
};

// Y = softmax(X W_Q W_Kᵀ Xᵀ) X W_V: content rows of A = W_Q and of B = W_K (d×k, k ≤ r), the
// other rows 0, Σ = I.
inline void set_attention(AttentionParameters<double> layer, const Eigen::MatrixXd& query,
                          const Eigen::MatrixXd& key, const Eigen::MatrixXd& value) {
  const LayerShape& shape = layer.shape;
  if (query.rows() != shape.d || key.rows() != shape.d || query.cols() != key.cols() ||
      query.cols() > shape.r || value.rows() != shape.d || value.cols() != shape.d)
    throw std::invalid_argument("set_attention: W_Q, W_K must be d×k with k ≤ r, W_V d×d");
  layer.A.setZero();
  layer.B.setZero();
  layer.A.topLeftCorner(shape.d, query.cols()) = query;
  layer.B.topLeftCorner(shape.d, key.cols()) = key;
  layer.s.setConstant(inverse_softplus(1.0));
  layer.W_v = value;
}

}  // namespace ufl::model
