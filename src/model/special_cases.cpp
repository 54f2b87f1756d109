#include "model/special_cases.hpp"

#include <cmath>
#include <numbers>
#include <stdexcept>

namespace ufl::model {
namespace {

Eigen::Map<Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>> factor_rows(
    Parameters<double>& params, int index) {
  const ParameterSlice& slice = params.slice(index);
  return {params.value(index), slice.rows, slice.cols};
}

}  // namespace

void set_attention(Parameters<double>& params, const Eigen::MatrixXd& query,
                   const Eigen::MatrixXd& key, const Eigen::MatrixXd& value) {
  const LayerShape& shape = params.shape;
  if (query.rows() != shape.d || key.rows() != shape.d || query.cols() != key.cols() ||
      query.cols() > shape.r || value.rows() != shape.d || value.cols() != shape.d)
    throw std::invalid_argument("set_attention: W_Q, W_K must be d×k with k ≤ r, W_V d×d");
  std::fill(params.values.begin(), params.values.end(), 0.0);
  factor_rows(params, Parameters<double>::kA).topLeftCorner(shape.d, query.cols()) = query;
  factor_rows(params, Parameters<double>::kB).topLeftCorner(shape.d, key.cols()) = key;
  for (int j = 0; j < shape.r; ++j) params.value(Parameters<double>::kS)[j] = inverse_softplus(1.0);
  params.value(Parameters<double>::kG)[0] = kGateOpen;
  factor_rows(params, Parameters<double>::kWv) = value;
}

void set_position_operator(Parameters<double>& params, const Eigen::MatrixXd& left,
                           const Eigen::VectorXd& singular_values, const Eigen::MatrixXd& right) {
  const LayerShape& shape = params.shape;
  const auto k = singular_values.size();
  if (left.rows() != shape.n || right.rows() != shape.n || left.cols() != k || right.cols() != k ||
      k > shape.r)
    throw std::invalid_argument("set_position_operator: factors must be n×k with k ≤ r");
  std::fill(params.values.begin(), params.values.end(), 0.0);
  factor_rows(params, Parameters<double>::kA).block(shape.d, 0, shape.n, k) = left;
  factor_rows(params, Parameters<double>::kB).block(shape.d, 0, shape.n, k) = right;
  for (int j = 0; j < shape.r; ++j)
    params.value(Parameters<double>::kS)[j] = inverse_softplus(j < k ? singular_values(j) : 1.0);
  params.value(Parameters<double>::kG)[0] = kGateClosed;
  factor_rows(params, Parameters<double>::kWv).setIdentity();
}

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
