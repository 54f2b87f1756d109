#pragma once
// The in-class ceiling (docs/experiment.md §3, "eta_ceiling"): the best a single-head dot-product
// softmax operator can do on a kind whose optimum routes by content (global; induction's recall
// step), found by fitting that small family directly to the training set:
//   M(X) = softmax_rows(β·K Kᵀ + δ·I),   Ŷ = c·M(X)·X,
// K the rows the head compares (global: the tokens X; induction: each row's previous row, the
// copy a perfect first layer would give), β ≥ 0 the scale of the scores, δ an offset on the
// diagonal and c a scalar value gain. For given (β, δ) the best c is closed-form; (β, δ) are
// searched on a grid and refined by Nelder–Mead, so the result is the best found, a lower bound
// on the family's true best (docs/experiment.md §3 says why it is tight enough to read).
#include <functional>
#include <vector>

#include "data/dataset.hpp"

namespace ufl::analysis {

// The rows a head compares, from one sample's input (n×d); n×k.
using HeadKeys = std::function<Eigen::MatrixXd(const Eigen::MatrixXd& input)>;

struct SoftmaxHead {
  double scale = 0;   // β
  double offset = 0;  // δ
  double gain = 0;    // c, the best for (β, δ) on the training set
};

struct SoftmaxCeiling {
  SoftmaxHead head;
  double train_mse = 0;  // on the scored rows of the training set
  double test_mse = 0;   // the same head on the scored rows of the test set
  int evaluations = 0;   // (β, δ) pairs tried
};

// The error of `head` on `set`, over the rows `rows` (empty: every row), mean per element.
double softmax_head_mse(const data::SampleSet& set, const HeadKeys& keys, const SoftmaxHead& head,
                        const std::vector<int>& rows);

// Fits (β, δ, c) on `train` over `rows`, then scores the fitted head on `test`. Deterministic:
// per-sample sums are added in sample order whatever the thread count.
SoftmaxCeiling softmax_ceiling(const data::SampleSet& train, const data::SampleSet& test,
                               const HeadKeys& keys, const std::vector<int>& rows);

}  // namespace ufl::analysis
