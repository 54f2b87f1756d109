// The parsimony verdict (docs/universality.md §3) and the best operator of each special case on
// the test set; see closest_special_case.hpp.
#include "analysis/closest_special_case.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

#include "analysis/explanation.hpp"
#include "data/bases.hpp"
#include "data/registry.hpp"
#include "model/evaluate.hpp"
#include "model/mixers/fourier.hpp"
#include "model/mixers/registry.hpp"

namespace ufl::analysis {
namespace {

using nlohmann::json;
using FloatRowMajor =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

// The diagonal j − i = k (|k| < n) as an indicator matrix.
Eigen::MatrixXd diagonal_indicator(int n, int k) {
  Eigen::MatrixXd indicator = Eigen::MatrixXd::Zero(n, n);
  for (int i = std::max(0, -k); i < std::min(n, n - k); ++i) indicator(i, i + k) = 1.0;
  return indicator;
}

// Π_f(i, j) = c_f·cos(2πf(i−j)/n)/n, f = 0..⌊n/2⌋ (model/mixers/fourier.hpp).
std::vector<Eigen::MatrixXd> frequency_projectors(int n) {
  const std::vector<double> basis = model::circulant_basis(n);
  std::vector<Eigen::MatrixXd> projectors;
  for (int f = 0; f < model::fourier_gain_count(n); ++f) {
    Eigen::MatrixXd projector(n, n);
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) projector(i, j) = basis[std::size_t(f) * n + (j - i + n) % n];
    projectors.push_back(projector);
  }
  return projectors;
}

// The member of span(basis) with the least test error: θ = H⁻¹c, H_ab = ⟨B_a G, B_b⟩,
// c_a = ⟨B_a, K⟩.
Eigen::MatrixXd best_in_span(const FixedOperatorErrors& errors,
                             const std::vector<Eigen::MatrixXd>& basis) {
  const int p = static_cast<int>(basis.size());
  Eigen::MatrixXd h(p, p);
  Eigen::VectorXd c(p);
  for (int a = 0; a < p; ++a) {
    const Eigen::MatrixXd weighted = basis[a] * errors.gram;
    for (int b = 0; b < p; ++b) h(a, b) = (weighted.array() * basis[b].array()).sum();
    c(a) = (basis[a].array() * errors.cross.array()).sum();
  }
  const Eigen::VectorXd theta = h.ldlt().solve(c);
  Eigen::MatrixXd best = Eigen::MatrixXd::Zero(errors.gram.rows(), errors.gram.cols());
  for (int a = 0; a < p; ++a) best += theta(a) * basis[a];
  return best;
}

long long square(long long n) { return n * n; }

double eta_of(double optimal_mse, double mse) {
  return optimal_mse / std::max(mse, std::numeric_limits<double>::min());
}

long long parameter_count(const model::Mixer<float>& mixer, const model::LayerShape& shape,
                          const model::LayerConfig& config) {
  long long count = 0;
  for (const model::TensorSpec& spec : mixer.parameters(shape, config))
    count += static_cast<long long>(spec.rows) * spec.cols;
  return count;
}

// The forms of M the parsimony verdict names, asked of a mixer's properties rather than its name
// (docs/universality.md §3). Attention's: M = softmax(S) of dot-product scores, no gate, so every
// operator is row-stochastic.
bool attention_form(const model::Mixer<float>& mixer) {
  return mixer.softmax_branch() && !mixer.learned_gate() && !mixer.distance_scores();
}
// The universal layer's: (1−γ)·S + γ·softmax(S) of dot-product scores, which holds operators of
// any sign; the general input-dependent form rather than a special case.
bool general_form(const model::Mixer<float>& mixer) {
  return mixer.softmax_branch() && mixer.learned_gate() && !mixer.distance_scores();
}

// The attention fit of a trained layer (docs/universality.md §3): its own parameters run as the
// attention mixer, i.e. with the gate forced open (γ = 1). Exists when the layer's mixer has every
// parameter of the attention mixer, by name and shape (the universal layer); its test MSE.
std::optional<InputDependentFit> attention_fit(const data::Dataset& dataset,
                                               const model::Model<float>& model,
                                               model::PartIndex at) {
  const model::Mixer<float>* attention = model::find_mixer_if<float>(attention_form);
  const model::Mixer<float>& mixer = *model.part(at.block, at.part).mixer;
  // Distance scores run as attention would be a dot-product head the layer never was.
  if (attention == nullptr || &mixer == attention || mixer.distance_scores()) return std::nullopt;
  model::LayerConfig config = model.layer_config;
  config.mixer = attention->name();
  config.head_mixers.clear();  // every part attention
  model::Model<float> fit(model.n, model.d, model.config, config);
  for (const model::ParameterSlice& slice : fit.params.slices) {
    const auto& from = model.params.slices;
    const auto found = std::find_if(from.begin(), from.end(), [&](const model::ParameterSlice& s) {
      return s.name == slice.name && s.rows == slice.rows && s.cols == slice.cols;
    });
    if (found == from.end()) return std::nullopt;
    std::copy_n(model.params.values.begin() + found->offset, slice.size(),
                fit.params.values.begin() + slice.offset);
  }
  model::Evaluator evaluator(fit, dataset.test.count);
  return InputDependentFit{std::string(attention->name()), evaluator.mse(dataset.test),
                           parameter_count(*attention, fit.part(at.block, at.part).shape, config),
                           general_form(*attention)};
}

// Whether every per-sample optimum is non-negative with equal row sums: a row-stochastic
// operator up to the scale W_v can carry, i.e. attention's form (global: 1/(2+σ²) twice a row).
bool optimum_is_attention_shaped(const data::Dataset& dataset) {
  for (int s = 0; s < dataset.test.count; ++s) {
    const Eigen::MatrixXd m = data::optimal_operator(dataset, dataset.test, s);
    const Eigen::VectorXd rows = m.rowwise().sum();
    if (m.minCoeff() < 0 || rows.maxCoeff() - rows.minCoeff() > 1e-12 * rows.cwiseAbs().maxCoeff())
      return false;
  }
  return true;
}

// Σ over negative entries of m² / ‖m‖²_F.
double negative_energy_share(const Eigen::MatrixXd& m) {
  const double total = m.squaredNorm();
  return total > 0 ? m.cwiseMin(0.0).squaredNorm() / total : 0.0;
}

// The best fixed operator a mixer can be on this test set, by its family; nullopt when its
// operators form no linear family the fits know (attention).
std::optional<Eigen::MatrixXd> best_fixed_operator(const model::OperatorFamily& family,
                                                   const FixedOperatorErrors& errors) {
  switch (family.fixed) {
    case model::OperatorFamily::Fixed::kBand:
      return best_band(errors, family.size);
    case model::OperatorFamily::Fixed::kSymmetricCirculant:
      return best_circulant(errors);
    case model::OperatorFamily::Fixed::kRankAtMost:
      return best_of_rank(errors, family.size);
    case model::OperatorFamily::Fixed::kNone:
      return std::nullopt;
  }
  return std::nullopt;
}

// The fit of one butterfly block of size m = rows of `target` (a power of two), recursively:
// M = [[D₁R₁, D₂R₂], [D₃R₁, D₄R₂]] with diagonal D's and butterflies R₁, R₂ of half the size, so
// row i of the left half-columns, stacked as the 2×(m/2) matrix [M₁₁(i, :); M₂₁(i, :)], is of
// rank one. Its best rank-one approximation u·vᵀ (‖u‖ = 1) gives row i of R₁'s target, v; as
// (M − u·vᵀ) ⟂ u, the error splits into the rank-one residuals plus the error of fitting R₁ to
// the rows v (the same for R₂). Exact on butterfly matrices.
Eigen::MatrixXd butterfly_block_fit(const Eigen::MatrixXd& target) {
  const int m = static_cast<int>(target.rows());
  if (m == 1) return target;
  const int half = m / 2;
  Eigen::MatrixXd fit(m, m);
  for (int side = 0; side < 2; ++side) {  // left columns (R₁), right columns (R₂)
    Eigen::MatrixXd inner(half, half), outer(half, 2);
    for (int i = 0; i < half; ++i) {
      Eigen::MatrixXd pair(2, half);
      pair.row(0) = target.block(i, side * half, 1, half);
      pair.row(1) = target.block(half + i, side * half, 1, half);
      const Eigen::JacobiSVD<Eigen::MatrixXd> svd(pair, Eigen::ComputeFullU | Eigen::ComputeThinV);
      outer.row(i) = svd.matrixU().col(0).transpose();
      inner.row(i) = svd.singularValues()(0) * svd.matrixV().col(0).transpose();
    }
    const Eigen::MatrixXd inner_fit = butterfly_block_fit(inner);
    for (int i = 0; i < half; ++i) {
      fit.block(i, side * half, 1, half) = outer(i, 0) * inner_fit.row(i);
      fit.block(half + i, side * half, 1, half) = outer(i, 1) * inner_fit.row(i);
    }
  }
  return fit;
}

bool power_of_two(int n) { return n >= 1 && (n & (n - 1)) == 0; }

// The families of the fixed fits, in the order results list them; the input-dependent fits
// (named by their mixers, given by the caller) follow in the order given.
const std::vector<std::string>& fixed_family_names() {
  static const std::vector<std::string> names = {"convolution", "fourier",   "walsh",   "haar",
                                                 "dct",         "butterfly", "lowrank", "linear"};
  return names;
}

// The fixed candidates of an n×n operator m: (fit description, fit matrix), fewest parameters
// first within a family.
struct FixedCandidate {
  SpecialCaseFit fit;
  Eigen::MatrixXd matrix;
};

std::vector<FixedCandidate> fixed_candidates(const Eigen::MatrixXd& m) {
  const int n = static_cast<int>(m.rows());
  std::vector<FixedCandidate> out;
  for (int width = 1; width <= 2 * n - 1; width += 2)
    out.push_back({{"convolution", width, 0, width}, band_projection(m, width)});
  out.push_back({{"fourier", 0, 0, model::fourier_gain_count(n)}, circulant_projection(m)});
  if (power_of_two(n)) {
    out.push_back(
        {{"walsh", 0, 0, n}, basis_diagonal_projection(m, data::walsh_hadamard_basis(n))});
    out.push_back({{"haar", 0, 0, n}, basis_diagonal_projection(m, data::haar_basis(n))});
  }
  out.push_back({{"dct", 0, 0, n}, basis_diagonal_projection(m, data::dct_basis(n))});
  if (power_of_two(n) && n >= 2)
    out.push_back({{"butterfly", 0, 0, 2LL * n * data::log2_exact(n)}, butterfly_fit(m)});
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(m, Eigen::ComputeFullU | Eigen::ComputeFullV);
  for (int k = 1; k < n; ++k) {
    const Eigen::MatrixXd truncated = svd.matrixU().leftCols(k) *
                                      svd.singularValues().head(k).asDiagonal() *
                                      svd.matrixV().leftCols(k).transpose();
    out.push_back({{"lowrank", 0, k, static_cast<long long>(k) * (2 * n - k)}, truncated});
  }
  return out;
}

// Fewest parameters first; among equals the higher η (or kept share).
void sort_by_parsimony(std::vector<SpecialCaseFit>& candidates) {
  std::stable_sort(
      candidates.begin(), candidates.end(), [](const SpecialCaseFit& a, const SpecialCaseFit& b) {
        return a.parameters != b.parameters ? a.parameters < b.parameters : a.eta > b.eta;
      });
}

// Per family: its first candidate that keeps (the fewest parameters), else its highest η.
std::vector<SpecialCaseFit> best_per_family(const std::vector<SpecialCaseFit>& candidates) {
  std::vector<std::string> names = fixed_family_names();
  for (const SpecialCaseFit& fit : candidates)
    if (fit.input_dependent && std::find(names.begin(), names.end(), fit.mixer) == names.end())
      names.push_back(fit.mixer);
  std::vector<SpecialCaseFit> families;
  for (const std::string& family : names) {
    const SpecialCaseFit* best = nullptr;
    for (const SpecialCaseFit& fit : candidates) {
      if (fit.mixer != family) continue;
      if (fit.keeps) {
        best = &fit;
        break;
      }
      if (best == nullptr || fit.eta > best->eta) best = &fit;
    }
    if (best != nullptr) families.push_back(*best);
  }
  return families;
}

// A structured family: a special case with structure of its own, not the general operator (a
// free matrix, or the universal layer), and not a truncation that keeps more than half the rank
// (rank k > n/2 has over 3/4 of a free matrix's parameters: docs/planted.md §2).
bool structured(const SpecialCaseFit& fit, int n) {
  if (fit.rank > 0) return 2 * fit.rank <= n;  // the rank-k truncations (lowrank)
  return !fit.general;
}

// The structured family that keeps with the fewest parameters, else the one with the highest
// η(fit) (candidates sorted by parsimony).
SpecialCaseFit best_structured(const std::vector<SpecialCaseFit>& candidates, int n) {
  SpecialCaseFit best{"none"};
  best.eta = -std::numeric_limits<double>::infinity();
  for (const SpecialCaseFit& fit : candidates) {
    if (!structured(fit, n)) continue;
    if (fit.keeps) return fit;
    if (fit.eta > best.eta) best = fit;
  }
  return best;
}

}  // namespace

