// The bases and butterfly factors of the planted kinds (data/bases.hpp): each basis orthonormal
// with known entries, the butterfly factors sparse and orthogonal.
#include "data/bases.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <numbers>

namespace ufl::data {
namespace {

double orthogonality_error(const Eigen::MatrixXd& rows) {
  return (rows * rows.transpose() - Eigen::MatrixXd::Identity(rows.rows(), rows.rows()))
      .cwiseAbs()
      .maxCoeff();
}

TEST_CASE("powers of two") {
  CHECK(is_power_of_two(1));
  CHECK(is_power_of_two(32));
  CHECK_FALSE(is_power_of_two(24));
  CHECK_FALSE(is_power_of_two(0));
  CHECK(log2_exact(64) == 6);
  CHECK_THROWS(log2_exact(12));
}

TEST_CASE("walsh_hadamard_basis: Sylvester's matrix over √n, orthonormal") {
  const Eigen::MatrixXd h = walsh_hadamard_basis(4);
  Eigen::MatrixXd expected(4, 4);
  expected << 1, 1, 1, 1, 1, -1, 1, -1, 1, 1, -1, -1, 1, -1, -1, 1;
  CHECK((h - expected / 2.0).cwiseAbs().maxCoeff() == 0.0);
  CHECK(orthogonality_error(walsh_hadamard_basis(32)) < 1e-14);
  CHECK_THROWS(walsh_hadamard_basis(6));
}

TEST_CASE("haar_basis: the constant, then wavelets coarse to fine, orthonormal") {
  const Eigen::MatrixXd w = haar_basis(4);
  Eigen::MatrixXd expected(4, 4);
  const double r = std::sqrt(0.5);
  expected << 0.5, 0.5, 0.5, 0.5,  //
      0.5, 0.5, -0.5, -0.5,        //
      r, -r, 0, 0,                 //
      0, 0, r, -r;
  CHECK((w - expected).cwiseAbs().maxCoeff() < 1e-15);
  CHECK(orthogonality_error(haar_basis(64)) < 1e-14);
  CHECK(haar_scales(8) == std::vector<int>{0, 1, 2, 2, 3, 3, 3, 3});
}

TEST_CASE("dct_basis: the orthonormal DCT-II") {
  const Eigen::MatrixXd c = dct_basis(8);
  CHECK(c(0, 3) == doctest::Approx(std::sqrt(1.0 / 8)));
  CHECK(c(2, 1) == doctest::Approx(0.5 * std::cos(3.0 * std::numbers::pi / 8)));
  CHECK(orthogonality_error(dct_basis(32)) < 1e-13);
}

TEST_CASE("random butterfly: log₂n factors with 2n non-zeros each, orthogonal, seeded") {
  Rng rng(5, Stream::kDatasetStructure);
  const std::vector<Eigen::MatrixXd> factors = random_butterfly_factors(16, rng);
  REQUIRE(factors.size() == 4);
  for (std::size_t level = 0; level < factors.size(); ++level) {
    const Eigen::MatrixXd& f = factors[level];
    CHECK((f.array() != 0).count() == 32);
    CHECK(orthogonality_error(f) < 1e-14);
    // Only pairs (i, i + 2^level) mix.
    for (int i = 0; i < 16; ++i)
      for (int j = 0; j < 16; ++j)
        if (f(i, j) != 0) CHECK((i == j || (i ^ j) == (1 << level)));
  }
  const Eigen::MatrixXd b = butterfly_product(factors);
  CHECK(orthogonality_error(b) < 1e-14);
  CHECK((b.array().abs() > 1e-12).count() == 256);  // the product is dense
  Rng again(5, Stream::kDatasetStructure);
  CHECK(butterfly_product(random_butterfly_factors(16, again)) == b);
}

}  // namespace
}  // namespace ufl::data
