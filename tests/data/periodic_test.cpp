// The `periodic` dataset (spec §1): C[t,c] = Σ_f a_f cos(2πft/n) + b_f sin(2πft/n) over `freqs`,
// a_f, b_f ~ N(0, v_f), v_f ∝ amplitude_decay^index, Σ v_f = 1; Γ is circulant of rank 2K.
#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <numbers>

#include "data/dataset.hpp"
#include "data/kinds.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

TEST_CASE("periodic: variances halve along freqs = [2, 5, 9] with decay 0.5 and sum to 1") {
  const std::vector<double> variances = periodic_variances({2, 5, 9}, 0.5);
  REQUIRE(variances.size() == 3);
  CHECK(variances[0] == doctest::Approx(4.0 / 7.0).epsilon(1e-14));
  CHECK(variances[1] == doctest::Approx(2.0 / 7.0).epsilon(1e-14));
  CHECK(variances[2] == doctest::Approx(1.0 / 7.0).epsilon(1e-14));
}

TEST_CASE("periodic: Γ_ts = Σ_f v_f cos(2πf(t−s)/n), circulant with unit diagonal") {
  const int n = 32;
  const Eigen::MatrixXd covariance = periodic_covariance(n, {2, 5, 9}, 0.5);
  for (int t = 0; t < n; ++t) {
    for (int s = 0; s < n; ++s) {
      double expected = 0.0;
      const double weights[] = {4.0 / 7.0, 2.0 / 7.0, 1.0 / 7.0};
      const int freqs[] = {2, 5, 9};
      for (int index = 0; index < 3; ++index) {
        expected += weights[index] * std::cos(2.0 * std::numbers::pi * freqs[index] * (t - s) / n);
      }
      CHECK(covariance(t, s) == doctest::Approx(expected).epsilon(1e-12));
      CHECK(covariance(t, s) ==
            doctest::Approx(covariance((t + 1) % n, (s + 1) % n)).epsilon(1e-12));
    }
    CHECK(covariance(t, t) == doctest::Approx(1.0).epsilon(1e-14));
  }
}

TEST_CASE("periodic: Γ has rank 2K, eigenvalue n·v_f/2 twice for each frequency") {
  const int n = 32;
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eigen(
      periodic_covariance(n, {2, 5, 9}, 0.5));
  Eigen::VectorXd eigenvalues = eigen.eigenvalues().reverse();  // descending
  const double expected[] = {64.0 / 7, 64.0 / 7, 32.0 / 7, 32.0 / 7, 16.0 / 7, 16.0 / 7};
  for (int i = 0; i < 6; ++i) CHECK(eigenvalues(i) == doctest::Approx(expected[i]).epsilon(1e-12));
  CHECK(eigenvalues.tail(n - 6).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("periodic: every clean channel lies in the span of the listed waves") {
  const Dataset dataset = generate(test_support::spec_of("periodic", 50, 1), 8);
  const int n = dataset.spec.n;
  const std::vector<int>& freqs = dataset.spec.freqs;
  Eigen::MatrixXd waves(n, 2 * freqs.size());
  for (int t = 0; t < n; ++t) {
    for (size_t index = 0; index < freqs.size(); ++index) {
      waves(t, 2 * index) = std::cos(2.0 * std::numbers::pi * freqs[index] * t / n);
      waves(t, 2 * index + 1) = std::sin(2.0 * std::numbers::pi * freqs[index] * t / n);
    }
  }
  // The waves are orthogonal with squared norm n/2 (1 ≤ f < n/2), so this is the projection.
  const Eigen::MatrixXd projector = waves * waves.transpose() / (n / 2.0);
  for (int s = 0; s < dataset.train.count; ++s) {
    const Eigen::MatrixXd clean =
        test_support::sample_matrix(dataset.train.targets, n, dataset.spec.d, s);
    // Float storage leaves residuals of about 1e-7.
    CHECK((clean - projector * clean).cwiseAbs().maxCoeff() < 1e-5);
  }
}

TEST_CASE("periodic: the empirical position covariance of the clean signal is Γ") {
  const Dataset dataset = generate(test_support::spec_of("periodic", 4000, 1), 13);
  const Eigen::MatrixXd empirical = test_support::empirical_position_covariance(dataset.train);
  const double tolerance = test_support::covariance_tolerance(dataset.train);
  CHECK((empirical - dataset.covariance).cwiseAbs().maxCoeff() < tolerance);
}

TEST_CASE("periodic: frequencies must satisfy 1 ≤ f < n/2 and be distinct") {
  data::DatasetConfig spec = test_support::spec_of("periodic", 1, 1);
  spec.n = 20;
  for (const std::vector<int>& freqs :
       {std::vector<int>{0}, std::vector<int>{10}, std::vector<int>{-3}, std::vector<int>{3, 3}}) {
    spec.freqs = freqs;
    CHECK_THROWS_WITH_AS(generate(spec, 1), doctest::Contains("dataset.freqs"),
                         std::invalid_argument);
  }
  spec.freqs = {1, 9};
  CHECK_NOTHROW(generate(spec, 1));
}

}  // namespace
}  // namespace ufl::data
