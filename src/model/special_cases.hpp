#pragma once
// Hand-set parameters that turn the layer into the classical operators the seed paper names
// (seed 000, sections 3-5): attention, a convolution, a Fourier projection and a truncated SVD.
// They prove by construction that each operator is a special case of spec §2's layer.
#include <Eigen/Dense>
#include <vector>

#include "model/parameters.hpp"

namespace ufl::model {

// The gate logit whose sigmoid is exactly 1 (or 0) in double: γ = 1/(1+e^−40) rounds to 1.
inline constexpr double kGateOpen = 40.0, kGateClosed = -40.0;

// softplus⁻¹(y) = log(eʸ − 1), so that Σ = diag(y).
inline double inverse_softplus(double y) { return std::log(std::expm1(y)); }

// Y = softmax(X W_Q W_Kᵀ Xᵀ) X W_V: content rows of A = W_Q and of B = W_K (d×k, k ≤ r), Σ = I,
// γ = 1.
void set_attention(Parameters<double>& params, const Eigen::MatrixXd& query,
                   const Eigen::MatrixXd& key, const Eigen::MatrixXd& value);

// M = fixed position operator P_A diag(σ) P_Bᵀ with γ = 0 and W_v = I: position rows of A and B
// hold the given n×k factors (k ≤ r), the rest is zero.
void set_position_operator(Parameters<double>& params, const Eigen::MatrixXd& left,
                           const Eigen::VectorXd& singular_values, const Eigen::MatrixXd& right);

// The n×n Toeplitz matrix of a centred kernel: T_ij = taps[(j − i) + half], zero outside.
Eigen::MatrixXd toeplitz_from_taps(int n, const std::vector<double>& taps);

// Orthonormal real Fourier basis (n × k): for each f, cos(2πft/n) and sin(2πft/n) columns
// (only cos for f = 0 and f = n/2), scaled to unit norm.
Eigen::MatrixXd real_fourier_basis(int n, const std::vector<int>& freqs);

}  // namespace ufl::model