Eigen::MatrixXd basis_diagonal_projection(const Eigen::MatrixXd& m, const Eigen::MatrixXd& rows) {
  // The matrices w_k w_kᵀ are orthonormal in the Frobenius product, so the projection keeps
  // each coefficient w_kᵀ M w_k.
  const Eigen::VectorXd gains = (rows * m * rows.transpose()).diagonal();
  return rows.transpose() * gains.asDiagonal() * rows;
}

Eigen::MatrixXd butterfly_fit(const Eigen::MatrixXd& m) { return butterfly_block_fit(m); }

double FixedOperatorErrors::mse(const Eigen::MatrixXd& m) const {
  const double squared_error =
      (m * gram).cwiseProduct(m).sum() - 2.0 * m.cwiseProduct(cross).sum() + target_energy;
  return squared_error / elements;
}

FixedOperatorErrors fixed_operator_errors(const data::SampleSet& set, const Eigen::MatrixXd& w) {
  FixedOperatorErrors errors;
  errors.gram = Eigen::MatrixXd::Zero(set.n, set.n);
  errors.cross = Eigen::MatrixXd::Zero(set.n, set.n);
  for (int s = 0; s < set.count; ++s) {
    const Eigen::MatrixXd x = FloatRowMajor(set.input(s), set.n, set.d).cast<double>();
    const Eigen::MatrixXd c = FloatRowMajor(set.target(s), set.n, set.d).cast<double>();
    const Eigen::MatrixXd xw = x * w;
    errors.gram.noalias() += xw * xw.transpose();
    errors.cross.noalias() += c * xw.transpose();
    errors.target_energy += c.squaredNorm();
  }
  errors.elements = double(set.count) * set.n * set.d;
  return errors;
}

