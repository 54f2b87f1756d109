#include "analysis/structure_scores.hpp"

#include <cmath>
#include <complex>
#include <numbers>
#include <stdexcept>
#include <vector>

namespace ufl::analysis {

double toeplitz_score(const Eigen::MatrixXd& M) {
  const double total_energy = M.squaredNorm();
  if (total_energy == 0.0) return 0.0;
  const Eigen::Index rows = M.rows(), cols = M.cols();
  // Diagonal offset j − i runs from −(rows−1) to cols−1; index it from 0.
  const Eigen::Index diagonal_count = rows + cols - 1;
  std::vector<double> diagonal_sums(diagonal_count, 0.0);
  std::vector<double> diagonal_lengths(diagonal_count, 0.0);
  for (Eigen::Index j = 0; j < cols; ++j) {
    for (Eigen::Index i = 0; i < rows; ++i) {
      const Eigen::Index diagonal = j - i + rows - 1;
      diagonal_sums[diagonal] += M(i, j);
      diagonal_lengths[diagonal] += 1.0;
    }
  }
  // ‖T(M)‖² = Σ_diagonals length · mean² = Σ sum² / length.
  double toeplitz_energy = 0.0;
  for (Eigen::Index diagonal = 0; diagonal < diagonal_count; ++diagonal) {
    toeplitz_energy +=
        diagonal_sums[diagonal] * diagonal_sums[diagonal] / diagonal_lengths[diagonal];
  }
  return toeplitz_energy / total_energy;
}

double locality_score(const Eigen::MatrixXd& M, int half_width) {
  if (half_width < 0) throw std::invalid_argument("locality_score: half width must be >= 0");
  const double total_energy = M.squaredNorm();
  if (total_energy == 0.0) return 0.0;
  double band_energy = 0.0;
  for (Eigen::Index j = 0; j < M.cols(); ++j) {
    for (Eigen::Index i = 0; i < M.rows(); ++i) {
      if (std::abs(i - j) <= half_width) band_energy += M(i, j) * M(i, j);
    }
  }
  return band_energy / total_energy;
}

Eigen::MatrixXcd unitary_dft(int n) {
  if (n < 0) throw std::invalid_argument("unitary_dft: size must be >= 0");
  Eigen::MatrixXcd dft(n, n);
  const double normalisation = n > 0 ? 1.0 / std::sqrt(static_cast<double>(n)) : 0.0;
  for (int t = 0; t < n; ++t) {
    for (int k = 0; k < n; ++k) {
      // Reduce k·t mod n before scaling so the angle stays in [0, 2π) exactly.
      const long long phase_index = (static_cast<long long>(k) * t) % n;
      const double angle = -2.0 * std::numbers::pi * static_cast<double>(phase_index) / n;
      dft(k, t) = std::polar(normalisation, angle);
    }
  }
  return dft;
}

double fourier_score(const Eigen::MatrixXd& M) {
  if (M.rows() != M.cols()) throw std::invalid_argument("fourier_score: matrix must be square");
  const int n = static_cast<int>(M.rows());
  if (n == 0) return 0.0;
  const Eigen::MatrixXcd dft = unitary_dft(n);
  const Eigen::MatrixXcd fourier_operator = dft * M.cast<std::complex<double>>() * dft.adjoint();
  const double total_energy = fourier_operator.squaredNorm();  // = ‖M‖²_F, F being unitary
  if (total_energy == 0.0) return 0.0;
  double pair_block_energy = 0.0;
  for (int f = 0; f <= n / 2; ++f) {
    const int mirror = (n - f) % n;
    // {f, mirror} as a set: one index when f = 0 or f = n/2, two otherwise.
    const int pair[2] = {f, mirror};
    const int pair_size = mirror == f ? 1 : 2;
    for (int a = 0; a < pair_size; ++a) {
      for (int b = 0; b < pair_size; ++b) {
        pair_block_energy += std::norm(fourier_operator(pair[a], pair[b]));
      }
    }
  }
  return pair_block_energy / total_energy;
}

}  // namespace ufl::analysis
