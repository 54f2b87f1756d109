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

}  // namespace ufl::analysis
