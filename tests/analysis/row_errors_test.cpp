// The MSE by row role (spec section7.md §3): known errors in, known means out.
#include "analysis/row_errors.hpp"

#include <doctest/doctest.h>

using ufl::analysis::RoleErrorTally;

TEST_CASE("each role's MSE is the mean over its rows' elements") {
  RoleErrorTally tally({"key", "value", "key", "blank"});
  Eigen::MatrixXd estimate(4, 2);
  estimate << 1, 1,  //
      2, 2,          //
      3, 3,          //
      0, 4;
  const float target[] = {0, 0, 2, 2, 0, 0, 0, 0};
  tally.add(estimate, target);
  tally.add(estimate, target);  // a second, identical sample leaves the means unchanged
  const auto mse = tally.mse();
  CHECK(mse.at("key") == doctest::Approx((1 + 1 + 9 + 9) / 4.0));
  CHECK(mse.at("value") == 0.0);
  CHECK(mse.at("blank") == doctest::Approx(16 / 2.0));
  CHECK(mse.size() == 3);
  CHECK_THROWS_AS(tally.add(Eigen::MatrixXd::Zero(3, 2), target), std::invalid_argument);
}
