#pragma once
// The classical operators the seed paper names (seed 000, sections 3-5), built directly: the
// references that hand-set mixers are tested against (each mixer's file has its own setter). Only
// the tests use them, so they are compiled with the tests (tests/support/), not into `ufl`.
#include <Eigen/Dense>
#include <vector>

namespace ufl::model {

// The n×n Toeplitz matrix of a centred kernel: T_ij = taps[(j − i) + half], zero outside.
Eigen::MatrixXd toeplitz_from_taps(int n, const std::vector<double>& taps);

// Orthonormal real Fourier basis (n × k): for each f, cos(2πft/n) and sin(2πft/n) columns
// (only cos for f = 0 and f = n/2), scaled to unit norm.
Eigen::MatrixXd real_fourier_basis(int n, const std::vector<int>& freqs);

}  // namespace ufl::model
