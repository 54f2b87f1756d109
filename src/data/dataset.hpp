#pragma once
// The synthetic denoising datasets of spec section 1. Each yields (noisy X, clean C) pairs,
// X = C + noise·E, and knows its position covariance Γ, the best fixed linear operator
// M_fix = Γ(Γ+σ²I)⁻¹ and the optimal estimator M*. What differs between kinds is in each kind's
// record (data/registry.hpp).
#include <cstdint>
#include <string>
#include <vector>

#include "data/dataset_config.hpp"
#include "tensor/eigen.hpp"

namespace ufl::data {

// `count` samples of n×d, row-major per sample: element (s, i, c) at s*n*d + i*d + c.
struct SampleSet {
  int count = 0, n = 0, d = 0;
  std::vector<float> inputs;   // X = C + σE
  std::vector<float> targets;  // C
  // Kinds with partners (global): count×n, the partner position of each token.
  std::vector<std::int32_t> partners;

  const float* input(int s) const { return inputs.data() + static_cast<size_t>(s) * n * d; }
  const float* target(int s) const { return targets.data() + static_cast<size_t>(s) * n * d; }
};

struct DatasetKind;

struct Dataset {
  DatasetConfig spec;
  const DatasetKind* kind = nullptr;  // the record of spec.kind (data/registry.hpp)
  std::uint64_t seed = 0;
  SampleSet train, test;
  Eigen::MatrixXd covariance;  // Γ, n×n, E[C[:,c] C[:,c]ᵀ] for every channel c
  // M_fix, the best fixed linear operator: Γ(Γ+σ²I)⁻¹, or for kinds with hidden rows
  // (induction) ΓP(PΓP+σ²I)⁻¹ (best_fixed_operator below).
  Eigen::MatrixXd fixed_operator;
  // lowrank only: the n×k orthonormal basis Q and singular values s of spec section 1.
  Eigen::MatrixXd lowrank_basis;
  Eigen::VectorXd lowrank_singular_values;
  // Kinds that show the signal through a fixed mixing (butterfly, docs/planted.md): X = A·C + σE
  // with this A (n×n), and M_fix = ΓAᵀ(AΓAᵀ + σ²I)⁻¹. Empty: X = C + σE.
  Eigen::MatrixXd input_mixing;
};

// Generates train and test sets from the spec and seed (deterministic, any platform).
// Throws std::invalid_argument for a spec that cannot be generated, interrupt::Interrupted when a
// stop is requested meanwhile (checked between samples).
Dataset generate(const DatasetConfig& spec, std::uint64_t seed);

// M_fix = Γ(Γ+σ²I)⁻¹.
Eigen::MatrixXd wiener_operator(const Eigen::MatrixXd& covariance, double noise);

// The best fixed linear operator when the input is the clean signal mixed by A: X = A·C + σE,
// E[C Xᵀ]E[X Xᵀ]⁻¹ = ΓAᵀ(AΓAᵀ + σ²I)⁻¹ (a pseudo-inverse when that matrix is singular).
Eigen::MatrixXd mixed_fixed_operator(const Eigen::MatrixXd& covariance,
                                     const Eigen::MatrixXd& mixing, double noise);

// The best fixed linear operator when the input does not show the clean target at `hidden`
// positions (X = PC + σE there, P the projector off the hidden rows): the linear least-squares
// estimator E[C Xᵀ](E[X Xᵀ])⁻¹ = ΓP(PΓP + σ²I)⁻¹ (a pseudo-inverse when σ = 0). With nothing
// hidden it is Γ(Γ+σ²I)⁻¹.
Eigen::MatrixXd best_fixed_operator(const Eigen::MatrixXd& covariance,
                                    const std::vector<bool>& hidden, double noise);

// The optimal estimate of the clean sample s of `set` (n×d): M* X, with M* the fixed operator, or
// for kinds with partners the per-sample optimum of the kind's record.
Eigen::MatrixXd optimal_estimate(const Dataset& dataset, const SampleSet& set, int s);

// The optimal estimator as a matrix for sample s: M_fix, or for kinds with partners the kind's
// per-sample optimum (global: 1/(2+σ²) at (i,i) and (i,partner(i))).
Eigen::MatrixXd optimal_operator(const Dataset& dataset, const SampleSet& set, int s);

// Mean squared error per element of `estimate` against the clean targets, over a whole set.
double optimal_mse(const Dataset& dataset, const SampleSet& set);
double fixed_mse(const Dataset& dataset, const SampleSet& set);

}  // namespace ufl::data
