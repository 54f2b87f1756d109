// The reference estimators of spec §1. M_fix = Γ(Γ+σ²I)⁻¹ is the best fixed linear operator and,
// for the Gaussian kinds, the optimum M*; for global the optimum averages each token with its
// partner and shrinks by 1/(2+σ²), reaching mse σ²/(2+σ²).
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "data/dataset.hpp"
#include "data/kinds.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

using test_support::empirical_mse;
using test_support::linear_estimator_mse;
using test_support::spec_of;

TEST_CASE("wiener_operator: on a diagonal Γ it is diag(λ/(λ+σ²))") {
  const Eigen::Vector3d eigenvalues(4.0, 1.0, 0.25);
  const Eigen::MatrixXd wiener = wiener_operator(eigenvalues.asDiagonal().toDenseMatrix(), 0.5);
  const Eigen::Vector3d expected(4.0 / 4.25, 1.0 / 1.25, 0.25 / 0.5);
  CHECK((wiener - Eigen::MatrixXd(expected.asDiagonal())).cwiseAbs().maxCoeff() < 1e-15);
}

TEST_CASE("wiener_operator: M (Γ + σ²I) = Γ, and M is symmetric and commutes with Γ") {
  const Eigen::MatrixXd covariance = local_covariance(32, 5);
  const Eigen::MatrixXd wiener = wiener_operator(covariance, 0.5);
  const Eigen::MatrixXd shifted = covariance + 0.25 * Eigen::MatrixXd::Identity(32, 32);
  CHECK((wiener * shifted - covariance).cwiseAbs().maxCoeff() < 1e-12);
  CHECK((wiener - wiener.transpose()).cwiseAbs().maxCoeff() < 1e-14);
  CHECK((wiener * covariance - covariance * wiener).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("wiener_operator: with σ = 0 and a rank-deficient Γ it is the projector onto range Γ") {
  const Eigen::MatrixXd covariance = periodic_covariance(32, {2, 5, 9}, 0.5);
  const Eigen::MatrixXd wiener = wiener_operator(covariance, 0.0);
  CHECK((wiener * wiener - wiener).cwiseAbs().maxCoeff() < 1e-12);
  CHECK(wiener.trace() == doctest::Approx(6.0).epsilon(1e-12));  // rank 2K
  CHECK((wiener * covariance - covariance).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("optimal: lowrank M* = Q diag(s²/(s²+σ²)) Qᵀ, the data's SVD shrunk") {
  const Dataset dataset = generate(spec_of("lowrank", 1, 1), 31);
  const Eigen::VectorXd squares = dataset.lowrank_singular_values.cwiseAbs2();
  const Eigen::VectorXd gains = squares.array() / (squares.array() + 0.25);
  const Eigen::MatrixXd expected =
      dataset.lowrank_basis * gains.asDiagonal() * dataset.lowrank_basis.transpose();
  CHECK((dataset.fixed_operator - expected).cwiseAbs().maxCoeff() < 1e-12);
  CHECK(optimal_operator(dataset, dataset.test, 0) == dataset.fixed_operator);
}

TEST_CASE("optimal: fixed_operator is wiener_operator(Γ, σ) for every kind") {
  for (const std::string kind : {"local", "global", "periodic", "lowrank"}) {
    CAPTURE(kind);
    const Dataset dataset = generate(spec_of(kind, 1, 1), 32);
    CHECK(dataset.fixed_operator == wiener_operator(dataset.covariance, dataset.spec.noise));
  }
}

TEST_CASE("optimal: for global, M* has 1/(2+σ²) at (i,i) and (i,partner(i)) and 0 elsewhere") {
  const Dataset dataset = generate(spec_of("global", 1, 3), 33);
  const double shrinkage = 1.0 / 2.25;
  for (int s = 0; s < dataset.test.count; ++s) {
    const Eigen::MatrixXd optimum = optimal_operator(dataset, dataset.test, s);
    const std::int32_t* partners = dataset.test.partners.data() + s * dataset.test.n;
    for (int i = 0; i < dataset.test.n; ++i) {
      for (int j = 0; j < dataset.test.n; ++j) {
        const bool paired = j == i || j == partners[i];
        CHECK(optimum(i, j) == (paired ? shrinkage : 0.0));
      }
    }
    const Eigen::MatrixXd noisy =
        test_support::sample_matrix(dataset.test.inputs, dataset.test.n, dataset.test.d, s);
    CHECK((optimal_estimate(dataset, dataset.test, s) - optimum * noisy).cwiseAbs().maxCoeff() <
          1e-12);
  }
}

// Monte-Carlo checks of the closed forms, on 1500 test samples of the default spec (n = 32,
// d = 16, σ = 0.5): 768 000 squared errors, whose mean is known to within about 1%.
TEST_CASE("optimal: for the Gaussian kinds, optimal_mse matches (1/n)tr((M−I)Γ(M−I)ᵀ + σ²MMᵀ)") {
  for (const std::string kind : {"local", "periodic", "lowrank"}) {
    CAPTURE(kind);
    const Dataset dataset = generate(spec_of(kind, 1, 1500), 34);
    const double closed_form =
        linear_estimator_mse(dataset.fixed_operator, dataset.covariance, dataset.spec.noise);
    const double measured = optimal_mse(dataset, dataset.test);
    CHECK(measured == doctest::Approx(closed_form).epsilon(0.03));
    // Here the optimum is the fixed operator, computed the same way.
    CHECK(fixed_mse(dataset, dataset.test) == measured);
    // Any other operator does worse: shrink M* a little.
    const double perturbed = empirical_mse(
        dataset.test, [&](int) -> Eigen::MatrixXd { return 0.9 * dataset.fixed_operator; });
    CHECK(perturbed > measured);
    CHECK(perturbed == doctest::Approx(linear_estimator_mse(0.9 * dataset.fixed_operator,
                                                            dataset.covariance, dataset.spec.noise))
                           .epsilon(0.03));
  }
}

TEST_CASE("optimal: for global, optimal_mse ≈ σ²/(2+σ²) and beats every fixed operator") {
  const Dataset dataset = generate(spec_of("global", 1, 1500), 35);
  const double measured = optimal_mse(dataset, dataset.test);
  CHECK(measured == doctest::Approx(0.25 / 2.25).epsilon(0.03));
  // M_fix, by the same formula as for the Gaussian kinds (it uses only Γ): about σ²/(1+σ²).
  const double fixed = fixed_mse(dataset, dataset.test);
  CHECK(fixed == doctest::Approx(linear_estimator_mse(dataset.fixed_operator, dataset.covariance,
                                                      dataset.spec.noise))
                     .epsilon(0.03));
  CHECK(measured < 0.6 * fixed);
  // Shrinking by another factor than 1/(2+σ²) does worse, either way.
  for (const double factor : {0.9, 1.1}) {
    CAPTURE(factor);
    const double perturbed = empirical_mse(dataset.test, [&](int s) -> Eigen::MatrixXd {
      return factor * optimal_operator(dataset, dataset.test, s);
    });
    CHECK(perturbed > measured);
  }
}

}  // namespace
}  // namespace ufl::data
