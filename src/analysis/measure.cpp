// analyze_layer(): every measurement of spec §4 for a trained layer and for the optimum M*.
#include "analysis/measure.hpp"

#include <cmath>
#include <optional>
#include <utility>

#include "analysis/alignment.hpp"
#include "analysis/closest_special_case.hpp"
#include "analysis/input_dependence.hpp"
#include "analysis/routing.hpp"
#include "analysis/spectrum.hpp"
#include "analysis/structure_scores.hpp"
#include "analysis/verdict.hpp"
#include "data/registry.hpp"
#include "interrupt/stop_request.hpp"
#include "model/evaluate.hpp"

namespace ufl::analysis {
namespace {

using nlohmann::json;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr int kSavedSamples = 8;  // U, V, M are saved for the first test samples

Eigen::MatrixXd to_matrix(const float* values, int rows, int cols) {
  return Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>(
             values, rows, cols)
      .cast<double>();
}

std::vector<double> to_list(const Eigen::VectorXd& vector) {
  return std::vector<double>(vector.data(), vector.data() + vector.size());
}

// The measurements of one operator family: its mean M̄ (with the per-sample spread ι) and the
// structure scores of M̄ (spec §4).
struct OperatorScores {
  double iota = 0, tau = 0, ell = 0, phi = 0, alpha = 0;
  Spectrum spectrum;
};

OperatorScores score_operator(const Eigen::MatrixXd& mean, double iota, int half_width,
                              const Eigen::MatrixXd& reference_basis) {
  OperatorScores scores;
  scores.iota = iota;
  scores.tau = toeplitz_score(mean);
  scores.ell = locality_score(mean, half_width);
  scores.phi = fourier_score(mean);
  scores.alpha = subspace_alignment(mean, reference_basis);
  scores.spectrum = spectrum_of(mean);
  return scores;
}

json scores_json(const OperatorScores& scores) {
  return {
      {"iota", scores.iota},        {"tau", scores.tau},
      {"ell", scores.ell},          {"phi", scores.phi},
      {"alpha", scores.alpha},      {"effective_rank", scores.spectrum.effective_rank},
      {"k99", scores.spectrum.k99}, {"singular_values", to_list(scores.spectrum.singular_values)}};
}

void add_svd_arrays(std::vector<NamedArray>& arrays, const std::string& name,
                    const Spectrum& spectrum) {
  arrays.push_back(named_vector(name + "_singular_values", spectrum.singular_values));
  arrays.push_back(named_matrix(name + "_U", spectrum.left_vectors));
  arrays.push_back(named_matrix(name + "_V", spectrum.right_vectors));
}

NamedArray samples_array(std::string name, const std::vector<float>& values, std::size_t count,
                         std::size_t rows, std::size_t cols) {
  return NamedArray{
      std::move(name), {count, rows, cols}, std::vector<double>(values.begin(), values.end())};
}

}  // namespace

RunAnalysis analyze_model(const data::Dataset& dataset, model::Model<float>& model,
                          const AnalysisConfig& thresholds) {
  const data::DatasetConfig& spec = dataset.spec;
  const model::Layer<float>& layer0 = model.layers.front();
  const model::Mixer<float>& mixer = *layer0.mixer;
  const model::ConstParameterViews<float> mixer_params = std::as_const(model).mixer_parameters(0);
  const int n = spec.n, d = spec.d, r = layer0.shape.r;
  const bool factors = mixer.has_factors();
  const data::SampleSet& test = dataset.test;
  // Kinds with partners (global): the optimum is per sample, and routing can be scored.
  const bool global = dataset.kind->has_partners;
  const int saved = std::min(kSavedSamples, test.count);
  const std::size_t sample_size = std::size_t(n) * d;

  // One pass over the test set: the layer's operators, errors and factor orthogonality.
  OperatorStatistics layer_operators(global);
  RoutingTally routing;
  std::vector<float> saved_U(factors ? std::size_t(saved) * n * r : 0), saved_V(saved_U.size()),
      saved_M(std::size_t(saved) * n * n);
  double squared_error = 0, orthogonality_U = 0, orthogonality_V = 0;
  model::Evaluator evaluator(model, test.count);
  evaluator.for_each_sample(test, [&](const model::SampleOutputs& outputs) {
    const model::LayerOutputs& layer_outputs = outputs.layers.front();
    const Eigen::MatrixXd M = to_matrix(layer_outputs.M, n, n);
    layer_operators.add(M);
    if (global) routing.add(M, test.partners.data() + std::size_t(outputs.index) * n);
    const float* target = test.target(outputs.index);
    for (std::size_t e = 0; e < sample_size; ++e) {
      const double error = double(outputs.Y[e]) - double(target[e]);
      squared_error += error * error;
    }
    if (factors) {
      const Eigen::MatrixXd U = to_matrix(layer_outputs.U, n, r);
      const Eigen::MatrixXd V = to_matrix(layer_outputs.V, n, r);
      const Eigen::MatrixXd identity = Eigen::MatrixXd::Identity(r, r);
      orthogonality_U += (U.transpose() * U - identity).norm() / std::sqrt(double(r));
      orthogonality_V += (V.transpose() * V - identity).norm() / std::sqrt(double(r));
    }
    if (outputs.index < saved) {
      if (factors) {
        std::copy(layer_outputs.U, layer_outputs.U + std::size_t(n) * r,
                  saved_U.begin() + std::size_t(outputs.index) * n * r);
        std::copy(layer_outputs.V, layer_outputs.V + std::size_t(n) * r,
                  saved_V.begin() + std::size_t(outputs.index) * n * r);
      }
      std::copy(layer_outputs.M, layer_outputs.M + std::size_t(n) * n,
                saved_M.begin() + std::size_t(outputs.index) * n * n);
    }
  });
  // A stop request cuts the pass short; the analysis is given up (the run stays resumable).
  interrupt::throw_if_stop_requested("analysis");
  const double test_mse = squared_error / (double(test.count) * sample_size);
  const double optimal_mse = data::optimal_mse(dataset, test);
  const double fixed_mse = data::fixed_mse(dataset, test);

  // The optimum's operators: M* itself, or for global the per-sample partner averaging.
  OperatorStatistics optimal_operators(global);
  RoutingTally optimal_routing;
  std::vector<float> saved_optimal(std::size_t(saved) * n * n);
  if (global) {
    for (int s = 0; s < test.count; ++s) {
      interrupt::throw_if_stop_requested("analysis");
      const Eigen::MatrixXd M = data::optimal_operator(dataset, test, s);
      optimal_operators.add(M);
      optimal_routing.add(M, test.partners.data() + std::size_t(s) * n);
      if (s < saved) {
        const RowMajor row_major = M;
        std::copy(row_major.data(), row_major.data() + row_major.size(),
                  saved_optimal.begin() + std::size_t(s) * n * n);
      }
    }
  } else {
    optimal_operators.add(dataset.fixed_operator);
  }

  // The reference subspace for α: the classical SVD of the training targets (spec §4).
  const GramBasis targets =
      left_singular_basis(dataset.train.targets.data(), dataset.train.count, n, d);
  const Eigen::MatrixXd reference_basis = targets.left_vectors.leftCols(targets.k99);
  const int half_width = spec.kernel_width / 2;

  interrupt::throw_if_stop_requested("analysis");
  const Eigen::MatrixXd layer_mean = layer_operators.mean(),
                        optimal_mean = optimal_operators.mean();
  const OperatorScores layer =
      score_operator(layer_mean, layer_operators.input_dependence(), half_width, reference_basis);
  const OperatorScores optimum = score_operator(optimal_mean, optimal_operators.input_dependence(),
                                                half_width, reference_basis);

  // Y = M X W_v can trade scale between M and W_v; compare w·M̄ with M*, w = trace(W_v)/d.
  const float* w_v = std::as_const(model).w_v(0).data();
  double trace = 0;
  for (int i = 0; i < d; ++i) trace += w_v[i * d + i];
  const double value_scale = trace / d;
  const int components = std::min(targets.k99, n);
  const std::optional<double> gamma = mixer.gate(mixer_params);

  const double eta = optimal_mse / test_mse, eta_fix = fixed_mse / test_mse;
  const Verdict verdict =
      decide(VerdictInputs{layer.iota, layer.tau, layer.ell, layer.phi, layer.alpha, eta, test_mse,
                           fixed_mse, targets.k99, n},
             thresholds);
  const Verdict optimal_verdict =
      decide(VerdictInputs{optimum.iota, optimum.tau, optimum.ell, optimum.phi, optimum.alpha, 1.0,
                           optimal_mse, fixed_mse, targets.k99, n},
             thresholds);
  const std::string claimed = dataset.kind->claimed_operator;

  RunAnalysis analysis;
  json& metrics = analysis.metrics;
  metrics = scores_json(layer);
  metrics["dataset"] = spec.kind;
  metrics["test_mse"] = test_mse;
  metrics["optimal_mse"] = optimal_mse;
  metrics["fixed_mse"] = fixed_mse;
  metrics["eta"] = eta;
  metrics["eta_fix"] = eta_fix;
  metrics["mixer"] = std::string(mixer.name());
  if (factors) {
    metrics["orth_rel"] = (orthogonality_U + orthogonality_V) / (2.0 * test.count);
    metrics["orth_rel_U"] = orthogonality_U / test.count;
    metrics["orth_rel_V"] = orthogonality_V / test.count;
  }
  if (gamma) metrics["gamma"] = *gamma;
  metrics["value_scale"] = value_scale;
  metrics["targets_k99"] = targets.k99;
  metrics["component_cosines"] = to_list(component_cosines(layer_mean, optimal_mean, components));
  metrics["singular_value_errors"] =
      to_list(singular_value_errors(layer_mean, value_scale, optimal_mean, components));
  if (global) metrics["routing_accuracy"] = routing.accuracy();
  metrics["verdict"] = verdict.name;
  metrics["emerged"] = verdict.emerged;
  metrics["claimed"] = claimed;
  metrics["claim_holds"] = verdict.emerged && verdict.name == claimed;
  json optimal = scores_json(optimum);
  optimal["mse"] = optimal_mse;
  optimal["verdict"] = optimal_verdict.name;
  if (global) optimal["routing_accuracy"] = optimal_routing.accuracy();
  metrics["optimal"] = optimal;
  metrics["thresholds"] = {{"iota_min", thresholds.iota_min},   {"tau_min", thresholds.tau_min},
                           {"ell_min", thresholds.ell_min},     {"phi_min", thresholds.phi_min},
                           {"alpha_min", thresholds.alpha_min}, {"eta_min", thresholds.eta_min},
                           {"locality_half_width", half_width}};

  auto& arrays = analysis.arrays;
  if (factors) {
    arrays.push_back(samples_array("U", saved_U, saved, n, r));
    arrays.push_back(samples_array("V", saved_V, saved, n, r));
  }
  arrays.push_back(samples_array("M", saved_M, saved, n, n));
  arrays.push_back(named_matrix("M_mean", layer_mean));
  add_svd_arrays(arrays, "M_mean", layer.spectrum);
  arrays.push_back(named_matrix("M_optimal", optimal_mean));
  arrays.push_back(named_vector("M_optimal_singular_values", optimum.spectrum.singular_values));
  arrays.push_back(named_vector("targets_singular_values", targets.singular_values));
  arrays.push_back(named_matrix("targets_basis", reference_basis));

  // The spectral view (seed 001): spectra of the per-sample operators M(X), for global.
  if (global) {
    const SpectrumSpread spread = layer_operators.spectrum_spread();
    metrics["per_sample_spectrum"] = {{"mean_effective_rank", spread.mean_effective_rank},
                                      {"std_effective_rank", spread.std_effective_rank},
                                      {"mean_k99", spread.mean_k99},
                                      {"std_k99", spread.std_k99}};
    arrays.push_back(named_vector("M_samples_mean_singular_values", spread.mean_singular_values));
    arrays.push_back(samples_array("M_optimal_samples", saved_optimal, saved, n, n));
    NamedArray partners{"partners", {std::size_t(saved), std::size_t(n)}, {}, true};
    for (std::size_t e = 0; e < std::size_t(saved) * n; ++e)
      partners.values.push_back(test.partners[e]);
    arrays.push_back(partners);
  }

  interrupt::throw_if_stop_requested("analysis");
  // The bilinear-form view (seed 003): Ω = A Σ Bᵀ over homogeneous coordinates [x; e; 1],
  // with its content–content (d×d) and position–position (n×n) blocks.
  if (const std::optional<model::Factors> factors_of = mixer.factors(mixer_params, layer0.shape)) {
    const Eigen::MatrixXd omega =
        factors_of->A * factors_of->sigma.asDiagonal() * factors_of->B.transpose();
    const Spectrum omega_spectrum = spectrum_of(omega);
    const Spectrum content_spectrum = spectrum_of(omega.topLeftCorner(d, d));
    const Spectrum position_spectrum = spectrum_of(omega.block(d, d, n, n));
    arrays.push_back(named_matrix("Omega", omega));
    add_svd_arrays(arrays, "Omega", omega_spectrum);
    add_svd_arrays(arrays, "Omega_content", content_spectrum);
    add_svd_arrays(arrays, "Omega_position", position_spectrum);
    const double omega_energy = std::max(omega.squaredNorm(), 1e-300);
    metrics["bilinear"] = {
        {"effective_rank", omega_spectrum.effective_rank},
        {"content_energy_share", omega.topLeftCorner(d, d).squaredNorm() / omega_energy},
        {"position_energy_share", omega.block(d, d, n, n).squaredNorm() / omega_energy},
        {"content_effective_rank", content_spectrum.effective_rank},
        {"position_effective_rank", position_spectrum.effective_rank}};
  }

  // The parsimony verdict, what this mixer can express, and why (universality spec §3).
  add_parsimony(metrics, dataset, model, layer_mean, optimal_mean, thresholds);
  return analysis;
}

}  // namespace ufl::analysis
