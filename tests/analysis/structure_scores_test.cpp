// Structure scores (spec §4): known matrices in, known τ, ℓ and φ out.
#include "analysis/structure_scores.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <complex>
#include <numbers>
#include <random>
#include <stdexcept>

using ufl::analysis::fourier_score;
using ufl::analysis::locality_score;
using ufl::analysis::toeplitz_score;
using ufl::analysis::unitary_dft;

namespace {

Eigen::MatrixXd random_matrix(int rows, int cols, unsigned seed) {
  std::mt19937 generator(seed);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd matrix(rows, cols);
  for (int j = 0; j < cols; ++j)
    for (int i = 0; i < rows; ++i) matrix(i, j) = normal(generator);
  return matrix;
}

// Ones on every diagonal |i − j| ≤ half_width, zeros elsewhere.
Eigen::MatrixXd band_of_ones(int n, int half_width) {
  Eigen::MatrixXd band = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      if (std::abs(i - j) <= half_width) band(i, j) = 1.0;
  return band;
}

// The circulant with first column c: C(i, j) = c((i − j) mod n).
Eigen::MatrixXd circulant(const Eigen::VectorXd& first_column) {
  const int n = static_cast<int>(first_column.size());
  Eigen::MatrixXd matrix(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) matrix(i, j) = first_column(((i - j) % n + n) % n);
  return matrix;
}

}  // namespace

TEST_CASE("toeplitz_score: 1 for a Toeplitz band, the identity and any Toeplitz matrix") {
  // A 5-tap filter as a matrix: the same taps on every row.
  Eigen::MatrixXd filter = Eigen::MatrixXd::Zero(8, 8);
  const double taps[5] = {0.1, 0.3, 0.5, 0.3, 0.1};
  for (int i = 0; i < 8; ++i)
    for (int offset = -2; offset <= 2; ++offset)
      if (i + offset >= 0 && i + offset < 8) filter(i, i + offset) = taps[offset + 2];
  CHECK(toeplitz_score(filter) == doctest::Approx(1.0).epsilon(1e-14));
  CHECK(toeplitz_score(Eigen::MatrixXd::Identity(6, 6)) == doctest::Approx(1.0).epsilon(1e-14));
  // Non-square Toeplitz works too.
  Eigen::MatrixXd wide(2, 3);
  wide << 1, 2, 3, 4, 1, 2;
  CHECK(toeplitz_score(wide) == doctest::Approx(1.0).epsilon(1e-14));
}

TEST_CASE("toeplitz_score: a 2x2 hand case and an anti-Toeplitz case") {
  // Main diagonal {1, 4} → mean 2.5; off-diagonals {2} and {3} are Toeplitz already.
  // ‖T‖² = 2·2.5² + 2² + 3² = 25.5, ‖M‖² = 30.
  Eigen::MatrixXd M(2, 2);
  M << 1, 2, 3, 4;
  CHECK(toeplitz_score(M) == doctest::Approx(25.5 / 30.0).epsilon(1e-14));
  // diag(1, −1): its only nonzero diagonal averages to 0.
  Eigen::MatrixXd opposite(2, 2);
  opposite << 1, 0, 0, -1;
  CHECK(toeplitz_score(opposite) == 0.0);
  CHECK(toeplitz_score(Eigen::MatrixXd::Zero(3, 3)) == 0.0);
}

TEST_CASE("toeplitz_score: small for a random dense matrix") {
  // Expected share ≈ (number of diagonals)/(number of entries) = 63/1024 for n = 32.
  CHECK(toeplitz_score(random_matrix(32, 32, 7)) < 0.15);
}

TEST_CASE("locality_score: share of the energy within |i − j| ≤ w") {
  CHECK(locality_score(band_of_ones(6, 2), 2) == doctest::Approx(1.0).epsilon(1e-14));
  CHECK(locality_score(Eigen::MatrixXd::Identity(5, 5), 0) == 1.0);
  // A band of half width 2 on n = 5 holds 5 + 2·4 + 2·3 = 19 ones; |i − j| ≤ 1 holds 13 of them.
  CHECK(locality_score(band_of_ones(5, 2), 1) == doctest::Approx(13.0 / 19.0).epsilon(1e-14));
  // Weights matter, not counts: corners of 3 against a diagonal of 1 on n = 3.
  Eigen::MatrixXd corners = Eigen::MatrixXd::Identity(3, 3);
  corners(0, 2) = 3.0;
  CHECK(locality_score(corners, 1) == doctest::Approx(3.0 / 12.0).epsilon(1e-14));
  CHECK(locality_score(Eigen::MatrixXd::Zero(3, 3), 1) == 0.0);
  CHECK_THROWS_AS(locality_score(corners, -1), std::invalid_argument);
}

