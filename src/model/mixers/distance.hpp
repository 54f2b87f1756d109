#pragma once
// The distance mixer (issue 26, seed 002): the universal layer's parameters, gate and mixing with
// scores that are a negative squared distance in the metric Σ instead of a bilinear form,
//   U = H̃A, V = H̃B, Σ = diag(softplus(s)),
//   S_ij = −½ Σ_k σ_k (U_ik − V_jk)² = (UΣVᵀ)_ij − ½‖U_i‖²_Σ − ½‖V_j‖²_Σ,
//   M = (1−γ)·S + γ·softmax_rows(S), γ = sigmoid(g),      branch = M·H·W_v,
// with H̃ = [H, e_i, 1] and the universal layer's orthogonality penalty on U and V. softmax(S) is a
// Gaussian-kernel smoother: row i weighs position j by exp(−½‖U_i − V_j‖²_Σ), Σ the learned
// (per-component inverse) temperature. The row term −½‖U_i‖²_Σ cancels in the softmax but not in
// the linear branch S.
//
// Its scores are a score function (DistanceScores below, score_core.hpp) that the universal layer's
// kernels take as they take the bilinear form: the composite graph, the dense fused kernel for
// every fused choice (kFused, kDense and kStructured; the structured kernel expands the bilinear
// form only) and the fused heads kernel. In a transformer head, as a universal head, S is scaled
// by 1/√r, the softmax is causal when the task is, the linear branch is then the causal row mean,
// and the heads kernel takes it with √(σ_k/√r) folded into both the query and the key side
// (HeadInputs::score_function). It starts from the universal layer's draws at one seed (the same
// parameters, initialised by the same code).
#include <cmath>

#include "model/mixers/universal.hpp"

namespace ufl::model {

// The negative squared distance as a score function (score_core.hpp): with a metric σ,
//   S_ij = −½ Σ_k σ_k (L_ik − R_jk)² = (LΣRᵀ)_ij − ½‖L_i‖²_Σ − ½‖R_j‖²_Σ,
// and without one S_ij = −½‖L_i − R_j‖². Backward, with R_i = Σ_j dS_ij and C_j = Σ_i dS_ij, the
// bilinear form's gradients plus
//   dL_ik −= σ_k L_ik R_i,  dR_jk −= σ_k R_jk C_j,  dσ_k −= ½ Σ_i R_i L_ik² + ½ Σ_j C_j R_jk².
class DistanceScores : public ScoreFunctionOf<DistanceScores> {
 public:
  std::string_view name() const override { return "distance"; }
  // The bilinear form's, then n norms (forward) or column sums (backward).
  std::size_t forward_scratch(int n, int r, bool metric) const override {
    return dot_scores().forward_scratch(n, r, metric) + n;
  }
  std::size_t backward_scratch(int n, int r, bool metric) const override {
    return dot_scores().backward_scratch(n, r, metric) + n;
  }

  template <class T>
  void forward(const ScoreOperands<T>& in, MatrixMap<T> scores) const {
    DotScores::product(in, scores);
    const int n = int(in.left.rows()), r = int(in.left.cols());
    const bool causal = in.products.causal;
    T* norms = in.scratch + dot_scores().forward_scratch(n, r, in.metric != nullptr);
    if (in.metric != nullptr) {
      // −½‖R_j‖²_Σ for every j, then row by row −½‖L_i‖²_Σ (LΣ⊙L summed) with them.
      const Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>> sigma_row(in.metric, r);
      const ConstMatrixMap<T> left_metric(in.scratch, n, r);
      for (int j = 0; j < n; ++j)
        norms[j] = T(-0.5) * (in.right.row(j).array().square() * sigma_row).sum();
      for (int i = 0; i < n; ++i) {
        const int length = causal ? i + 1 : n;
        const T row_term = T(-0.5) * (left_metric.row(i).array() * in.left.row(i).array()).sum();
        scores.row(i).head(length).array() +=
            row_term + Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>>(norms, length);
      }
      return;
    }
    for (int j = 0; j < n; ++j) norms[j] = T(-0.5) * in.right.row(j).squaredNorm();
    for (int i = 0; i < n; ++i) {
      const int length = causal ? i + 1 : n;
      const T row_term = T(-0.5) * in.left.row(i).squaredNorm();
      scores.row(i).head(length).array() +=
          row_term + Eigen::Map<const Eigen::Array<T, 1, Eigen::Dynamic>>(norms, length);
    }
  }

  template <class T>
  void backward(const ScoreOperands<T>& in, ConstMatrixMap<T> d_s, MatrixMap<T> d_left,
                MatrixMap<T> d_right, T* d_metric) const {
    DotScores::product_backward(in, d_s, d_left, d_right);
    const Eigen::Index n = in.left.rows(), r = in.left.cols();
    Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>> columns(
        in.scratch + dot_scores().backward_scratch(int(n), int(r), in.metric != nullptr), n);
    columns.setZero();
    if (in.metric == nullptr) {
      for (Eigen::Index i = 0; i < n; ++i) {
        columns += d_s.row(i).array();
        d_left.row(i) -= d_s.row(i).sum() * in.left.row(i);
      }
      for (Eigen::Index j = 0; j < n; ++j) d_right.row(j) -= columns[j] * in.right.row(j);
      return;
    }
    // With d(LΣ)_ik = (dS·R)_ik: dσ_k += L_ik((dS·R)_ik − ½R_i L_ik), dL_ik = σ_k((dS·R)_ik − R_i
    // L_ik).
    const T* sigma = in.metric;
    for (Eigen::Index i = 0; i < n; ++i) {
      columns += d_s.row(i).array();
      const T row_sum = d_s.row(i).sum();
      T* d_left_row = d_left.data() + i * r;
      const T* left_row = in.left.data() + i * in.left.outerStride();
      if (d_metric != nullptr)
        for (Eigen::Index k = 0; k < r; ++k)
          d_metric[k] += left_row[k] * (d_left_row[k] - T(0.5) * row_sum * left_row[k]);
      for (Eigen::Index k = 0; k < r; ++k)
        d_left_row[k] = sigma[k] * (d_left_row[k] - row_sum * left_row[k]);
    }
    for (Eigen::Index j = 0; j < n; ++j) {
      T* d_right_row = d_right.data() + j * r;
      const T* right_row = in.right.data() + j * in.right.outerStride();
      if (d_metric != nullptr)
        for (Eigen::Index k = 0; k < r; ++k)
          d_metric[k] -= T(0.5) * columns[j] * right_row[k] * right_row[k];
      for (Eigen::Index k = 0; k < r; ++k) d_right_row[k] -= sigma[k] * columns[j] * right_row[k];
    }
  }

