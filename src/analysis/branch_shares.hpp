#pragma once
// How much of a gated head's output each branch carries (docs/universal_head.md §2). A head whose
// mixer blends a linear branch with a softmax by a learned gate computes M = (1−γ)·A + γ·P (A = S,
// or its causal row mean; P = softmax(S)) and outputs M·V, V = x̂·W_v. γ weighs P in M, but S is
// not bounded, so γ alone does not say which branch the output comes from. Per window:
//   output:   O_lin = (1−γ)·A·V and O_soft = γ·P·V, whose sum is the head's output M·V;
//   operator: (1−γ)·A and γ·P, whose sum is M;
// each with the linear share ‖lin‖²_F / (‖lin‖²_F + ‖soft‖²_F), and the sum against the parts,
// ‖lin + soft‖²_F / (‖lin‖²_F + ‖soft‖²_F): 1 when the two are orthogonal (the shares then split
// ‖sum‖² exactly), above 1 when they point the same way, below 1 when they cancel (0: entirely).
// Both are averaged over the windows.
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tensor/eigen.hpp"

namespace ufl::analysis {

// One pair of parts, averaged over the windows that have any (‖lin‖ + ‖soft‖ > 0).
class PartShares {
 public:
  void add(const Eigen::MatrixXd& linear, const Eigen::MatrixXd& softmax);
  int count() const { return count_; }
  double linear_share() const { return count_ > 0 ? share_sum_ / count_ : 0.0; }
  double sum_to_parts() const { return count_ > 0 ? ratio_sum_ / count_ : 0.0; }

 private:
  int count_ = 0;
  double share_sum_ = 0, ratio_sum_ = 0;
};

// A gated head's shares over the windows, for one γ and one W_v (the trained head's).
class BranchShares {
 public:
  BranchShares(double gamma, Eigen::MatrixXd value_weights)
      : gamma_(gamma), value_weights_(std::move(value_weights)) {}
  // One window: A and P (n×n) and the head's input x̂ (n×D).
  void add(const Eigen::MatrixXd& linear, const Eigen::MatrixXd& softmax,
           const Eigen::MatrixXd& input);
  const PartShares& output() const { return output_; }
  const PartShares& operators() const { return operator_; }
  // {"windows", "output": {"linear_share", "sum_to_parts"}, "operator": {…}}: a head's entry's
  // "branches" in metrics.json.
  nlohmann::json json() const;

 private:
  double gamma_;
  Eigen::MatrixXd value_weights_;  // W_v, D × D/h
  PartShares output_, operator_;
};

// "block 1: 0.31 (γ 0.952), 0.12 (γ 0.970); block 2: 4.2e-05 (γ 0.990)": the output's linear
// share of every gated head (two significant digits) with its γ, from metrics.json's "layers"
// (block_heads.hpp); "" when no head has one.
std::string branch_shares_text(const nlohmann::json& metrics);

}  // namespace ufl::analysis
