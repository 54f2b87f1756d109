#pragma once
// Input dependence ι of docs/experiment.md §3 and the spread of per-sample spectra: a streaming
// accumulator over the per-sample operators M(X_s) of the test set, fed one at a time in a fixed
// order.
#include <Eigen/Dense>

namespace ufl::analysis {

// Mean and spread over samples of the per-sample spectra (the spectral view of M(X)). Standard
// deviations are population ones (divide by the sample count).
struct SpectrumSpread {
  double mean_effective_rank = 0.0, std_effective_rank = 0.0;
  double mean_k99 = 0.0, std_k99 = 0.0;
  Eigen::VectorXd mean_singular_values;  // the mean of the sorted singular value curves
};

class OperatorStatistics {
 public:
  // collect_spectra: also take the singular values of every operator (one SVD per sample).
  explicit OperatorStatistics(bool collect_spectra = false);

  // Adds M(X_s). Every operator must have the shape of the first; else std::invalid_argument.
  void add(const Eigen::MatrixXd& operator_of_sample);

  int count() const { return count_; }

  // M̄, the mean operator. Throws std::logic_error before the first add.
  Eigen::MatrixXd mean() const;

  // ι = mean_s ‖M_s − M̄‖²_F / mean_s ‖M_s‖²_F: 0 for a fixed operator, 1 when M̄ = 0
  // (docs/experiment.md §3). 0 when every operator is zero or none was added.
  double input_dependence() const;

  // Throws std::logic_error unless constructed with collect_spectra (or before the first add).
  SpectrumSpread spectrum_spread() const;

 private:
  bool collect_spectra_;
  int count_ = 0;
  // Welford's running mean and sum of squared deviations: the same streaming pass as
  // mean‖M_s‖² − ‖M̄‖², but without its cancellation, so a fixed operator gives ι = 0 exactly.
  Eigen::MatrixXd mean_;
  double squared_deviation_sum_ = 0.0;  // Σ_s ‖M_s − M̄‖²_F
  double squared_norm_sum_ = 0.0;       // Σ_s ‖M_s‖²_F
  // Spectra, also by Welford.
  double mean_effective_rank_ = 0.0, effective_rank_deviation_sum_ = 0.0;
  double mean_k99_ = 0.0, k99_deviation_sum_ = 0.0;
  Eigen::VectorXd singular_value_sum_;
};

}  // namespace ufl::analysis
