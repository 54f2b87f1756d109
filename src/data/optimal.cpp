// The reference estimators of docs/experiment.md §1: the Wiener operator M_fix, the optimal
// estimator M*, and their mean squared errors on a sample set.
#include <cmath>
#include <functional>
#include <limits>
#include <stdexcept>

#include "data/registry.hpp"

namespace ufl::data {
namespace {

using RowMajorFloatMap =
    Eigen::Map<const Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>>;

Eigen::MatrixXd noisy_sample(const SampleSet& set, int s) {
  return RowMajorFloatMap(set.input(s), set.n, set.d).cast<double>();
}

const std::int32_t* partners_of(const Dataset& dataset, const SampleSet& set, int s) {
  if (set.partners.size() != static_cast<size_t>(set.count) * set.n) {
    throw std::invalid_argument("the optimal estimate of kind \"" + dataset.spec.kind +
                                "\" needs the set's partners");
  }
  return set.partners.data() + static_cast<size_t>(s) * set.n;
}

// Mean over all elements of the set of (estimate − C)², summed in double, sample by sample, in
// row-major order, so the result does not depend on threads or vectorisation.
double mean_squared_error(const SampleSet& set,
                          const std::function<Eigen::MatrixXd(int)>& estimate_of) {
  if (set.count < 1 || set.n < 1 || set.d < 1) {
    throw std::invalid_argument("mean squared error of an empty sample set");
  }
  double sum = 0.0;
  for (int s = 0; s < set.count; ++s) {
    const Eigen::MatrixXd estimate = estimate_of(s);
    const float* target = set.target(s);
    for (int position = 0; position < set.n; ++position) {
      for (int channel = 0; channel < set.d; ++channel) {
        const double error = estimate(position, channel) - target[position * set.d + channel];
        sum += error * error;
      }
    }
  }
  return sum / (static_cast<double>(set.count) * set.n * set.d);
}

}  // namespace

Eigen::MatrixXd wiener_operator(const Eigen::MatrixXd& covariance, double noise) {
  // Γ is symmetric positive semi-definite, so Γ = V Λ Vᵀ and Γ(Γ+σ²I)⁻¹ = V diag(λ/(λ+σ²)) Vᵀ
  // (Γ and Γ+σ²I commute). This never forms an inverse, is exactly symmetric, and at σ = 0 gives
  // the limit σ→0: the projector onto the range of Γ. Eigenvalues at rounding level (a
  // rank-deficient Γ) are taken as 0, so they do not turn into spurious gains.
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(covariance);
  const Eigen::VectorXd& eigenvalues = eigen.eigenvalues();
  const double largest = eigenvalues.cwiseAbs().maxCoeff();
  const double negligible =
      largest * static_cast<double>(covariance.rows()) * std::numeric_limits<double>::epsilon();
  const double noise_variance = noise * noise;
  Eigen::VectorXd gains(eigenvalues.size());
  for (Eigen::Index i = 0; i < eigenvalues.size(); ++i) {
    const double eigenvalue = eigenvalues(i);
    gains(i) = eigenvalue > negligible ? eigenvalue / (eigenvalue + noise_variance) : 0.0;
  }
  const Eigen::MatrixXd& eigenvectors = eigen.eigenvectors();
  return eigenvectors * gains.asDiagonal() * eigenvectors.transpose();
}

namespace {

// cross · input⁺ for a symmetric input, through its eigenvalues; those at rounding level (hidden
// rows at σ = 0) are left out: a pseudo-inverse, so rows the input never shows get weight 0.
Eigen::MatrixXd times_pseudo_inverse(const Eigen::MatrixXd& cross, const Eigen::MatrixXd& input) {
  const Eigen::Index n = input.rows();
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(input);
  const Eigen::VectorXd& eigenvalues = eigen.eigenvalues();
  const double negligible = eigenvalues.cwiseAbs().maxCoeff() * static_cast<double>(n) *
                            std::numeric_limits<double>::epsilon();
  Eigen::VectorXd inverse(n);
  for (Eigen::Index i = 0; i < n; ++i)
    inverse(i) = eigenvalues(i) > negligible ? 1.0 / eigenvalues(i) : 0.0;
  const Eigen::MatrixXd& vectors = eigen.eigenvectors();
  return cross * vectors * inverse.asDiagonal() * vectors.transpose();
}

}  // namespace

Eigen::MatrixXd best_fixed_operator(const Eigen::MatrixXd& covariance,
                                    const std::vector<bool>& hidden, double noise) {
  const Eigen::Index n = covariance.rows();
  if (static_cast<Eigen::Index>(hidden.size()) != n)
    throw std::invalid_argument("best_fixed_operator: one hidden flag per position");
  Eigen::VectorXd shown(n);
  for (Eigen::Index i = 0; i < n; ++i) shown(i) = hidden[i] ? 0.0 : 1.0;
  // E[C Xᵀ] = ΓP and E[X Xᵀ] = PΓP + σ²I per channel (the noise is independent of C).
  const Eigen::MatrixXd cross = covariance * shown.asDiagonal();
  const Eigen::MatrixXd input = shown.asDiagonal() * covariance * shown.asDiagonal() +
                                noise * noise * Eigen::MatrixXd::Identity(n, n);
  // (PΓP + σ²I)⁺: rows the input never shows get weight 0.
  return times_pseudo_inverse(cross, input);
}

Eigen::MatrixXd mixed_fixed_operator(const Eigen::MatrixXd& covariance,
                                     const Eigen::MatrixXd& mixing, double noise) {
  const Eigen::Index n = covariance.rows();
  const Eigen::MatrixXd cross = covariance * mixing.transpose();
  Eigen::MatrixXd input = mixing * covariance * mixing.transpose();
  input = (input + input.transpose()) / 2.0;
  input += noise * noise * Eigen::MatrixXd::Identity(n, n);
  return times_pseudo_inverse(cross, input);
}

Eigen::MatrixXd optimal_operator(const Dataset& dataset, const SampleSet& set, int s) {
  if (!dataset.kind->has_partners) return dataset.fixed_operator;
  return dataset.kind->partner_optimum(dataset, partners_of(dataset, set, s));
}

Eigen::MatrixXd optimal_estimate(const Dataset& dataset, const SampleSet& set, int s) {
  if (!dataset.kind->has_partners) return dataset.fixed_operator * noisy_sample(set, s);
  return dataset.kind->partner_estimate(dataset, noisy_sample(set, s),
                                        partners_of(dataset, set, s));
}

double optimal_mse(const Dataset& dataset, const SampleSet& set) {
  return mean_squared_error(set, [&](int s) { return optimal_estimate(dataset, set, s); });
}

double fixed_mse(const Dataset& dataset, const SampleSet& set) {
  return mean_squared_error(
      set, [&](int s) { return Eigen::MatrixXd(dataset.fixed_operator * noisy_sample(set, s)); });
}

}  // namespace ufl::data
