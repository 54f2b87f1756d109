// Orthonormal bases and butterfly factors for the planted-structure kinds; see bases.hpp.
#include "data/bases.hpp"

#include <bit>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace ufl::data {

bool is_power_of_two(int n) { return n >= 1 && (n & (n - 1)) == 0; }

int log2_exact(int n) {
  if (!is_power_of_two(n)) throw std::invalid_argument("log2_exact: not a power of two");
  return std::countr_zero(static_cast<unsigned>(n));
}

Eigen::MatrixXd walsh_hadamard_basis(int n) {
  log2_exact(n);
  Eigen::MatrixXd basis(n, n);
  const double scale = 1.0 / std::sqrt(double(n));
  for (int k = 0; k < n; ++k)
    for (int t = 0; t < n; ++t)
      basis(k, t) = (std::popcount(static_cast<unsigned>(k & t)) % 2 == 0 ? scale : -scale);
  return basis;
}

Eigen::MatrixXd haar_basis(int n) {
  const int levels = log2_exact(n);
  Eigen::MatrixXd basis = Eigen::MatrixXd::Zero(n, n);
  basis.row(0).setConstant(1.0 / std::sqrt(double(n)));
  int row = 1;
  for (int j = 0; j < levels; ++j) {
    const int support = n >> j, half = support / 2;
    const double value = std::sqrt(double(1 << j) / n);
    for (int k = 0; k < (1 << j); ++k, ++row)
      for (int t = 0; t < support; ++t) basis(row, k * support + t) = t < half ? value : -value;
  }
  return basis;
}

std::vector<int> haar_scales(int n) {
  const int levels = log2_exact(n);
  std::vector<int> scales = {0};
  for (int j = 0; j < levels; ++j) scales.insert(scales.end(), std::size_t(1) << j, j + 1);
  return scales;
}

Eigen::MatrixXd dct_basis(int n) {
  if (n < 1) throw std::invalid_argument("dct_basis: n < 1");
  Eigen::MatrixXd basis(n, n);
  for (int k = 0; k < n; ++k) {
    const double norm = std::sqrt((k == 0 ? 1.0 : 2.0) / n);
    for (int t = 0; t < n; ++t)
      basis(k, t) = norm * std::cos(std::numbers::pi * (2.0 * t + 1.0) * k / (2.0 * n));
  }
  return basis;
}

std::vector<Eigen::MatrixXd> random_butterfly_factors(int n, Rng& rng) {
  const int levels = log2_exact(n);
  std::vector<Eigen::MatrixXd> factors;
  for (int level = 0; level < levels; ++level) {
    const int stride = 1 << level;
    Eigen::MatrixXd factor = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i) {
      if (i & stride) continue;
      const double angle = 2.0 * std::numbers::pi * rng.uniform();
      const double c = std::cos(angle), s = std::sin(angle);
      factor(i, i) = c;
      factor(i, i + stride) = -s;
      factor(i + stride, i) = s;
      factor(i + stride, i + stride) = c;
    }
    factors.push_back(std::move(factor));
  }
  return factors;
}

Eigen::MatrixXd butterfly_product(const std::vector<Eigen::MatrixXd>& factors) {
  if (factors.empty()) throw std::invalid_argument("butterfly_product: no factors");
  Eigen::MatrixXd product = factors.front();
  for (std::size_t level = 1; level < factors.size(); ++level) product = factors[level] * product;
  return product;
}

}  // namespace ufl::data

namespace ufl::data {

Eigen::MatrixXd basis_covariance(const Eigen::MatrixXd& rows, const Eigen::VectorXd& variances) {
  const Eigen::MatrixXd covariance = rows.transpose() * variances.asDiagonal() * rows;
  return (covariance + covariance.transpose()) / 2.0;  // symmetric bit for bit
}

void draw_in_basis(int d, const Eigen::MatrixXd& rows, const Eigen::VectorXd& variances, Rng& rng,
                   double* clean) {
  const int n = static_cast<int>(rows.cols()), count = static_cast<int>(rows.rows());
  std::vector<double> coefficients(static_cast<std::size_t>(count));
  for (int channel = 0; channel < d; ++channel) {
    for (int k = 0; k < count; ++k)
      coefficients[std::size_t(k)] = variances(k) > 0 ? std::sqrt(variances(k)) * rng.normal() : 0;
    // Summed over k in order, so the result does not depend on vectorisation.
    for (int t = 0; t < n; ++t) {
      double value = 0.0;
      for (int k = 0; k < count; ++k) value += coefficients[std::size_t(k)] * rows(k, t);
      clean[t * d + channel] = value;
    }
  }
}

}  // namespace ufl::data
