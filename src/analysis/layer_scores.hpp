#pragma once
// What each layer of a stack became (docs/section7.md §4): one streaming tally per layer over the
// test set — its operators M_l(H_{l−1}), factors, branch and routing — and then its scores: those
// of docs/experiment.md §3 on M_l (ι, τ, ℓ, φ, α, spectrum, γ, orth_rel, Ω), where its energy lies
// along the diagonals, how much its branch adds, how it routes, and its verdict.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "analysis/analysis_config.hpp"
#include "analysis/input_dependence.hpp"
#include "analysis/named_array.hpp"
#include "analysis/routing.hpp"
#include "data/dataset.hpp"
#include "model/evaluate.hpp"
#include "model/model.hpp"

namespace ufl::analysis {

// What every layer's scores are measured against.
struct LayerContext {
  Eigen::MatrixXd reference_basis;  // the training targets' top-k99 left singular basis (α)
  int targets_k99 = 0;
  int half_width = 0;    // of the locality score ℓ
  double test_mse = 0;   // the stack's, end to end
  double fixed_mse = 0;  // M_fix's
  AnalysisConfig thresholds;
};

// One layer's measurements: its metrics (metrics.json "layers"[l]) and arrays.
struct LayerReport {
  nlohmann::json metrics;
  std::vector<NamedArray> arrays;  // named "layer<l+1>/…" (M, U, V of the first samples, M̄, Ω …)
};

class LayerTally {
 public:
  // Layer `layer` (0-based) of `model`, its part `at` measured as a layer (model/block.hpp);
  // keeps M, U, V of the first `saved` test samples; collect_spectra as OperatorStatistics.
  LayerTally(const model::Model<float>& model, model::PartIndex at, int layer,
             const data::Dataset& dataset, int saved, bool collect_spectra);

  // One test sample's outputs of this layer; `partners` are the sample's (nullptr without).
  void add(const model::PartOutputs& outputs, int sample_index, const std::int32_t* partners);
  model::PartIndex at() const { return at_; }

  // Scores and verdict; with `arrays`, also the layer's arrays.
  LayerReport report(const LayerContext& context, bool arrays) const;

  // The pieces the single-layer measurements of docs/experiment.md §3 report at the top of
  // metrics.json.
  const OperatorStatistics& operators() const { return operators_; }
  const RoutingTally& routing() const { return routing_; }
  // ‖UᵀU − I‖_F/‖I‖_F averaged over the test set, of U and V together and apart.
  double orth_rel() const { return (orthogonality_U_ + orthogonality_V_) / (2.0 * count_); }
  double orth_rel_U() const { return orthogonality_U_ / count_; }
  double orth_rel_V() const { return orthogonality_V_ / count_; }
  const std::vector<float>& saved_M() const { return saved_M_; }
  const std::vector<float>& saved_U() const { return saved_U_; }
  const std::vector<float>& saved_V() const { return saved_V_; }
  // The routing checks of the dataset kind (blank_routing, …), by name, in the kind's order.
  std::vector<std::pair<std::string, double>> routing_checks() const;

 private:
  const model::Model<float>& model_;
  model::PartIndex at_;
  int layer_;
  const data::Dataset& dataset_;
  int n_, width_, r_, saved_;
  bool factors_;
  int count_ = 0;
  OperatorStatistics operators_;
  RoutingTally routing_;
  std::vector<RoutingTally> checks_;
  std::vector<std::vector<int>> check_rows_;
  double orthogonality_U_ = 0, orthogonality_V_ = 0, branch_gain_sum_ = 0;
  std::vector<float> saved_U_, saved_V_, saved_M_;
};

}  // namespace ufl::analysis
