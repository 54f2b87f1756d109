// Input dependence ι (spec §4) and the spread of per-sample spectra.
#include "analysis/input_dependence.hpp"

#include <doctest/doctest.h>

#include <stdexcept>

using ufl::analysis::OperatorStatistics;

TEST_CASE("input_dependence: a fixed operator repeated gives ι = 0 and M̄ = M") {
  Eigen::MatrixXd M(2, 2);
  M << 0.3, -1.2, 0.7, 2.1;
  OperatorStatistics statistics;
  for (int s = 0; s < 5; ++s) statistics.add(M);
  CHECK(statistics.count() == 5);
  CHECK(statistics.input_dependence() == 0.0);
  CHECK((statistics.mean() - M).norm() < 1e-15);
}

TEST_CASE("input_dependence: M and −M average to zero, ι = 1") {
  Eigen::MatrixXd M(2, 2);
  M << 1.0, 2.0, -3.0, 0.5;
  OperatorStatistics statistics;
  statistics.add(M);
  statistics.add(-M);
  CHECK(statistics.mean().norm() == 0.0);
  CHECK(statistics.input_dependence() == doctest::Approx(1.0).epsilon(1e-15));
}

TEST_CASE("input_dependence: diag(1, 1) and diag(1, −1) give M̄ = diag(1, 0), ι = 1/2") {
  // ‖M_s − M̄‖² = 1 for both; ‖M_s‖² = 2 for both.
  OperatorStatistics statistics;
  statistics.add(Eigen::Vector2d(1.0, 1.0).asDiagonal().toDenseMatrix());
  statistics.add(Eigen::Vector2d(1.0, -1.0).asDiagonal().toDenseMatrix());
  CHECK((statistics.mean() - Eigen::MatrixXd(Eigen::Vector2d(1.0, 0.0).asDiagonal())).norm() ==
        0.0);
  CHECK(statistics.input_dependence() == doctest::Approx(0.5).epsilon(1e-15));
}

TEST_CASE("input_dependence: degenerate cases and shape errors") {
  OperatorStatistics statistics;
  CHECK(statistics.input_dependence() == 0.0);
  CHECK_THROWS_AS(statistics.mean(), std::logic_error);
  statistics.add(Eigen::MatrixXd::Zero(3, 3));
  CHECK(statistics.input_dependence() == 0.0);  // 0/0
  CHECK_THROWS_AS(statistics.add(Eigen::MatrixXd::Zero(2, 3)), std::invalid_argument);
  CHECK_THROWS_AS(statistics.spectrum_spread(), std::logic_error);  // not collected
}

TEST_CASE("spectrum_spread: mean and population spread of effective rank and k99") {
  // diag(1, 0): effective rank 1, k99 1; diag(1, 1): effective rank 2, k99 2.
  OperatorStatistics statistics(true);
  statistics.add(Eigen::Vector2d(1.0, 0.0).asDiagonal().toDenseMatrix());
  statistics.add(Eigen::Vector2d(1.0, 1.0).asDiagonal().toDenseMatrix());
  const auto spread = statistics.spectrum_spread();
  CHECK(spread.mean_effective_rank == doctest::Approx(1.5).epsilon(1e-14));
  CHECK(spread.std_effective_rank == doctest::Approx(0.5).epsilon(1e-14));
  CHECK(spread.mean_k99 == doctest::Approx(1.5).epsilon(1e-14));
  CHECK(spread.std_k99 == doctest::Approx(0.5).epsilon(1e-14));
  REQUIRE(spread.mean_singular_values.size() == 2);
  CHECK(spread.mean_singular_values(0) == doctest::Approx(1.0).epsilon(1e-14));
  CHECK(spread.mean_singular_values(1) == doctest::Approx(0.5).epsilon(1e-14));
}