Eigen::MatrixXd band_projection(const Eigen::MatrixXd& m, int width) {
  const int n = static_cast<int>(m.rows()), half = std::min(width / 2, n - 1);
  Eigen::MatrixXd band = Eigen::MatrixXd::Zero(n, n);
  for (int k = -half; k <= half; ++k) {
    const int first = std::max(0, -k), last = std::min(n, n - k);
    double sum = 0;
    for (int i = first; i < last; ++i) sum += m(i, i + k);
    const double mean = sum / (last - first);
    for (int i = first; i < last; ++i) band(i, i + k) = mean;
  }
  return band;
}

Eigen::MatrixXd circulant_projection(const Eigen::MatrixXd& m) {
  Eigen::MatrixXd fit = Eigen::MatrixXd::Zero(m.rows(), m.cols());
  for (const Eigen::MatrixXd& projector : frequency_projectors(static_cast<int>(m.rows())))
    fit += (m.cwiseProduct(projector).sum() / projector.squaredNorm()) * projector;
  return fit;
}

Eigen::MatrixXd best_band(const FixedOperatorErrors& errors, int width) {
  const int n = static_cast<int>(errors.gram.rows()), half = std::min(width / 2, n - 1);
  std::vector<Eigen::MatrixXd> basis;
  for (int k = -half; k <= half; ++k) basis.push_back(diagonal_indicator(n, k));
  return best_in_span(errors, basis);
}

