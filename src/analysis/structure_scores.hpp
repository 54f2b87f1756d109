#pragma once
// Structure scores of one operator (docs/experiment.md §3): how Toeplitz (convolution-like), how
// local and how Fourier-diagonal a matrix is. Each is a share of ‖M‖²_F in [0, 1]; the zero matrix
// scores 0.
#include <Eigen/Dense>

namespace ufl::analysis {

// Toeplitz score τ = ‖T(M)‖²_F / ‖M‖²_F, T replacing every diagonal (j − i = const) by its mean.
// T is the orthogonal projection onto Toeplitz matrices, so τ = 1 exactly for a Toeplitz M.
// Works for any m×n matrix.
double toeplitz_score(const Eigen::MatrixXd& M);

// Locality ℓ = Σ_{|i−j|≤w} M_ij² / Σ M_ij², w = half_width ≥ 0 (docs/experiment.md §3 uses
// ⌊kernel_width/2⌋). Throws std::invalid_argument for a negative half width.
double locality_score(const Eigen::MatrixXd& M, int half_width);

// The unitary DFT of size n: F(k, t) = exp(−2πi·k·t/n)/√n (the angle uses k·t mod n, so large n
// loses no accuracy).
Eigen::MatrixXcd unitary_dft(int n);

// Fourier score φ of a square real M (docs/experiment.md §3): with M̂ = F M Fᴴ, the share of ‖M̂‖²_F
// that lies in the blocks rows × columns {f, (n−f) mod n}, f = 0..⌊n/2⌋ (1×1 for f = 0 and f =
// n/2). φ = 1 when M maps each frequency pair ±f into itself, e.g. any circulant; it involves no
// singular vectors, so repeated singular values cannot fool it. Throws std::invalid_argument for a
// non-square M.
double fourier_score(const Eigen::MatrixXd& M);

}  // namespace ufl::analysis
