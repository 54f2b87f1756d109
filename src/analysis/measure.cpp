// analyze_model(): every measurement of docs/experiment.md §3 for a trained model and for the
// optimum M*; for a stack, what each layer became (docs/section7.md §4) and the end-to-end errors.
#include "analysis/measure.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <utility>

#include "analysis/alignment.hpp"
#include "analysis/closest_special_case.hpp"
#include "analysis/input_dependence.hpp"
#include "analysis/layer_scores.hpp"
#include "analysis/operator_scores.hpp"
#include "analysis/routing.hpp"
#include "analysis/row_errors.hpp"
#include "analysis/softmax_ceiling.hpp"
#include "analysis/spectrum.hpp"
#include "analysis/verdict.hpp"
#include "data/registry.hpp"
#include "io/stop_request.hpp"
#include "model/evaluate.hpp"

namespace ufl::analysis {
namespace {

using nlohmann::json;
using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr int kSavedSamples = 8;  // U, V, M are saved for the first test samples

// The in-class ceiling (docs/experiment.md §3) for kinds whose optimum routes by content: the best
// single-head dot-product softmax operator, fitted on the training set, scored on the test set
// over the kind's head rows (induction: the blanks, against the optimum's blank-row MSE).
void add_eta_ceiling(json& metrics, const data::Dataset& dataset) {
  const data::DatasetKind& kind = *dataset.kind;
  if (!kind.head_keys) return;
  const std::vector<int> rows = kind.head_rows ? kind.head_rows(dataset.spec) : std::vector<int>{};
  const SoftmaxCeiling ceiling = softmax_ceiling(dataset.train, dataset.test, kind.head_keys, rows);
  double optimal_mse = metrics.at("optimal_mse").get<double>();
  if (!rows.empty()) {  // the optimum's error on the same rows
    double sum = 0;
    for (int s = 0; s < dataset.test.count; ++s) {
      const Eigen::MatrixXd estimate = data::optimal_estimate(dataset, dataset.test, s);
      for (int i : rows)
        for (int c = 0; c < dataset.test.d; ++c) {
          const double error =
              estimate(i, c) - dataset.test.target(s)[std::size_t(i) * dataset.test.d + c];
          sum += error * error;
        }
    }
    optimal_mse = sum / (double(dataset.test.count) * double(rows.size()) * dataset.test.d);
  }
  metrics["eta_ceiling"] = optimal_mse / ceiling.test_mse;
  metrics["softmax_ceiling"] = {{"scale", ceiling.head.scale},
                                {"diagonal_offset", ceiling.head.offset},
                                {"value_gain", ceiling.head.gain},
                                {"train_mse", ceiling.train_mse},
                                {"test_mse", ceiling.test_mse},
                                {"optimal_mse", optimal_mse},
                                {"rows", rows.empty() ? "all" : "head rows (blanks)"},
                                {"evaluations", ceiling.evaluations}};
}

json role_json(const RoleErrorTally& tally) {
  json roles = json::object();
  for (const auto& [role, mse] : tally.mse()) roles[role] = mse;
  return roles;
}

// The measurements of docs/experiment.md §3 for a single layer (depth 1), at the top of
// metrics.json, with its arrays under their Section 8 names: the layer's operators M(X), their mean
// M̄ and its scores, the factors, the gate and Ω, against the optimum's.
// The optimum it is compared with: its operators over the test set and its test MSE.
struct OptimumOnTest {
  const OperatorStatistics& operators;
  double mse;
};

void add_single_layer(RunAnalysis& analysis, const data::Dataset& dataset,
                      const model::Model<float>& model, const LayerTally& layer0,
                      const OptimumOnTest& optimum_on_test, const LayerContext& context,
                      int saved) {
  const OperatorStatistics& optimal_operators = optimum_on_test.operators;
  const double optimal_mse = optimum_on_test.mse, test_mse = context.test_mse,
               fixed_mse = context.fixed_mse;
  const Eigen::MatrixXd& reference_basis = context.reference_basis;
  const int half_width = context.half_width, targets_k99 = context.targets_k99;
  const AnalysisConfig& thresholds = context.thresholds;
  const data::DatasetConfig& spec = dataset.spec;
  const model::PartIndex at = layer0.at();
  const model::MixerPart<float>& layer = model.part(at.block, at.part);
  const model::Mixer<float>& mixer = *layer.mixer;
  const model::ConstParameterViews<float> mixer_params = model.mixer_parameters(at.block, at.part);
  const int n = spec.n, width = layer.shape.d, r = layer.shape.r;
  const bool factors = mixer.has_factors();
  const bool global = dataset.kind->has_partners;

  const Eigen::MatrixXd layer_mean = layer0.operators().mean(),
                        optimal_mean = optimal_operators.mean();
  const OperatorScores scores = score_operator(layer_mean, layer0.operators().input_dependence(),
                                               half_width, reference_basis);
  const OperatorScores optimum = score_operator(optimal_mean, optimal_operators.input_dependence(),
                                                half_width, reference_basis);

  // Y = M X W_v can trade scale between M and W_v; compare w·M̄ with M*, w = trace(W_v)/D.
  const float* w_v = model.w_v(at.block, at.part).data();
  double trace = 0;
  for (int i = 0; i < width; ++i) trace += w_v[i * width + i];
  const double value_scale = trace / width;
  const int components = std::min(targets_k99, n);
  const std::optional<double> gamma = mixer.gate(mixer_params);

  const double eta = optimal_mse / test_mse;
  const Verdict verdict =
      decide(VerdictInputs{scores.iota, scores.tau, scores.ell, scores.phi, scores.alpha, eta,
                           test_mse, fixed_mse, targets_k99, n},
             thresholds);
  const Verdict optimal_verdict =
      decide(VerdictInputs{optimum.iota, optimum.tau, optimum.ell, optimum.phi, optimum.alpha, 1.0,
                           optimal_mse, fixed_mse, targets_k99, n},
             thresholds);
  const std::string claimed = dataset.kind->claimed_operator;

  json& metrics = analysis.metrics;
  metrics.update(scores_json(scores));
  if (factors) {
    metrics["orth_rel"] = layer0.orth_rel();
    metrics["orth_rel_U"] = layer0.orth_rel_U();
    metrics["orth_rel_V"] = layer0.orth_rel_V();
  }
  if (gamma) metrics["gamma"] = *gamma;
  metrics["value_scale"] = value_scale;
  metrics["component_cosines"] = to_list(component_cosines(layer_mean, optimal_mean, components));
  metrics["singular_value_errors"] =
      to_list(singular_value_errors(layer_mean, value_scale, optimal_mean, components));
  if (global) metrics["routing_accuracy"] = layer0.routing().accuracy();
  for (const auto& [name, accuracy] : layer0.routing_checks()) metrics[name] = accuracy;
  metrics["verdict"] = verdict.name;
  metrics["emerged"] = verdict.emerged;
  metrics["claimed"] = claimed;
  metrics["claim_holds"] = verdict.emerged && verdict.name == claimed;
  json& optimal = metrics["optimal"];
  optimal.update(scores_json(optimum));
  optimal["verdict"] = optimal_verdict.name;

  auto& arrays = analysis.arrays;
  if (factors) {
    arrays.push_back(samples_array("U", layer0.saved_U(), saved, n, r));
    arrays.push_back(samples_array("V", layer0.saved_V(), saved, n, r));
  }
  arrays.push_back(samples_array("M", layer0.saved_M(), saved, n, n));
  arrays.push_back(named_matrix("M_mean", layer_mean));
  add_svd_arrays(arrays, "M_mean", scores.spectrum);
  arrays.push_back(named_vector("M_optimal_singular_values", optimum.spectrum.singular_values));

  // The spectral view (seed 001): spectra of the per-sample operators M(X), for global.
  if (global) {
    const SpectrumSpread spread = layer0.operators().spectrum_spread();
    metrics["per_sample_spectrum"] = {{"mean_effective_rank", spread.mean_effective_rank},
                                      {"std_effective_rank", spread.std_effective_rank},
                                      {"mean_k99", spread.mean_k99},
                                      {"std_k99", spread.std_k99}};
    arrays.push_back(named_vector("M_samples_mean_singular_values", spread.mean_singular_values));
  }

  // The bilinear-form view (seed 003): Ω = A Σ Bᵀ over homogeneous coordinates [x; e; 1],
  // with its content–content (D×D) and position–position (n×n) blocks.
  interrupt::throw_if_stop_requested("analysis");
  if (const std::optional<model::Factors> factors_of = mixer.factors(mixer_params, layer.shape))
    metrics["bilinear"] = bilinear_view(*factors_of, width, n, "", arrays);

  // The parsimony verdict, what this mixer can express, and why (docs/universality.md).
  add_parsimony(metrics, dataset, model, at, layer_mean, optimal_mean, thresholds);
}

// The trained model's pass over the test set: each layer's tally (operators, factors, branch,
// routing), the stack's squared error and its error per row role.
struct TestPass {
  std::vector<LayerTally> layers;
  RoleErrorTally roles;
  double test_mse = 0;
};

TestPass pass_over_test_set(const data::Dataset& dataset, model::Model<float>& model,
                            const std::vector<model::PartIndex>& measured,
                            const std::vector<std::string>& row_roles, bool roles, int saved) {
  const data::SampleSet& test = dataset.test;
  const int n = dataset.spec.n, d = dataset.spec.d, depth = static_cast<int>(measured.size());
  const bool global = dataset.kind->has_partners;
  const std::size_t sample_size = std::size_t(n) * d;
  TestPass pass{{}, RoleErrorTally(row_roles), 0};
  for (int l = 0; l < depth; ++l)
    pass.layers.emplace_back(std::as_const(model), measured[l], l, dataset, saved,
                             global && depth == 1);
  double squared_error = 0;
  model::Evaluator evaluator(model, test.count);
  evaluator.for_each_sample(test, [&](const model::SampleOutputs& outputs) {
    const std::int32_t* partners =
        global ? test.partners.data() + std::size_t(outputs.index) * n : nullptr;
    for (int l = 0; l < depth; ++l)
      pass.layers[l].add(outputs.blocks[measured[l].block].parts[measured[l].part], outputs.index,
                         partners);
    const float* target = test.target(outputs.index);
    for (std::size_t e = 0; e < sample_size; ++e) {
      const double error = double(outputs.Y[e]) - double(target[e]);
      squared_error += error * error;
    }
    if (roles) pass.roles.add(to_matrix(outputs.Y, n, d), target);
  });
  // A stop request cuts the pass short; the analysis is given up (the run stays resumable).
  interrupt::throw_if_stop_requested("analysis");
  pass.test_mse = squared_error / (double(test.count) * sample_size);
  return pass;
}

// The optimum's operators on the test set: M* itself, or for kinds with partners the per-sample
// optimum with its routing and the first `saved` samples' operators.
struct OptimumPass {
  OperatorStatistics operators;
  RoutingTally routing;
  std::vector<float> saved;
};

OptimumPass pass_of_optimum(const data::Dataset& dataset, int saved) {
  const data::SampleSet& test = dataset.test;
  const int n = dataset.spec.n;
  const bool global = dataset.kind->has_partners;
  OptimumPass pass{OperatorStatistics(global), {}, std::vector<float>(std::size_t(saved) * n * n)};
  if (!global) {
    pass.operators.add(dataset.fixed_operator);
    return pass;
  }
  for (int s = 0; s < test.count; ++s) {
    interrupt::throw_if_stop_requested("analysis");
    const Eigen::MatrixXd M = data::optimal_operator(dataset, test, s);
    pass.operators.add(M);
    pass.routing.add(M, test.partners.data() + std::size_t(s) * n);
    if (s < saved) {
      const RowMajor row_major = M;
      std::copy(row_major.data(), row_major.data() + row_major.size(),
                pass.saved.begin() + std::size_t(s) * n * n);
    }
  }
  return pass;
}

// A stack has no single operator: the scores of docs/experiment.md §3 are per layer, and the
// routing at the top is the last layer's (the one that fills the output).
void add_stack_top(RunAnalysis& analysis, const data::Dataset& dataset, const TestPass& pass,
                   const OptimumPass& optimum_pass, const LayerContext& context) {
  json& metrics = analysis.metrics;
  const OperatorScores optimum =
      score_operator(optimum_pass.operators.mean(), optimum_pass.operators.input_dependence(),
                     context.half_width, context.reference_basis);
  metrics["optimal"].update(scores_json(optimum));
  analysis.arrays.push_back(
      named_vector("M_optimal_singular_values", optimum.spectrum.singular_values));
  if (dataset.kind->has_partners)
    metrics["routing_accuracy"] = pass.layers.back().routing().accuracy();
  for (const auto& [name, accuracy] : pass.layers.back().routing_checks()) metrics[name] = accuracy;
  metrics["claimed"] = dataset.kind->claimed_operator;
}

// Each layer (docs/section7.md §4): "layers" and "layer_verdicts", and for a stack each layer's
// arrays (one layer's are the Section 8 ones of add_single_layer).
void add_layer_reports(RunAnalysis& analysis, const TestPass& pass, const LayerContext& context) {
  const bool stack = pass.layers.size() > 1;
  json layer_metrics = json::array(), verdicts = json::array();
  for (const LayerTally& layer : pass.layers) {
    interrupt::throw_if_stop_requested("analysis");
    LayerReport report = layer.report(context, stack);
    verdicts.push_back(report.metrics["verdict"]);
    layer_metrics.push_back(std::move(report.metrics));
    for (NamedArray& array : report.arrays) analysis.arrays.push_back(std::move(array));
  }
  analysis.metrics["layers"] = layer_metrics;
  analysis.metrics["layer_verdicts"] = verdicts;
}

// The MSE per row role (induction: blank, key and value rows), of the model, the optimum and the
// best fixed operator.
void add_row_errors(json& metrics, const data::Dataset& dataset, const TestPass& pass,
                    const std::vector<std::string>& row_roles) {
  const data::SampleSet& test = dataset.test;
  RoleErrorTally optimal_roles(row_roles), fixed_roles(row_roles);
  for (int s = 0; s < test.count; ++s) {
    optimal_roles.add(data::optimal_estimate(dataset, test, s), test.target(s));
    const Eigen::MatrixXd noisy = to_matrix(test.input(s), dataset.spec.n, dataset.spec.d);
    fixed_roles.add(dataset.fixed_operator * noisy, test.target(s));
  }
  metrics["row_mse"] = role_json(pass.roles);
  metrics["optimal_row_mse"] = role_json(optimal_roles);
  metrics["fixed_row_mse"] = role_json(fixed_roles);
}

json thresholds_json(const AnalysisConfig& thresholds, int half_width) {
  return {{"iota_min", thresholds.iota_min},     {"tau_min", thresholds.tau_min},
          {"ell_min", thresholds.ell_min},       {"phi_min", thresholds.phi_min},
          {"alpha_min", thresholds.alpha_min},   {"eta_min", thresholds.eta_min},
          {"silent_max", thresholds.silent_max}, {"locality_half_width", half_width}};
}

// The references every run folder holds: the optimum's mean operator, the targets' spectrum and
// basis, and for kinds with partners the first samples' optima and partners.
void add_reference_arrays(std::vector<NamedArray>& arrays, const data::Dataset& dataset,
                          const OptimumPass& optimum, const GramBasis& targets,
                          const Eigen::MatrixXd& reference_basis, int saved) {
  const int n = dataset.spec.n;
  arrays.push_back(named_matrix("M_optimal", optimum.operators.mean()));
  arrays.push_back(named_vector("targets_singular_values", targets.singular_values));
  arrays.push_back(named_matrix("targets_basis", reference_basis));
  if (!dataset.kind->has_partners) return;
  arrays.push_back(samples_array("M_optimal_samples", optimum.saved, saved, n, n));
  NamedArray partners{"partners", {std::size_t(saved), std::size_t(n)}, {}, true};
  for (std::size_t e = 0; e < std::size_t(saved) * n; ++e)
    partners.values.push_back(dataset.test.partners[e]);
  arrays.push_back(partners);
}

}  // namespace

RunAnalysis analyze_model(const data::Dataset& dataset, model::Model<float>& model,
                          const AnalysisConfig& thresholds) {
  const data::DatasetConfig& spec = dataset.spec;
  const data::SampleSet& test = dataset.test;
  // The layers: the model's parts measured as layers (model/block.hpp; a mixer block's layer).
  const std::vector<model::PartIndex> measured =
      model::parts_measured(model, model::Measured::kAsLayer);
  // Kinds with partners (global, induction): the optimum is per sample, and routing is scored.
  const bool global = dataset.kind->has_partners;
  const int saved = std::min(kSavedSamples, test.count);
  const bool roles = static_cast<bool>(dataset.kind->row_roles);
  const std::vector<std::string> row_roles =
      roles ? dataset.kind->row_roles(spec) : std::vector<std::string>{};

  const TestPass pass = pass_over_test_set(dataset, model, measured, row_roles, roles, saved);
  const double test_mse = pass.test_mse;
  const double optimal_mse = data::optimal_mse(dataset, test);
  const double fixed_mse = data::fixed_mse(dataset, test);
  const OptimumPass optimum = pass_of_optimum(dataset, saved);

  // The reference subspace for α (docs/experiment.md §3): the classical SVD of the training
  // targets.
  const GramBasis targets =
      left_singular_basis(dataset.train.targets.data(), dataset.train.count, spec.n, spec.d);
  const Eigen::MatrixXd reference_basis = targets.left_vectors.leftCols(targets.k99);
  const int half_width = spec.kernel_width / 2;
  interrupt::throw_if_stop_requested("analysis");

  RunAnalysis analysis;
  json& metrics = analysis.metrics;
  metrics["dataset"] = spec.kind;
  metrics["test_mse"] = test_mse;
  metrics["optimal_mse"] = optimal_mse;
  metrics["fixed_mse"] = fixed_mse;
  metrics["eta"] = optimal_mse / test_mse;
  metrics["eta_fix"] = fixed_mse / test_mse;
  add_eta_ceiling(metrics, dataset);
  metrics["mixer"] = model.layer_config.mixer;
  metrics["depth"] = model.depth();
  metrics["width"] = model.width;
  metrics["residual"] = model.config.residual;
  metrics["targets_k99"] = targets.k99;
  metrics["optimal"] = {{"mse", optimal_mse}};
  if (global) metrics["optimal"]["routing_accuracy"] = optimum.routing.accuracy();

  const LayerContext context{reference_basis, targets.k99, half_width,
                             test_mse,        fixed_mse,   thresholds};
  if (pass.layers.size() == 1)
    add_single_layer(analysis, dataset, std::as_const(model), pass.layers.front(),
                     {optimum.operators, optimal_mse}, context, saved);
  else
    add_stack_top(analysis, dataset, pass, optimum, context);
  add_layer_reports(analysis, pass, context);
  if (roles) add_row_errors(metrics, dataset, pass, row_roles);
  metrics["thresholds"] = thresholds_json(thresholds, half_width);
  add_reference_arrays(analysis.arrays, dataset, optimum, targets, reference_basis, saved);
  return analysis;
}

std::string layer_verdicts_text(const json& metrics) {
  std::string text;
  char gain[32];
  for (const json& layer : metrics.value("layers", json::array())) {
    std::snprintf(gain, sizeof gain, "%.2f", layer.value("branch_gain", 0.0));
    text += (text.empty() ? "" : ", ") + std::to_string(layer.value("layer", 0)) + " " +
            layer.value("verdict", std::string("?")) + " (offset " +
            std::to_string(layer.value("dominant_offset", 0)) + ", gain " + gain + ")";
  }
  return text;
}

}  // namespace ufl::analysis
