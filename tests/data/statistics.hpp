#pragma once
// Sample statistics shared by the data tests: they compare what the generators draw with what
// spec §1 says the data should be.
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "data/dataset.hpp"

namespace ufl::data::test_support {

// A spec of `kind` with the spec's defaults, except the set sizes.
inline data::DatasetConfig spec_of(const std::string& kind, int train_size, int test_size) {
  data::DatasetConfig spec;
  spec.kind = kind;
  spec.train_size = train_size;
  spec.test_size = test_size;
  return spec;
}

// Sample s of `values` (count×n×d floats, row-major per sample) as an n×d matrix.
inline Eigen::MatrixXd sample_matrix(const std::vector<float>& values, int n, int d, int s) {
  using RowMajorFloatMap =
      Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;
  return RowMajorFloatMap(values.data() + static_cast<size_t>(s) * n * d, n, d).cast<double>();
}

// E[C[:,c] C[:,c]ᵀ] estimated from the clean targets, pooled over samples and channels (the mean
// is known to be 0).
inline Eigen::MatrixXd empirical_position_covariance(const SampleSet& set) {
  Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(set.n, set.n);
  for (int s = 0; s < set.count; ++s) {
    const Eigen::MatrixXd clean = sample_matrix(set.targets, set.n, set.d, s);
    sum += clean * clean.transpose();
  }
  return sum / (static_cast<double>(set.count) * set.d);
}

// A bound on the sampling error of every entry of empirical_position_covariance: each entry is a
// mean of `count·d` independent products with variance Γ_ii Γ_jj + Γ_ij² ≤ 2 (Gaussian data), so
// five standard errors leave room for the max over all n² entries.
inline double covariance_tolerance(const SampleSet& set) {
  return 5.0 * std::sqrt(2.0 / (static_cast<double>(set.count) * set.d));
}

// The mean of the squares of all values.
inline double mean_square(const std::vector<float>& values) {
  double sum = 0.0;
  for (const float value : values) sum += static_cast<double>(value) * value;
  return sum / static_cast<double>(values.size());
}

// Mean squared error per element over the set of the estimate M_s X_s, M_s = operator_for(s).
inline double empirical_mse(const SampleSet& set,
                            const std::function<Eigen::MatrixXd(int)>& operator_for) {
  double sum = 0.0;
  for (int s = 0; s < set.count; ++s) {
    const Eigen::MatrixXd noisy = sample_matrix(set.inputs, set.n, set.d, s);
    const Eigen::MatrixXd clean = sample_matrix(set.targets, set.n, set.d, s);
    sum += (operator_for(s) * noisy - clean).squaredNorm();
  }
  return sum / (static_cast<double>(set.count) * set.n * set.d);
}

// The expected mean squared error per element of the fixed linear estimate M X when the clean
// columns have covariance Γ and the noise is σ·white: (1/n) tr((M−I)Γ(M−I)ᵀ + σ² M Mᵀ).
inline double linear_estimator_mse(const Eigen::MatrixXd& estimator,
                                   const Eigen::MatrixXd& covariance, double noise) {
  const Eigen::Index n = covariance.rows();
  const Eigen::MatrixXd bias = estimator - Eigen::MatrixXd::Identity(n, n);
  return ((bias * covariance * bias.transpose()).trace() +
          noise * noise * (estimator * estimator.transpose()).trace()) /
         static_cast<double>(n);
}

}  // namespace ufl::data::test_support