TEST_CASE("unitary_dft is unitary and has the e^{-2πi kt/n}/√n entries") {
  const Eigen::MatrixXcd dft = unitary_dft(12);
  CHECK((dft * dft.adjoint() - Eigen::MatrixXcd::Identity(12, 12)).norm() < 1e-13);
  const std::complex<double> expected =
      std::polar(1.0 / std::sqrt(12.0), -2.0 * std::numbers::pi * 3.0 * 5.0 / 12.0);
  CHECK(std::abs(dft(3, 5) - expected) < 1e-15);
}

TEST_CASE("fourier_score: 1 for Fourier-domain operators") {
  const int n = 16;
  const Eigen::MatrixXcd dft = unitary_dft(n);

  SUBCASE("Fᴴ D F with a real response symmetric in frequency (d_f = d_{n−f}) is real, φ = 1") {
    Eigen::VectorXd response(n);
    for (int f = 0; f <= n / 2; ++f) {
      response(f) = 1.0 / (1.0 + f);
      response((n - f) % n) = response(f);
    }
    const Eigen::MatrixXcd complex_operator =
        dft.adjoint() * response.cast<std::complex<double>>().asDiagonal() * dft;
    REQUIRE(complex_operator.imag().norm() < 1e-12);
    CHECK(fourier_score(complex_operator.real()) == doctest::Approx(1.0).epsilon(1e-12));
  }
  SUBCASE("any circulant, symmetric or not") {
    Eigen::VectorXd first_column = Eigen::VectorXd::LinSpaced(n, 1.0, 2.0).array().sin();
    CHECK(fourier_score(circulant(first_column)) == doctest::Approx(1.0).epsilon(1e-12));
  }
  SUBCASE("the projection onto cos(2πft/n) alone mixes +f with −f: the 2x2 block counts") {
    Eigen::VectorXd cosine(n);
    for (int t = 0; t < n; ++t) cosine(t) = std::cos(2.0 * std::numbers::pi * 3.0 * t / n);
    const Eigen::MatrixXd projection = cosine * cosine.transpose() / cosine.squaredNorm();
    CHECK(toeplitz_score(projection) < 0.9);  // not a circulant
    CHECK(fourier_score(projection) == doctest::Approx(1.0).epsilon(1e-12));
  }
  SUBCASE("the identity, for odd n as well") {
    CHECK(fourier_score(Eigen::MatrixXd::Identity(n, n)) == doctest::Approx(1.0).epsilon(1e-12));
    CHECK(fourier_score(Eigen::MatrixXd::Identity(7, 7)) == doctest::Approx(1.0).epsilon(1e-12));
  }
  SUBCASE("the reversal t → n−1−t is no circulant but maps each f to −f: φ = 1") {
    const Eigen::MatrixXd reversal = Eigen::MatrixXd::Identity(n, n).rowwise().reverse();
    CHECK(fourier_score(reversal) == doctest::Approx(1.0).epsilon(1e-12));
  }
}

TEST_CASE("fourier_score: small for a random matrix, below 1 for a transposition") {
  // The ±f blocks hold 1 + 1 + 4·15 = 62 of 1024 entries of M̂ for n = 32.
  CHECK(fourier_score(random_matrix(32, 32, 3)) < 0.3);
  // Swapping positions 0 and 1 only is not a Fourier-domain operator. With v = e0 − e1 the swap
  // is I − v vᵀ, so M̂ = I − v̂ v̂ᴴ with |v̂_f|² = sin²(πf/8)/2 for n = 8. A block B then holds
  // |B| − 2 Σ_B |v̂_f|² + (Σ_B |v̂_f|²)²; over all blocks 8 − 2·2 + (1/4 + 3/4 + 1/4) = 21/4 of
  // ‖M̂‖² = 8, so φ = 21/32.
  Eigen::MatrixXd swap = Eigen::MatrixXd::Identity(8, 8);
  swap.topLeftCorner(2, 2) << 0, 1, 1, 0;
  CHECK(fourier_score(swap) == doctest::Approx(21.0 / 32.0).epsilon(1e-13));
  CHECK(fourier_score(Eigen::MatrixXd::Zero(4, 4)) == 0.0);
  CHECK_THROWS_AS(fourier_score(Eigen::MatrixXd::Zero(3, 4)), std::invalid_argument);
}
