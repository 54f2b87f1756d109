#pragma once
// The verdict's thresholds (the keys analysis.*, docs/experiment.md §3); rules and meanings are in
// config/keys.cpp.

namespace ufl::analysis {

struct AnalysisConfig {
  double iota_min = 0.2;
  double tau_min = 0.9;
  double ell_min = 0.9;
  double phi_min = 0.9;
  double alpha_min = 0.9;
  double eta_min = 0.9;
  double silent_max = 0.05;  // a stack's layer is silent below this branch gain
};

}  // namespace ufl::analysis