  // UΣVᵀ − ½‖U_i‖²_Σ − ½‖V_j‖²_Σ with the norms as (U⊙U)·σ and σ·(V⊙V)ᵀ.
  template <class T>
  Var record(Tape<T>& tape, Var u, Var v, Var sigma, const std::string& name) const {
    const Var cross = dot_scores().record(tape, u, v, sigma, name);
    const Var u_norms = matmul(tape, square(tape, u, "U²"), sigma, false, true, "‖U_i‖²_Σ");
    const Var v_norms = matmul(tape, sigma, square(tape, v, "V²"), false, true, "‖V_j‖²_Σ");
    return add_outer(tape, cross, u_norms, v_norms, -0.5, name + " − ½‖U_i‖² − ½‖V_j‖²");
  }
};

inline const ScoreFunction& negative_distance_scores() {
  static const DistanceScores function;
  return function;
}

// A distance head as the fused heads kernel takes it (docs/transformer.md §8): with
// c = √(σ/√r), Q = U·diag(c) and K = V·diag(c), so that Q·Kᵀ − ½‖Q_i‖² − ½‖K_j‖² =
// −½ Σ_k (σ_k/√r)(U_ik − V_jk)²: W_q = A_content·diag(c), O_q = (A_position + 1·a_biasᵀ)·diag(c),
// W_k = B_content·diag(c), O_k = (B_position + 1·b_biasᵀ)·diag(c); γ = sigmoid(g).
template <class T>
HeadInputs distance_head_inputs(Tape<T>& tape, Var a, Var b, Var s, Var g,
                                const LayerShape& shape) {
  const Var sigma = softplus(tape, s, "Sigma");
  const Var root = square_root(
      tape, scale(tape, sigma, 1.0 / std::sqrt(double(shape.r)), "Sigma/√r"), "√(Sigma/√r)");
  HeadInputs inputs;
  inputs.query_weights = diag_scale(tape, row_block(tape, a, 0, shape.d, "A_content"), root, "W_q");
  inputs.query_offsets = diag_scale(tape, head_offsets(tape, a, shape, "A"), root, "O_q");
  inputs.key_weights = diag_scale(tape, row_block(tape, b, 0, shape.d, "B_content"), root, "W_k");
  inputs.key_offsets = diag_scale(tape, head_offsets(tape, b, shape, "B"), root, "O_k");
  inputs.gate = sigmoid(tape, g, "gamma");
  inputs.score_function = &negative_distance_scores();
  return inputs;
}

// The universal mixer's parameters, initialisation, gate, factors and derived arrays; its own
// scores.
template <class T>
class DistanceMixer : public UniversalMixer<T> {
 public:
  using Base = UniversalMixer<T>;

  std::string_view name() const override { return "distance"; }
  bool distance_scores() const override { return true; }
  // Started near the smoother, in every block kind: at the mixer blocks' γ = ½ its linear branch
  // (negative squared distances, large from the first step) drowns the softmax, and it ends below
  // the best fixed operator (η 0.23 against 0.84 on global; docs/universality.md, "The distance
  // mixer").
  std::optional<double> default_gate_init() const override { return 0.99; }
  std::string_view summary() const override {
    return "M = (1−γ)·S + γ·softmax(S), S_ij = −½‖U_i − V_j‖²_Σ (U = X̃A, V = X̃B): a "
           "Gaussian-kernel smoother with the universal layer's gate";
  }
  // Its linear branch is S, a matrix of negative squared distances: no linear family of fixed
  // operators describes it.
  OperatorFamily operator_family(const LayerShape&, const LayerConfig&) const override {
    return {OperatorFamily::Fixed::kNone, 0,
            "an input-dependent M(X) built from −½‖u_i − v_j‖²_Σ: the scores themselves (γ = 0) "
            "blended with a Gaussian-kernel smoother (γ = 1)"};
  }
  MixerGraph record(Tape<T>& tape, Var h, const std::vector<Var>& params, Var w_v,
                    const LayerShape& shape, LayerKernels kernels,
                    bool with_penalty) const override {
    return record_factorized(
        tape, h, {params[Base::kA], params[Base::kB], params[Base::kS], params[Base::kG], w_v},
        {kernels, with_penalty, shape, &negative_distance_scores()});
  }
  HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                const LayerShape& shape) const override {
    return distance_head_inputs(tape, params[Base::kA], params[Base::kB], params[Base::kS],
                                params[Base::kG], shape);
  }
};

}  // namespace ufl::model
