#include "analysis/layer_scores.hpp"

#include <cmath>
#include <optional>
#include <utility>

#include "analysis/closest_special_case.hpp"
#include "analysis/diagonal_energy.hpp"
#include "analysis/operator_scores.hpp"
#include "analysis/verdict.hpp"
#include "data/registry.hpp"

namespace ufl::analysis {

using nlohmann::json;

LayerTally::LayerTally(const model::Model<float>& model, model::PartIndex at, int layer,
                       const data::Dataset& dataset, int saved, bool collect_spectra)
    : model_(model),
      at_(at),
      layer_(layer),
      dataset_(dataset),
      n_(model.part(at.block, at.part).shape.n),
      width_(model.part(at.block, at.part).shape.d),
      r_(model.part(at.block, at.part).shape.r),
      saved_(saved),
      factors_(model.part(at.block, at.part).mixer->has_factors()),
      operators_(collect_spectra) {
  for (const data::RoutingCheck& check : dataset.kind->routing_checks) {
    checks_.emplace_back();
    check_rows_.push_back(check.rows(dataset.spec));
  }
  saved_M_.resize(std::size_t(saved) * n_ * n_);
  if (factors_) saved_U_.resize(std::size_t(saved) * n_ * r_), saved_V_.resize(saved_U_.size());
}

void LayerTally::add(const model::PartOutputs& outputs, int sample_index,
                     const std::int32_t* partners) {
  const Eigen::MatrixXd M = to_matrix(outputs.M, n_, n_);
  operators_.add(M);
  if (partners != nullptr) {
    routing_.add(M, partners);
    const auto& checks = dataset_.kind->routing_checks;
    for (std::size_t c = 0; c < checks.size(); ++c)
      checks_[c].add(M, partners, check_rows_[c], checks[c].off_diagonal);
  }
  if (factors_) {
    const Eigen::MatrixXd U = to_matrix(outputs.U, n_, r_);
    const Eigen::MatrixXd V = to_matrix(outputs.V, n_, r_);
    const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(r_, r_);
    orthogonality_U_ += (U.transpose() * U - identity).norm() / std::sqrt(double(r_));
    orthogonality_V_ += (V.transpose() * V - identity).norm() / std::sqrt(double(r_));
  }
  // branch_gain (docs/section7.md §4): ‖M H W_v‖_F / ‖H‖_F of this sample.
  double branch = 0, input = 0;
  for (std::size_t e = 0; e < std::size_t(n_) * width_; ++e) {
    branch += double(outputs.branch[e]) * double(outputs.branch[e]);
    input += double(outputs.input[e]) * double(outputs.input[e]);
  }
  branch_gain_sum_ += input > 0 ? std::sqrt(branch / input) : 0.0;
  if (sample_index < saved_) {
    std::copy(outputs.M, outputs.M + std::size_t(n_) * n_,
              saved_M_.begin() + std::size_t(sample_index) * n_ * n_);
    if (factors_) {
      std::copy(outputs.U, outputs.U + std::size_t(n_) * r_,
                saved_U_.begin() + std::size_t(sample_index) * n_ * r_);
      std::copy(outputs.V, outputs.V + std::size_t(n_) * r_,
                saved_V_.begin() + std::size_t(sample_index) * n_ * r_);
    }
  }
  ++count_;
}

std::vector<std::pair<std::string, double>> LayerTally::routing_checks() const {
  std::vector<std::pair<std::string, double>> scores;
  const auto& checks = dataset_.kind->routing_checks;
  for (std::size_t c = 0; c < checks.size(); ++c)
    scores.emplace_back(checks[c].name, checks_[c].accuracy());
  return scores;
}

LayerReport LayerTally::report(const LayerContext& context, bool with_arrays) const {
  const model::MixerPart<float>& layer = model_.part(at_.block, at_.part);
  const model::ConstParameterViews<float> params = model_.mixer_parameters(at_.block, at_.part);
  const Eigen::MatrixXd mean = operators_.mean();
  const OperatorScores scores = score_operator(mean, operators_.input_dependence(),
                                               context.half_width, context.reference_basis);
  const DiagonalProfile diagonals = diagonal_profile(mean, context.thresholds.ell_min);
  const double branch_gain = count_ > 0 ? branch_gain_sum_ / count_ : 0.0;
  const bool partners = dataset_.kind->has_partners;

  LayerReport report;
  json& metrics = report.metrics;
  metrics = scores_json(scores);
  metrics["layer"] = layer_ + 1;
  metrics["mixer"] = std::string(layer.mixer->name());
  if (factors_) {
    metrics["orth_rel"] = orth_rel();
    metrics["orth_rel_U"] = orth_rel_U();
    metrics["orth_rel_V"] = orth_rel_V();
  }
  if (const std::optional<double> gamma = layer.mixer->gate(params)) metrics["gamma"] = *gamma;
  // Y = M H W_v can trade scale between M and W_v: w, the mean diagonal of W_v
  // (docs/experiment.md §3).
  metrics["value_scale"] =
      double(model_.w_v(at_.block, at_.part).template cast<double>().trace()) / width_;
  metrics["diagonal_energy"] = diagonals.energy;
  metrics["dominant_offset"] = diagonals.dominant_offset;
  metrics["band_width"] = diagonals.band_width;
  metrics["branch_gain"] = branch_gain;
  if (partners) {
    metrics["routing_accuracy"] = routing_.accuracy();
    for (const auto& [name, accuracy] : routing_checks()) metrics[name] = accuracy;
  }
  const VerdictInputs verdict_scores{
      scores.iota, scores.tau,       scores.ell,        scores.phi,          scores.alpha,
      0.0,         context.test_mse, context.fixed_mse, context.targets_k99, n_};
  metrics["verdict"] = decide_layer(LayerVerdictInputs{verdict_scores, diagonals.dominant_offset,
                                                       diagonals.band_width, branch_gain},
                                    context.thresholds);
  // Which family of fixed operators holds the layer's mean operator, by kept energy (a layer in
  // a stack has no η of its own): says what an unclassified layer is, or that it is none of them.
  metrics["family_fit"] = family_energy_fit(mean);

  const std::string prefix = "layer" + std::to_string(layer_ + 1) + "/";
  std::vector<NamedArray> ignored;
  std::vector<NamedArray>& arrays = with_arrays ? report.arrays : ignored;
  if (const std::optional<model::Factors> factors = layer.mixer->factors(params, layer.shape))
    metrics["bilinear"] = bilinear_view(*factors, width_, n_, prefix, arrays);
  if (!with_arrays) return report;
  if (factors_) {
    arrays.push_back(samples_array(prefix + "U", saved_U_, saved_, n_, r_));
    arrays.push_back(samples_array(prefix + "V", saved_V_, saved_, n_, r_));
  }
  arrays.push_back(samples_array(prefix + "M", saved_M_, saved_, n_, n_));
  arrays.push_back(named_matrix(prefix + "M_mean", mean));
  add_svd_arrays(arrays, prefix + "M_mean", scores.spectrum);
  arrays.push_back(named_vector(
      prefix + "diagonal_energy",
      Eigen::Map<const Eigen::VectorXd>(diagonals.energy.data(), diagonals.energy.size())));
  return report;
}

}  // namespace ufl::analysis
