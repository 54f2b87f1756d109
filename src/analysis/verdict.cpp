#include "analysis/verdict.hpp"

#include <stdexcept>

namespace ufl::analysis {

Verdict decide(const VerdictInputs& inputs, const AnalysisConfig& thresholds) {
  const bool reached_optimum = inputs.eta >= thresholds.eta_min;
  if (inputs.iota >= thresholds.iota_min && inputs.test_mse < inputs.fixed_mse) {
    return {"attention", true};
  }
  if (inputs.tau >= thresholds.tau_min && inputs.ell >= thresholds.ell_min) {
    return {"convolution", reached_optimum};
  }
  if (inputs.phi >= thresholds.phi_min) return {"fourier", reached_optimum};
  if (inputs.alpha >= thresholds.alpha_min && inputs.k < inputs.n) {
    return {"svd", reached_optimum};
  }
  return {"unclassified", false};
}

std::string decide_layer(const LayerVerdictInputs& inputs, const AnalysisConfig& thresholds) {
  const VerdictInputs& scores = inputs.scores;
  // Written as "not ≥" so that a NaN gain counts as silent, as a NaN score fails its test.
  if (!(inputs.branch_gain >= thresholds.silent_max)) return "silent";
  if (scores.iota >= thresholds.iota_min && scores.test_mse < scores.fixed_mse) return "attention";
  if (inputs.dominant_offset == 0 && inputs.band_width == 1) return "diagonal";
  if (scores.tau >= thresholds.tau_min && scores.ell >= thresholds.ell_min) return "convolution";
  if (scores.phi >= thresholds.phi_min) return "fourier";
  if (scores.alpha >= thresholds.alpha_min && scores.k < scores.n) return "svd";
  return "unclassified";
}

}  // namespace ufl::analysis
