#include "analysis/input_dependence.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "analysis/spectrum.hpp"

namespace ufl::analysis {
namespace {

// One Welford step for a scalar: updates the running mean and Σ (x − mean)².
void welford_add(double value, int count, double& mean, double& deviation_sum) {
  const double delta = value - mean;
  mean += delta / count;
  deviation_sum += delta * (value - mean);
}

}  // namespace

OperatorStatistics::OperatorStatistics(bool collect_spectra) : collect_spectra_(collect_spectra) {}

void OperatorStatistics::add(const Eigen::MatrixXd& operator_of_sample) {
  if (count_ == 0) {
    mean_ = Eigen::MatrixXd::Zero(operator_of_sample.rows(), operator_of_sample.cols());
    if (collect_spectra_) {
      singular_value_sum_ =
          Eigen::VectorXd::Zero(std::min(operator_of_sample.rows(), operator_of_sample.cols()));
    }
  } else if (operator_of_sample.rows() != mean_.rows() ||
             operator_of_sample.cols() != mean_.cols()) {
    throw std::invalid_argument("OperatorStatistics::add: operator shape differs from the first");
  }
  ++count_;
  const Eigen::MatrixXd delta = operator_of_sample - mean_;
  mean_ += delta / count_;
  squared_deviation_sum_ += delta.cwiseProduct(operator_of_sample - mean_).sum();
  squared_norm_sum_ += operator_of_sample.squaredNorm();

  if (collect_spectra_) {
    const Eigen::VectorXd singular_values = singular_values_of(operator_of_sample);
    welford_add(effective_rank_of(singular_values), count_, mean_effective_rank_,
                effective_rank_deviation_sum_);
    welford_add(static_cast<double>(k99_of(singular_values)), count_, mean_k99_,
                k99_deviation_sum_);
    singular_value_sum_ += singular_values;
  }
}

Eigen::MatrixXd OperatorStatistics::mean() const {
  if (count_ == 0) throw std::logic_error("OperatorStatistics::mean: no operator added");
  return mean_;
}

double OperatorStatistics::input_dependence() const {
  if (count_ == 0 || !(squared_norm_sum_ > 0.0)) return 0.0;
  // Both means share the factor 1/count, so the ratio of the sums is ι.
  return std::max(squared_deviation_sum_, 0.0) / squared_norm_sum_;
}

SpectrumSpread OperatorStatistics::spectrum_spread() const {
  if (!collect_spectra_) {
    throw std::logic_error("OperatorStatistics::spectrum_spread: spectra were not collected");
  }
  if (count_ == 0) throw std::logic_error("OperatorStatistics::spectrum_spread: no operator added");
  SpectrumSpread spread;
  spread.mean_effective_rank = mean_effective_rank_;
  spread.std_effective_rank = std::sqrt(std::max(effective_rank_deviation_sum_, 0.0) / count_);
  spread.mean_k99 = mean_k99_;
  spread.std_k99 = std::sqrt(std::max(k99_deviation_sum_, 0.0) / count_);
  spread.mean_singular_values = singular_value_sum_ / count_;
  return spread;
}

}  // namespace ufl::analysis
