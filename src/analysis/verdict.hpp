#pragma once
// The verdict of docs/experiment.md §3: which classical operator the learned layer became, and
// whether it counts as emerged.
#include <string>

#include "analysis/analysis_config.hpp"

namespace ufl::analysis {

struct VerdictInputs {
  double iota = 0.0;       // input dependence ι
  double tau = 0.0;        // Toeplitz score τ
  double ell = 0.0;        // locality ℓ
  double phi = 0.0;        // Fourier score φ
  double alpha = 0.0;      // SVD alignment α
  double eta = 0.0;        // efficiency η = mse(M*) / mse(layer)
  double test_mse = 0.0;   // mse(layer) on the test set
  double fixed_mse = 0.0;  // mse(M_fix) on the test set
  int k = 0;               // the training targets' k99
  int n = 0;               // positions
};

struct Verdict {
  std::string name;  // "attention", "convolution", "fourier", "svd" or "unclassified"
  bool emerged = false;
};

// docs/experiment.md §3, first match wins: attention if ι ≥ iota_min and test_mse < fixed_mse;
// convolution if τ ≥ tau_min and ℓ ≥ ell_min; fourier if φ ≥ phi_min; svd if α ≥ alpha_min and k <
// n; else unclassified. Attention has emerged by passing its test (it beats every fixed operator);
// a fixed-operator verdict has emerged only with η ≥ eta_min (a scaled identity is Toeplitz and
// local, but a poor denoiser); unclassified never has. A NaN score fails its test.
Verdict decide(const VerdictInputs& inputs, const AnalysisConfig& thresholds);

// What one layer of a stack became (docs/section7.md §4), from the scores of its M̄_l; test_mse
// and fixed_mse are the stack's, end to end.
struct LayerVerdictInputs {
  VerdictInputs scores;
  int dominant_offset = 0;   // the diagonal of M̄_l holding the most energy (diagonal_energy.hpp)
  int band_width = 0;        // the fewest diagonals of M̄_l holding ell_min of its energy
  double branch_gain = 0.0;  // mean ‖M_l H W_v‖_F / ‖H‖_F over the test set
};

// First match wins: silent if branch_gain < silent_max (the layer adds next to nothing);
// attention if ι ≥ iota_min and the stack beats M_fix; diagonal if the dominant offset is 0 and
// one diagonal holds ell_min of the energy (a scaled identity or per-position gain: Toeplitz and
// local, but not a convolution); convolution if τ ≥ tau_min and ℓ ≥ ell_min (so a shift, or a
// band wider than one diagonal); fourier; svd; else unclassified, as in decide(). Whether the
// stack reached the optimum is its end-to-end η, not any one layer's.
std::string decide_layer(const LayerVerdictInputs& inputs, const AnalysisConfig& thresholds);

}  // namespace ufl::analysis
