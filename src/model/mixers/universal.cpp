// The universal mixer's hand-set special cases (docs/design.md §2.2-2.4): attention and any fixed
// position operator (a convolution, a Fourier projection, a truncated SVD).
#include "model/mixers/universal.hpp"

#include <stdexcept>

namespace ufl::model {

void set_attention(UniversalParameters<double> layer, const Eigen::MatrixXd& query,
                   const Eigen::MatrixXd& key, const Eigen::MatrixXd& value) {
  const LayerShape& shape = layer.shape;
  if (query.rows() != shape.d || key.rows() != shape.d || query.cols() != key.cols() ||
      query.cols() > shape.r || value.rows() != shape.d || value.cols() != shape.d)
    throw std::invalid_argument("set_attention: W_Q, W_K must be d×k with k ≤ r, W_V d×d");
  for (auto* block : {&layer.A, &layer.B, &layer.s, &layer.g}) block->setZero();
  layer.A.topLeftCorner(shape.d, query.cols()) = query;
  layer.B.topLeftCorner(shape.d, key.cols()) = key;
  layer.s.setConstant(inverse_softplus(1.0));
  layer.g(0, 0) = kGateOpen;
  layer.W_v = value;
}

void set_position_operator(UniversalParameters<double> layer, const Eigen::MatrixXd& left,
                           const Eigen::VectorXd& singular_values, const Eigen::MatrixXd& right) {
  const LayerShape& shape = layer.shape;
  const auto k = singular_values.size();
  if (left.rows() != shape.n || right.rows() != shape.n || left.cols() != k || right.cols() != k ||
      k > shape.r)
    throw std::invalid_argument("set_position_operator: factors must be n×k with k ≤ r");
  for (auto* block : {&layer.A, &layer.B, &layer.s, &layer.g}) block->setZero();
  layer.A.block(shape.d, 0, shape.n, k) = left;
  layer.B.block(shape.d, 0, shape.n, k) = right;
  for (int j = 0; j < shape.r; ++j)
    layer.s(0, j) = inverse_softplus(j < k ? singular_values(j) : 1.0);
  layer.g(0, 0) = kGateClosed;
  layer.W_v.setIdentity();
}

}  // namespace ufl::model