Eigen::MatrixXd best_circulant(const FixedOperatorErrors& errors) {
  return best_in_span(errors, frequency_projectors(static_cast<int>(errors.gram.rows())));
}

Eigen::MatrixXd best_of_rank(const FixedOperatorErrors& errors, int rank) {
  // With G = LLᵀ: tr(MGMᵀ) − 2⟨M, K⟩ = ‖ML − KL⁻ᵀ‖²_F − const, so ML is the rank-k truncation
  // of KL⁻ᵀ (Eckart–Young) and M = (ML)·L⁻¹.
  const Eigen::LLT<Eigen::MatrixXd> cholesky(errors.gram);
  const Eigen::MatrixXd& lower = cholesky.matrixL();
  const Eigen::MatrixXd whitened =
      lower.triangularView<Eigen::Lower>().solve(errors.cross.transpose()).transpose();
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(whitened, Eigen::ComputeThinU | Eigen::ComputeThinV);
  const int k = std::min<int>(rank, static_cast<int>(svd.singularValues().size()));
  const Eigen::MatrixXd truncated = svd.matrixU().leftCols(k) *
                                    svd.singularValues().head(k).asDiagonal() *
                                    svd.matrixV().leftCols(k).transpose();
  return lower.transpose().triangularView<Eigen::Upper>().solve(truncated.transpose()).transpose();
}

