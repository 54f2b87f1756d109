#pragma once
// Orthonormal bases of R^n and sparse factors that the planted-structure kinds (hadamard, haar,
// dct, butterfly; docs/planted.md) build their optimum from, and that the closest-special-case
// analysis fits against. Each basis is returned as an n×n matrix whose ROWS are the basis
// vectors (an orthogonal matrix: W Wᵀ = I).
#include <vector>

#include "data/rng.hpp"
#include "tensor/eigen.hpp"

namespace ufl::data {

// Whether n is 1, 2, 4, 8, …
bool is_power_of_two(int n);
// log₂ n for a power of two.
int log2_exact(int n);

// The Walsh–Hadamard basis in Sylvester's (natural) order: H_1 = [1], H_2m = [[H, H], [H, −H]],
// divided by √n. Row k, entry t: (−1)^popcount(k & t) / √n. n a power of two.
Eigen::MatrixXd walsh_hadamard_basis(int n);

// The orthonormal Haar basis, coarse to fine: row 0 the constant 1/√n; then, for each scale
// j = 0 … log₂n − 1 and shift k = 0 … 2^j − 1, the wavelet that is +c on the first half and −c
// on the second half of the positions [k·n/2^j, (k+1)·n/2^j), c = √(2^j/n). n a power of two.
Eigen::MatrixXd haar_basis(int n);
// The scale of each row of haar_basis: 0 for the constant, j + 1 for the wavelets of scale j.
std::vector<int> haar_scales(int n);

// The orthonormal DCT-II basis: row k, entry t: a_k·cos(π(2t+1)k/(2n)), a_0 = √(1/n),
// a_k = √(2/n). Any n ≥ 1.
Eigen::MatrixXd dct_basis(int n);

// A butterfly factor: F_ℓ mixes each pair of positions (i, i + 2^ℓ), i with bit ℓ clear, by a
// 2×2 block and is zero elsewhere: 2n non-zero entries.
// The random orthogonal butterfly B = F_{L−1} ⋯ F_1 F_0, L = log₂n, each pair's block the
// rotation [[cos θ, −sin θ], [sin θ, cos θ]] with θ uniform in [0, 2π), drawn factor by factor
// (ℓ = 0 first), pair by pair in increasing i, from `rng`.
std::vector<Eigen::MatrixXd> random_butterfly_factors(int n, Rng& rng);
// The product F_{L−1} ⋯ F_0 of factors given F_0 first.
Eigen::MatrixXd butterfly_product(const std::vector<Eigen::MatrixXd>& factors);

}  // namespace ufl::data

namespace ufl::data {

// Γ = Wᵀ diag(v) W for the basis rows W (n×n) and variances v (n): the covariance of a signal
// whose coefficient on basis vector k has variance v_k.
Eigen::MatrixXd basis_covariance(const Eigen::MatrixXd& rows, const Eigen::VectorXd& variances);
// One clean n×d sample of that signal, row-major into `clean`. Draw order: channel by channel;
// within a channel one standard normal per basis vector with v_k > 0, in row order.
void draw_in_basis(int d, const Eigen::MatrixXd& rows, const Eigen::VectorXd& variances, Rng& rng,
                   double* clean);

}  // namespace ufl::data
