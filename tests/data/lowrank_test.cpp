// The `lowrank` dataset (spec §1): C = Q diag(s) Z, Q ∈ R^{n×k} one random orthonormal basis
// per seed, s_j ∝ singular_value_decay^j with Σ s_j² = n, Z standard normal; Γ = Q diag(s²) Qᵀ.
#include <doctest/doctest.h>

#include <cmath>

#include "data/dataset.hpp"
#include "data/kinds.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

TEST_CASE("lowrank: Q has orthonormal columns, the same for every generate() with that seed") {
  const data::DatasetConfig spec = test_support::spec_of("lowrank", 1, 1);
  const Dataset dataset = generate(spec, 21);
  const Eigen::MatrixXd& basis = dataset.lowrank_basis;
  REQUIRE(basis.rows() == 32);
  REQUIRE(basis.cols() == 4);
  CHECK((basis.transpose() * basis - Eigen::MatrixXd::Identity(4, 4)).cwiseAbs().maxCoeff() <
        1e-13);
  CHECK(generate(spec, 21).lowrank_basis == basis);
  // Another seed, another basis: the subspaces are far apart (random 4-planes in R^32).
  const Eigen::MatrixXd other = generate(spec, 22).lowrank_basis;
  CHECK((basis.transpose() * other).squaredNorm() < 3.0);
}

TEST_CASE("lowrank: Q is the thin QR factor, with diag(R) > 0, of the structure stream's draws") {
  Rng rng(5, Stream::kDatasetStructure);
  Eigen::MatrixXd gaussian(6, 2);
  for (int i = 0; i < 6; ++i) {
    for (int j = 0; j < 2; ++j) gaussian(i, j) = rng.normal();
  }
  Rng structure_rng(5, Stream::kDatasetStructure);
  const Eigen::MatrixXd basis = lowrank_basis(6, 2, structure_rng);
  // R = Qᵀ G must be upper triangular with a positive diagonal, and G = Q R.
  const Eigen::MatrixXd triangle = basis.transpose() * gaussian;
  CHECK(std::abs(triangle(1, 0)) < 1e-12);
  CHECK(triangle(0, 0) > 0.0);
  CHECK(triangle(1, 1) > 0.0);
  CHECK((basis * triangle - gaussian).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("lowrank: s decays by singular_value_decay and Σ s² = n") {
  const Eigen::VectorXd singular_values = lowrank_singular_values(32, 4, 0.7);
  REQUIRE(singular_values.size() == 4);
  CHECK(singular_values.squaredNorm() == doctest::Approx(32.0).epsilon(1e-14));
  for (int j = 0; j + 1 < 4; ++j) {
    CHECK(singular_values(j + 1) / singular_values(j) == doctest::Approx(0.7).epsilon(1e-14));
  }
  // s_0² = 32 / (1 + 0.49 + 0.49² + 0.49³).
  CHECK(singular_values(0) ==
        doctest::Approx(std::sqrt(32.0 / (1.0 + 0.49 + 0.2401 + 0.117649))).epsilon(1e-14));
}

TEST_CASE("lowrank: Γ = Q diag(s²) Qᵀ, of rank k with eigenvalues s²") {
  const Dataset dataset = generate(test_support::spec_of("lowrank", 1, 1), 23);
  const Eigen::MatrixXd& basis = dataset.lowrank_basis;
  const Eigen::VectorXd& singular_values = dataset.lowrank_singular_values;
  const Eigen::MatrixXd expected =
      basis * singular_values.cwiseAbs2().asDiagonal() * basis.transpose();
  CHECK((dataset.covariance - expected).cwiseAbs().maxCoeff() < 1e-13);
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(dataset.covariance);
  const Eigen::VectorXd eigenvalues = eigen.eigenvalues().reverse();  // descending
  for (int j = 0; j < 4; ++j) {
    CHECK(eigenvalues(j) ==
          doctest::Approx(singular_values(j) * singular_values(j)).epsilon(1e-12));
  }
  CHECK(eigenvalues.tail(28).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("lowrank: the stacked targets (n × count·d) have singular values ≈ s·sqrt(count·d)") {
  const Dataset dataset = generate(test_support::spec_of("lowrank", 500, 1), 24);
  const SampleSet& set = dataset.train;
  const int columns = set.count * set.d;
  Eigen::MatrixXd stacked(set.n, columns);
  for (int s = 0; s < set.count; ++s) {
    stacked.middleCols(s * set.d, set.d) =
        test_support::sample_matrix(set.targets, set.n, set.d, s);
  }
  const Eigen::JacobiSVD<Eigen::MatrixXd> svd(stacked, Eigen::ComputeThinU);
  const Eigen::VectorXd normalised = svd.singularValues() / std::sqrt(static_cast<double>(columns));
  // 8000 columns: Z Zᵀ/8000 = I up to about 1/sqrt(8000) ≈ 1%.
  for (int j = 0; j < 4; ++j) {
    CHECK(normalised(j) == doctest::Approx(dataset.lowrank_singular_values(j)).epsilon(0.04));
  }
  // Beyond rank k only float rounding remains.
  CHECK(normalised.tail(set.n - 4).maxCoeff() < 1e-5);
  // The top-k left singular vectors span the columns of Q.
  const Eigen::MatrixXd top_left = svd.matrixU().leftCols(4);
  CHECK((dataset.lowrank_basis.transpose() * top_left).squaredNorm() ==
        doctest::Approx(4.0).epsilon(1e-9));
}

TEST_CASE("lowrank: the empirical position covariance of the clean signal is Γ") {
  const Dataset dataset = generate(test_support::spec_of("lowrank", 4000, 1), 25);
  const Eigen::MatrixXd empirical = test_support::empirical_position_covariance(dataset.train);
  // The sampling error of entry (i,j) is at most sqrt(2/(count·d)) times Γ's largest diagonal
  // entry, which here exceeds 1, so the shared bound is scaled by it.
  const double tolerance = test_support::covariance_tolerance(dataset.train);
  CHECK((empirical - dataset.covariance).cwiseAbs().maxCoeff() <
        tolerance * dataset.covariance.cwiseAbs().maxCoeff());
}

}  // namespace
}  // namespace ufl::data