ClosestSpecialCase closest_special_case(const FixedOperatorErrors& errors,
                                        const ParsimonyQuestion& question) {
  const Eigen::MatrixXd& m = question.mean_operator;
  const int n = static_cast<int>(m.rows());
  ClosestSpecialCase result;
  result.eta = eta_of(question.optimal_mse, question.mse);
  const double needed = kParsimonyShare * result.eta;
  std::vector<SpecialCaseFit> candidates;
  auto add = [&](SpecialCaseFit fit, double mse) {
    fit.eta = eta_of(question.optimal_mse, mse);
    fit.keeps = fit.eta >= needed;
    candidates.push_back(fit);
  };
  for (const FixedCandidate& candidate : fixed_candidates(m))
    add(candidate.fit, errors.mse(candidate.matrix));
  add({"linear", 0, 0, square(n), 0, false, false, true}, errors.mse(m));
  // Input-dependent operators are the answer only when they are input-dependent enough and beat
  // the best fixed operator (docs/universality.md §3, as the verdict's attention test of
  // docs/experiment.md §3).
  result.input_dependent_allowed =
      question.iota >= question.iota_min && question.mse < question.fixed_mse;
  if (result.input_dependent_allowed)
    for (const InputDependentFit& fit : question.input_dependent)
      add({fit.mixer, 0, 0, fit.parameters, 0, false, true, fit.general}, fit.mse);

  sort_by_parsimony(candidates);
  auto choose = [&](double share) {
    const auto chosen =
        std::find_if(candidates.begin(), candidates.end(),
                     [&](const SpecialCaseFit& fit) { return fit.eta >= share * result.eta; });
    SpecialCaseFit answer = chosen != candidates.end() ? *chosen : SpecialCaseFit{"none"};
    answer.keeps = chosen != candidates.end();
    return answer;
  };
  result.chosen = choose(kParsimonyShare);
  if (result.chosen.mixer == "none") result.chosen.keeps = false;
  for (double share : kRobustnessShares) result.by_share.push_back({share, choose(share)});
  result.families = best_per_family(candidates);
  result.best_structured = best_structured(candidates, n);
  result.none_of_the_families = !result.best_structured.keeps;
  return result;
}

json to_json(const ClosestSpecialCase& result) {
  auto fit_json = [](const SpecialCaseFit& fit) {
    json entry = {{"parameters", fit.parameters}, {"eta", fit.eta}, {"keeps", fit.keeps}};
    if (fit.kernel_width > 0) entry["kernel_width"] = fit.kernel_width;
    if (fit.rank > 0) entry["rank"] = fit.rank;
    if (fit.input_dependent) entry["input_dependent"] = true;
    return entry;
  };
  json out = fit_json(result.chosen);
  out.erase("keeps");
  out["mixer"] = result.chosen.mixer;
  out["eta_of_operator"] = result.eta;
  out["share"] = kParsimonyShare;
  out["input_dependent_allowed"] = result.input_dependent_allowed;
  // Whether any family with structure of its own (not a free matrix, not the universal layer
  // itself) keeps the share; the best such family either way.
  out["none_of_the_families"] = result.none_of_the_families;
  json best = fit_json(result.best_structured);
  best["mixer"] = result.best_structured.mixer;
  out["best_family"] = best;
  json by_share = json::array();
  for (const auto& [share, fit] : result.by_share) {
    json entry = fit_json(fit);
    entry.erase("keeps");
    entry["mixer"] = fit.mixer;
    entry["share"] = share;
    by_share.push_back(entry);
  }
  out["by_share"] = by_share;
  json families = json::object();
  for (const SpecialCaseFit& fit : result.families) families[fit.mixer] = fit_json(fit);
  out["families"] = families;
  return out;
}

