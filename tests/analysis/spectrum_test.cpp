// Spectra (spec §4): effective rank (Roy and Vetterli 2007), k99 (seed 001), and the Gram route
// to the left singular basis of all training targets.
#include "analysis/spectrum.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using ufl::analysis::effective_rank_of;
using ufl::analysis::GramAccumulator;
using ufl::analysis::k99_of;
using ufl::analysis::left_singular_basis;
using ufl::analysis::spectrum_of;

TEST_CASE("spectrum_of diag(3, 2, 1, 0): shares [1/2, 1/3, 1/6, 0], k99 = 3") {
  const Eigen::Vector4d diagonal(3.0, 2.0, 1.0, 0.0);
  const auto spectrum = spectrum_of(Eigen::MatrixXd(diagonal.asDiagonal()));
  CHECK((spectrum.singular_values - diagonal).norm() < 1e-14);
  const double entropy =
      -(0.5 * std::log(0.5) + std::log(1.0 / 3.0) / 3.0 + std::log(1.0 / 6.0) / 6.0);
  CHECK(spectrum.effective_rank == doctest::Approx(std::exp(entropy)).epsilon(1e-13));
  // Σσ² = 14: 9 (64%), 13 (93%), 14 (100%).
  CHECK(spectrum.k99 == 3);
}

TEST_CASE("spectrum_of a rank-1 matrix: effective rank 1, k99 = 1") {
  const Eigen::Vector3d left(1.0, 2.0, -2.0), right(0.5, -1.0, 0.0);
  const auto spectrum = spectrum_of(left * right.transpose());
  CHECK(spectrum.singular_values(0) == doctest::Approx(3.0 * std::sqrt(1.25)).epsilon(1e-13));
  CHECK(spectrum.effective_rank == doctest::Approx(1.0).epsilon(1e-12));
  CHECK(spectrum.k99 == 1);
}

TEST_CASE("spectrum_of the identity: effective rank n; k99 = n, or 99 for n = 100") {
  CHECK(spectrum_of(Eigen::MatrixXd::Identity(10, 10)).effective_rank ==
        doctest::Approx(10.0).epsilon(1e-13));
  CHECK(spectrum_of(Eigen::MatrixXd::Identity(10, 10)).k99 == 10);
  // 99 of 100 equal values hold exactly 99%.
  CHECK(k99_of(Eigen::VectorXd::Ones(100)) == 99);
}

TEST_CASE("spectrum_of the zero matrix: effective rank 0, k99 = 0") {
  const auto spectrum = spectrum_of(Eigen::MatrixXd::Zero(3, 3));
  CHECK(spectrum.effective_rank == 0.0);
  CHECK(spectrum.k99 == 0);
  CHECK(effective_rank_of(Eigen::VectorXd()) == 0.0);
}

TEST_CASE("spectrum_of reconstructs M, sorts descending and fixes signs") {
  std::mt19937 generator(11);
  std::normal_distribution<double> normal;
  Eigen::MatrixXd M(5, 4);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 5; ++i) M(i, j) = normal(generator);
  const auto spectrum = spectrum_of(M);
  Eigen::MatrixXd diagonal = Eigen::MatrixXd::Zero(5, 4);
  diagonal.diagonal() = spectrum.singular_values;
  CHECK((spectrum.left_vectors * diagonal * spectrum.right_vectors.transpose() - M).norm() < 1e-12);
  for (int j = 0; j + 1 < 4; ++j)
    CHECK(spectrum.singular_values(j) >= spectrum.singular_values(j + 1));
  for (int j = 0; j < 5; ++j) {
    Eigen::Index largest = 0;
    spectrum.left_vectors.col(j).cwiseAbs().maxCoeff(&largest);
    CHECK(spectrum.left_vectors(largest, j) > 0.0);
  }
}

TEST_CASE("left_singular_basis equals the SVD of the explicitly stacked wide matrix") {
  const int count = 5, n = 6, d = 3;
  std::mt19937 generator(5);
  std::normal_distribution<float> normal;
  std::vector<float> samples(count * n * d);
  for (float& value : samples) value = normal(generator);

  // T = [C_1 … C_m], each C_s read row-major.
  Eigen::MatrixXd wide(n, count * d);
  for (int s = 0; s < count; ++s)
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c) wide(i, s * d + c) = samples[(s * n + i) * d + c];
  const auto direct = spectrum_of(wide);
  const auto basis = left_singular_basis(samples.data(), count, n, d);

  CHECK((basis.singular_values - direct.singular_values).norm() <
        1e-10 * direct.singular_values(0));
  CHECK(basis.k99 == direct.k99);
  // Same subspaces for every leading k (projectors agree), and, with the sign convention and
  // distinct values, the same vectors.
  for (int k = 1; k <= n; ++k) {
    const Eigen::MatrixXd from_gram = basis.left_vectors.leftCols(k);
    const Eigen::MatrixXd from_svd = direct.left_vectors.leftCols(k);
    CHECK((from_gram * from_gram.transpose() - from_svd * from_svd.transpose()).norm() < 1e-9);
  }
  CHECK((basis.left_vectors - direct.left_vectors).norm() < 1e-9);

  // Feeding the blocks one by one as doubles gives the same Gram matrix.
  GramAccumulator accumulator(n);
  for (int s = 0; s < count; ++s) accumulator.add(Eigen::MatrixXd(wide.middleCols(s * d, d)));
  CHECK((accumulator.gram() - wide * wide.transpose()).norm() < 1e-12);
  CHECK_THROWS_AS(accumulator.add(Eigen::MatrixXd::Zero(n + 1, d)), std::invalid_argument);
}
