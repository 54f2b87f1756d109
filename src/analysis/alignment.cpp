#include "analysis/alignment.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "analysis/spectrum.hpp"

namespace ufl::analysis {
namespace {

void check_components(const Eigen::MatrixXd& M, const Eigen::MatrixXd& reference, int k,
                      const char* caller) {
  if (M.rows() != reference.rows()) {
    throw std::invalid_argument(std::string(caller) + ": matrices have different row counts");
  }
  const Eigen::Index available =
      std::min(std::min(M.rows(), M.cols()), std::min(reference.rows(), reference.cols()));
  if (k < 0 || k > available) {
    throw std::invalid_argument(std::string(caller) + ": k out of range");
  }
}

}  // namespace

double subspace_alignment(const Eigen::MatrixXd& M, const Eigen::MatrixXd& reference_basis) {
  const Eigen::Index k = reference_basis.cols();
  if (M.rows() != reference_basis.rows()) {
    throw std::invalid_argument("subspace_alignment: matrices have different row counts");
  }
  if (k > M.rows())
    throw std::invalid_argument("subspace_alignment: reference has too many columns");
  if (k == 0) return 0.0;
  const Spectrum spectrum = spectrum_of(M);
  // The squared singular values of U_kᵀ Q are the squared cosines of the principal angles, and
  // their sum is ‖U_kᵀ Q‖²_F.
  const Eigen::MatrixXd cosines = spectrum.left_vectors.leftCols(k).transpose() * reference_basis;
  return cosines.squaredNorm() / static_cast<double>(k);
}

Eigen::VectorXd component_cosines(const Eigen::MatrixXd& M, const Eigen::MatrixXd& reference,
                                  int k) {
  check_components(M, reference, k, "component_cosines");
  const Spectrum learned = spectrum_of(M);
  const Spectrum target = spectrum_of(reference);
  Eigen::VectorXd cosines(k);
  for (int j = 0; j < k; ++j) {
    cosines(j) = std::abs(learned.left_vectors.col(j).dot(target.left_vectors.col(j)));
  }
  return cosines;
}

Eigen::VectorXd singular_value_errors(const Eigen::MatrixXd& M, double scale,
                                      const Eigen::MatrixXd& reference, int k) {
  check_components(M, reference, k, "singular_value_errors");
  const Eigen::VectorXd learned = singular_values_of(M);
  const Eigen::VectorXd target = singular_values_of(reference);
  Eigen::VectorXd errors(k);
  for (int j = 0; j < k; ++j) {
    const double scaled = std::abs(scale) * learned(j);
    const double difference = std::abs(scaled - target(j));
    if (target(j) > 0.0) {
      errors(j) = difference / target(j);
    } else {
      errors(j) = difference == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
    }
  }
  return errors;
}

}  // namespace ufl::analysis