json family_energy_fit(const Eigen::MatrixXd& mean_operator) {
  const double energy = mean_operator.squaredNorm();
  std::vector<SpecialCaseFit> candidates;
  for (const FixedCandidate& candidate : fixed_candidates(mean_operator)) {
    SpecialCaseFit fit = candidate.fit;
    // The kept share of the energy plays η's part: 1 − ‖M̄ − fit‖²/‖M̄‖².
    fit.eta = energy > 0 ? 1.0 - (mean_operator - candidate.matrix).squaredNorm() / energy : 0.0;
    fit.keeps = fit.eta >= kParsimonyShare;
    candidates.push_back(fit);
  }
  sort_by_parsimony(candidates);
  auto entry = [](const SpecialCaseFit& fit) {
    json out = {{"mixer", fit.mixer}, {"parameters", fit.parameters}, {"kept", fit.eta}};
    if (fit.kernel_width > 0) out["kernel_width"] = fit.kernel_width;
    if (fit.rank > 0) out["rank"] = fit.rank;
    return out;
  };
  const int n = static_cast<int>(mean_operator.rows());
  const SpecialCaseFit best = best_structured(candidates, n);
  json out = best.keeps ? entry(best) : json{{"mixer", "none"}};
  out["share"] = kParsimonyShare;
  out["none_of_the_families"] = !best.keeps;
  out["best_family"] = entry(best);
  json families = json::object();
  for (const SpecialCaseFit& fit : best_per_family(candidates)) families[fit.mixer] = entry(fit);
  out["families"] = families;
  return out;
}

void add_parsimony(json& metrics, const data::Dataset& dataset, const model::Model<float>& model,
                   model::PartIndex at, const Eigen::MatrixXd& layer_mean,
                   const Eigen::MatrixXd& optimal_mean, const AnalysisConfig& thresholds) {
  if (model::parts_measured(model, model::Measured::kAsLayer).size() != 1) return;
  const model::MixerPart<float>& layer = model.part(at.block, at.part);
  const model::Mixer<float>& mixer = *layer.mixer;
  const data::SampleSet& test = dataset.test;
  const double test_mse = metrics.at("test_mse").get<double>();
  const double optimal_mse = metrics.at("optimal_mse").get<double>();
  const double fixed_mse = metrics.at("fixed_mse").get<double>();
  const long long parameters = parameter_count(mixer, layer.shape, model.layer_config);
  metrics["mixer_parameters"] = parameters;

  // The layer: its M̄ with its own W_v; as input-dependent candidates, itself and its attention
  // fit.
  const Eigen::MatrixXd w_v = model.w_v(at.block, at.part).cast<double>();
  ParsimonyQuestion layer_question{
      layer_mean,          test_mse, optimal_mse, fixed_mse, metrics.at("iota").get<double>(),
      thresholds.iota_min, {}};
  if (mixer.input_dependent()) {
    if (const auto fit = attention_fit(dataset, model, at))
      layer_question.input_dependent.push_back(*fit);
    layer_question.input_dependent.push_back(
        {std::string(mixer.name()), test_mse, parameters, general_form(mixer)});
  }
  metrics["closest_special_case"] =
      to_json(closest_special_case(fixed_operator_errors(test, w_v), layer_question));

  // The optimum M*, applied as M*·X (W = I). Per sample (global) it is attention's form when its
  // rows are non-negative with equal sums, else only the universal layer's.
  const FixedOperatorErrors plain =
      fixed_operator_errors(test, Eigen::MatrixXd::Identity(dataset.spec.d, dataset.spec.d));
  json& optimal = metrics["optimal"];
  ParsimonyQuestion optimum_question{
      optimal_mean,        optimal_mse, optimal_mse, fixed_mse, optimal.at("iota").get<double>(),
      thresholds.iota_min, {}};
  if (dataset.kind->has_partners) {
    const model::Mixer<float>* form = model::find_mixer_if<float>(
        optimum_is_attention_shaped(dataset) ? attention_form : general_form);
    if (form != nullptr)
      optimum_question.input_dependent.push_back(
          {std::string(form->name()), optimal_mse,
           parameter_count(*form, layer.shape, model.layer_config), general_form(*form)});
  }
  optimal["closest_special_case"] = to_json(closest_special_case(plain, optimum_question));
  optimal["negative_energy_share"] = negative_energy_share(optimal_mean);

  // What this mixer can be, and the best fixed operator among those on this test set.
  const model::OperatorFamily family = mixer.operator_family(layer.shape, model.layer_config);
  json reach = {{"operators", family.words}, {"input_dependent", mixer.input_dependent()}};
  if (const auto best = best_fixed_operator(family, plain))
    reach["best_fixed_eta"] = eta_of(optimal_mse, plain.mse(*best));
  metrics["mixer_reach"] = reach;
  metrics["explanation"] = explain_run(metrics);
}

}  // namespace ufl::analysis
