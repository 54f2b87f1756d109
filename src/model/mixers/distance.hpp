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
// It runs on the universal layer's kernels (model/mixers/universal.hpp) with ScoreForm::kDistance:
// the composite graph, and the dense fused kernel for every fused choice (kFused, kDense and
// kStructured; the structured kernel has the bilinear form only). In a transformer head, as a
// universal head, S is scaled by 1/√r, the softmax is causal when the task is, the linear branch is
// then the causal row mean, and the fused heads kernel takes it with √(σ_k/√r) folded into both
// the query and the key side (HeadInputs::distance). It starts from the universal layer's draws
// at one seed (the same parameters, initialised by the same code).
#include <cmath>

#include "model/mixers/universal.hpp"

namespace ufl::model {

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
  inputs.distance = true;
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
    return record_factorized(tape, h, params[Base::kA], params[Base::kB], params[Base::kS],
                             params[Base::kG], w_v, kernels, with_penalty, shape,
                             ScoreForm::kDistance);
  }
  HeadInputs record_head_inputs(Tape<T>& tape, const std::vector<Var>& params,
                                const LayerShape& shape) const override {
    return distance_head_inputs(tape, params[Base::kA], params[Base::kB], params[Base::kS],
                                params[Base::kG], shape);
  }
};

}  // namespace ufl::model
