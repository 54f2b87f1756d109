#pragma once
// The parsimony verdict (docs/universality.md §3): for an operator — a trained layer, or the
// optimum M* — the closest special case is the mixer with the fewest parameters whose fit keeps
// η(fit) ≥ 0.95·η(operator). The fits of the fixed special cases are least-squares (Frobenius)
// projections of the mean operator M̄ onto each mixer's operators:
//   convolution  a Toeplitz band of odd width w = 1, 3, …, 2n−1      w parameters
//   fourier      a symmetric circulant filter                       n/2+1
//   lowrank      a rank-k truncation (SVD), k = 1 … n−1             k(2n−k)
//   linear       M̄ itself, a free matrix                            n²
// each applied to the test inputs with the layer's own W_v. Attention and universal are
// input-dependent: they are candidates only when ι ≥ iota_min and the operator beats M_fix;
// their fits are given by the caller (for a trained layer: the layer itself, and its parameters
// run with the gate forced open, γ = 1, as the attention fit).
//
// Also here: the best operator of a linear family on a test set (its least test error), which
// says how far a mixer of that family can get on the data at all.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "data/dataset.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

// An operator fit keeps the operator's efficiency when η(fit) ≥ kParsimonyShare·η(operator).
inline constexpr double kParsimonyShare = 0.95;
// The shares the answer is also given at (closest_special_case.by_share), to show how it moves
// with the share (docs/universality.md).
inline constexpr double kRobustnessShares[] = {0.90, 0.95, 0.98};

// The test error of any fixed operator applied as Y = M·X·W, from one pass over a sample set:
//   mse(M) = (tr(M G Mᵀ) − 2⟨M, K⟩ + E)/(count·n·d),
//   G = Σ_s X_s W Wᵀ X_sᵀ,  K = Σ_s C_s Wᵀ X_sᵀ,  E = Σ_s ‖C_s‖²_F,
// so that each candidate then costs O(n³).
struct FixedOperatorErrors {
  Eigen::MatrixXd gram, cross;
  double target_energy = 0, elements = 0;
  double mse(const Eigen::MatrixXd& m) const;
};
FixedOperatorErrors fixed_operator_errors(const data::SampleSet& set, const Eigen::MatrixXd& w);

// Frobenius projections onto the special cases' operators.
// Keeps the diagonals |j − i| ≤ ⌊w/2⌋, each replaced by its mean (w odd).
Eigen::MatrixXd band_projection(const Eigen::MatrixXd& m, int width);
// Σ_f (⟨M, Π_f⟩/‖Π_f‖²)·Π_f over the frequency projectors Π_f, f = 0..⌊n/2⌋.
Eigen::MatrixXd circulant_projection(const Eigen::MatrixXd& m);
// The operators diagonal in an orthonormal basis (its vectors the rows of `rows`):
// Wᵀ diag(w_kᵀ M w_k) W. With the Walsh–Hadamard, Haar and DCT-II bases (data/bases.hpp) these are
// the walsh, haar and dct families (n parameters each).
Eigen::MatrixXd basis_diagonal_projection(const Eigen::MatrixXd& m, const Eigen::MatrixXd& rows);
// A butterfly product F_{L−1} ⋯ F_0 (data/bases.hpp; 2n·log₂n parameters) near M, by the
// hierarchical rank-one factorisation: exact when M is such a product, an upper bound on the
// least Frobenius error otherwise. n a power of two.
Eigen::MatrixXd butterfly_fit(const Eigen::MatrixXd& m);

// The operators of least test error within a family (not projections of a given operator).
Eigen::MatrixXd best_band(const FixedOperatorErrors& errors, int width);
Eigen::MatrixXd best_circulant(const FixedOperatorErrors& errors);
// Reduced-rank regression: the best operator of rank ≤ k (k = n: K·G⁻¹).
Eigen::MatrixXd best_of_rank(const FixedOperatorErrors& errors, int rank);

// One candidate: a special case's fit.
struct SpecialCaseFit {
  std::string mixer;     // "convolution", "fourier", "walsh", "haar", "dct", "butterfly",
                         // "lowrank", "linear", "attention", "universal", or "none" when no
                         // candidate keeps enough
  int kernel_width = 0;  // convolution's w
  int rank = 0;          // lowrank's k
  long long parameters = 0;
  double eta = 0;      // η of the fit on the test set
  bool keeps = false;  // η ≥ kParsimonyShare·η(operator)
  bool input_dependent = false;
  // The general operator rather than a special case with structure of its own: a free matrix
  // (linear), or the gated input-dependent form (the universal layer).
  bool general = false;
};

// An input-dependent candidate's test MSE and parameter count, and whether its mixer has the
// general gated form (SpecialCaseFit::general).
struct InputDependentFit {
  std::string mixer;
  double mse = 0;
  long long parameters = 0;
  bool general = false;
};

// What is classified.
struct ParsimonyQuestion {
  Eigen::MatrixXd mean_operator;  // M̄
  double mse = 0;                 // the operator's own test MSE
  double optimal_mse = 0, fixed_mse = 0;
  double iota = 0, iota_min = 0.2;
  std::vector<InputDependentFit> input_dependent;
};

struct ClosestSpecialCase {
  SpecialCaseFit chosen;
  double eta = 0;  // η of the operator classified
  bool input_dependent_allowed = false;
  // Per family, in the order above: its fit with the fewest parameters that keeps, else its
  // fit with the highest η.
  std::vector<SpecialCaseFit> families;
  // The answer at each of kRobustnessShares.
  std::vector<std::pair<double, SpecialCaseFit>> by_share;
  // The families with structure of their own (all but linear, a free matrix, and universal, the
  // layer itself): whether none keeps the share, and the one with the highest η(fit).
  bool none_of_the_families = false;
  SpecialCaseFit best_structured;
};

// For a layer inside a stack, which has no η of its own: the share of ‖M̄‖²_F that each
// family's Frobenius fit keeps, and the fewest-parameter fit keeping kParsimonyShare of it
// ("none" if only a free matrix does). metrics.json layers[l].family_fit.
nlohmann::json family_energy_fit(const Eigen::MatrixXd& mean_operator);

ClosestSpecialCase closest_special_case(const FixedOperatorErrors& errors,
                                        const ParsimonyQuestion& question);
nlohmann::json to_json(const ClosestSpecialCase& result);

// The hook of analyze_model (analysis/measure.cpp): adds to `metrics` the closest special case
// of the layer and (under "optimal") of M*, the layer's parameter count, what its mixer can
// express ("mixer_reach": its words and the η of the best fixed operator it can be on this test
// set), the optimum's share of negative entries, and the one-line explanation of the run
// (analysis/explanation.hpp). Reads eta, test_mse, iota, optimal.iota … from `metrics`. The one
// layer (part `layer`, measured as a layer) of a one-layer model only (a layer of a stack is not
// fitted against the targets).
void add_parsimony(nlohmann::json& metrics, const data::Dataset& dataset,
                   const model::Model<float>& model, model::PartIndex layer,
                   const Eigen::MatrixXd& layer_mean, const Eigen::MatrixXd& optimal_mean,
                   const AnalysisConfig& thresholds);

}  // namespace ufl::analysis
