#pragma once
// A hand-set special case of a two-layer stack (docs/section7.md §3): the recall circuit, or
// induction head (Olsson et al. 2022), built from universal layers on a residual stream of width
// D ≥ 2d. It shows that two layers can fill induction's blanks, so whether training finds the
// circuit is a fair question.
//
//   layer 1, a shift by one position (a convolution): γ = 0, M_1 = the shift (M_1[i, i−1] = 1),
//            W_v,1 copies channels 0..d−1 into d..2d−1, so H_1[i] = [x_i, x_{i−1}]: every row
//            also holds its predecessor, a blank its key, a value position the key before it;
//   layer 2, content attention (γ → 1): a blank's query is its key copy, matched against every
//            row's key copy with the weight β⟨·,·⟩ (the content block of Ω on channels d..2d−1).
//            Position rows of Ω keep a blank's attention on the first half's value positions and
//            give its own row the weight −1/w in the linear part (1−γ)S (cancelling the noise
//            the residual stream carries there); other rows attend to the blanks (whose first
//            channels are only noise). W_v,2 = w·I on channels 0..d−1, w = 1/((1+σ²)γ), so a
//            routed blank outputs x_value/(1+σ²), the per-sample optimum.
//
// The match is bilinear, β⟨q, c⟩, where the best (likelihood-ratio) match would also weigh
// −|c|²: a bilinear form cannot, so a key copy of large norm sometimes wins. With d = 16 that
// misroutes ~4% of blanks at σ = 0.5; with more channels the keys separate better
// (docs/section7.md).
#include "model/model.hpp"

namespace ufl::model {

struct RecallCircuit {
  double match_sharpness = 1.0;  // β of the content match
  double linear_share = 1e-4;  // 1 − γ of layer 2: its linear part only cancels the blank's row
  double suppress = 50.0;      // logit penalty on the positions a blank must not attend to
  double blank_bonus = 50.0;   // logit bonus of the blanks for every other row
};

// Sets `model` (depth 2, residual, universal layers, width ≥ 2d, rank ≥ d + n/4 + 1, n divisible
// by 4) to the recall circuit for induction data of noise σ. Throws std::invalid_argument
// naming what does not fit.
template <class T>
void set_recall_circuit(Model<T>& model, double noise, const RecallCircuit& circuit = {});

}  // namespace ufl::model
