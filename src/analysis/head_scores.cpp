#include "analysis/head_scores.hpp"

#include <algorithm>
#include <cmath>

#include "analysis/input_dependence.hpp"
#include "analysis/spectrum.hpp"
#include "analysis/structure_scores.hpp"

namespace ufl::analysis {
namespace {

// ‖M‖² on the diagonal of offset o = i − j (o ≥ 0: at or below the main diagonal).
double offset_energy(const Eigen::MatrixXd& m, int offset) {
  double energy = 0;
  for (Eigen::Index i = offset; i < m.rows(); ++i) energy += m(i, i - offset) * m(i, i - offset);
  return energy;
}

// The best causal band of `taps` diagonals (offsets 0…taps−1, each replaced by its mean): the
// Toeplitz projection of the lower band.
Eigen::MatrixXd causal_band_fit(const Eigen::MatrixXd& m, int taps) {
  Eigen::MatrixXd fit = Eigen::MatrixXd::Zero(m.rows(), m.cols());
  for (int offset = 0; offset < taps && offset < m.rows(); ++offset) {
    double mean = 0;
    for (Eigen::Index i = offset; i < m.rows(); ++i) mean += m(i, i - offset);
    mean /= double(m.rows() - offset);
    for (Eigen::Index i = offset; i < m.rows(); ++i) fit(i, i - offset) = mean;
  }
  return fit;
}

struct FamilyFit {
  std::string family;
  int size;  // taps or rank
  long long parameters;
  double share;  // of ‖M̄‖² kept: 1 − ‖M̄ − fit‖²/‖M̄‖²
};

}  // namespace

nlohmann::json head_scores(const std::vector<Eigen::MatrixXd>& windows, std::optional<double> gamma,
                           const AnalysisConfig& thresholds) {
  OperatorStatistics statistics;
  for (const Eigen::MatrixXd& m : windows) statistics.add(m);
  return head_scores(statistics, gamma, thresholds);
}

nlohmann::json head_scores(const OperatorStatistics& statistics, std::optional<double> gamma,
                           const AnalysisConfig& thresholds) {
  nlohmann::json scores = nlohmann::json::object();
  if (statistics.count() == 0) return scores;
  const Eigen::MatrixXd mean = statistics.mean();
  const int n = int(mean.rows());
  const double energy = mean.squaredNorm();
  scores["windows"] = statistics.count();
  scores["iota"] = statistics.input_dependence();
  scores["tau"] = toeplitz_score(mean);
  // ℓ with the Section 8 band (half-width 2), and the narrowest band holding 90% of ‖M̄‖².
  scores["ell"] = locality_score(mean, 2);
  int band = 0;
  while (band < n - 1 && locality_score(mean, band) < 0.9) ++band;
  scores["band_90"] = band;
  const Eigen::VectorXd singular = singular_values_of(mean);
  scores["effective_rank"] = effective_rank_of(singular);
  scores["k99"] = k99_of(singular);
  if (gamma) scores["gamma"] = *gamma;

  // Mean attention distance Σ_j w_ij (i − j) per row, with w the row's |M̄| normalised to sum 1
  // (for softmax rows, M̄ itself); rows of zeros are left out.
  double distance = 0;
  int rows = 0;
  bool stochastic = true;
  for (int i = 0; i < n; ++i) {
    const double total = mean.row(i).cwiseAbs().sum();
    if (std::abs(mean.row(i).sum() - 1) > 1e-3 || mean.row(i).minCoeff() < -1e-6)
      stochastic = false;
    if (total <= 0) continue;
    double row_distance = 0;
    for (int j = 0; j < n; ++j) row_distance += std::abs(mean(i, j)) * (i - j);
    distance += row_distance / total;
    ++rows;
  }
  scores["mean_distance"] = rows > 0 ? distance / rows : 0.0;
  scores["rows_stochastic"] = stochastic;

  int dominant = 0;
  double dominant_energy = -1;
  for (int offset = 0; offset < n; ++offset)
    if (const double e = offset_energy(mean, offset); e > dominant_energy) {
      dominant_energy = e;
      dominant = offset;
    }
  scores["dominant_offset"] = dominant;
  scores["dominant_share"] = energy > 0 ? dominant_energy / energy : 0.0;

  // The causal families by parsimony (docs/transformer.md §5): the fewest-parameter fit keeping
  // kHeadFitShare of ‖M̄‖², or "none of the families" with the best one's share.
  std::vector<FamilyFit> fits;
  if (energy > 0) {
    for (int taps = 1; taps <= n; ++taps)
      fits.push_back({"convolution", taps, taps,
                      1 - (mean - causal_band_fit(mean, taps)).squaredNorm() / energy});
    double kept = 0;
    for (int k = 1; k <= n; ++k) {
      kept += singular(k - 1) * singular(k - 1);
      fits.push_back({"lowrank", k, static_cast<long long>(k) * (2LL * n - k), kept / energy});
    }
  }
  const FamilyFit* chosen = nullptr;
  const FamilyFit* best = nullptr;
  for (const FamilyFit& fit : fits) {
    if (best == nullptr || fit.share > best->share) best = &fit;
    if (fit.share >= kHeadFitShare && (chosen == nullptr || fit.parameters < chosen->parameters))
      chosen = &fit;
  }
  // An input-dependent head is described by that first: a fit of its mean M̄ by a fixed family
  // says little about the M(X) it computes.
  const bool content = scores["iota"].get<double>() >= thresholds.iota_min;
  scores["input_dependent"] = content;
  nlohmann::json closest = nlohmann::json::object();
  if (content) {
    closest["family"] = stochastic ? "attention" : "input-dependent";
    closest["rule"] = stochastic ? "ι ≥ analysis.iota_min and rows of M̄ ≥ 0 summing to 1"
                                 : "ι ≥ analysis.iota_min; rows of M̄ not a distribution (a "
                                   "linear branch)";
  } else if (chosen != nullptr) {
    closest["family"] = chosen->family;
    closest["size"] = chosen->size;
    closest["share"] = chosen->share;
  } else {
    closest["family"] = "none of the families";
    if (best != nullptr) {
      closest["best"] = best->family;
      closest["best_size"] = best->size;
      closest["best_share"] = best->share;
    }
  }
  scores["closest"] = closest;
  return scores;
}

std::string head_kind(const nlohmann::json& scores) {
  if (!scores.contains("iota")) return "none";
  const nlohmann::json closest = scores.value("closest", nlohmann::json::object());
  const std::string family = closest.value("family", std::string());
  if (scores.value("input_dependent", false)) return "content";
  if (scores.value("dominant_share", 0.0) >= 0.5) {
    const int offset = scores.value("dominant_offset", -1);
    return offset == 0   ? "self"
           : offset == 1 ? "previous-token"
                         : "offset " + std::to_string(offset);
  }
  if (family == "convolution") return "local";
  if (family == "lowrank") return "low-rank";
  return "none";
}

}  // namespace ufl::analysis
