#include "classical_operators.hpp"

#include <cmath>
#include <numbers>

namespace ufl::model {

Eigen::MatrixXd toeplitz_from_taps(int n, const std::vector<double>& taps) {
  const int half = static_cast<int>(taps.size()) / 2;
  Eigen::MatrixXd toeplitz = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = std::max(0, i - half); j <= std::min(n - 1, i + half); ++j)
      toeplitz(i, j) = taps[j - i + half];
  return toeplitz;
}

Eigen::MatrixXd real_fourier_basis(int n, const std::vector<int>& freqs) {
  std::vector<Eigen::VectorXd> columns;
  for (int f : freqs) {
    Eigen::VectorXd cosine(n), sine(n);
    for (int t = 0; t < n; ++t) {
      cosine(t) = std::cos(2 * std::numbers::pi * f * t / n);
      sine(t) = std::sin(2 * std::numbers::pi * f * t / n);
    }
    columns.push_back(cosine.normalized());
    if (2 * f % n != 0) columns.push_back(sine.normalized());
  }
  Eigen::MatrixXd basis(n, columns.size());
  for (std::size_t j = 0; j < columns.size(); ++j) basis.col(j) = columns[j];
  return basis;
}

}  // namespace ufl::model
