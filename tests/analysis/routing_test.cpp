// Routing accuracy (spec §4, global): is each position's largest off-diagonal entry its partner?
#include "analysis/routing.hpp"

#include <doctest/doctest.h>

#include <cstdint>
#include <stdexcept>

using ufl::analysis::routed_positions;
using ufl::analysis::routing_accuracy;
using ufl::analysis::RoutingTally;

TEST_CASE("routing_accuracy: a hand-built 4x4 case with ties") {
  const std::int32_t partners[4] = {1, 0, 3, 2};
  Eigen::MatrixXd M(4, 4);
  M << 9, 5, 1, 2,  // the diagonal 9 is ignored; largest off-diagonal at 1 = partner: routed
      3, 0, 3, 1,   // tie between 0 and 2, the first (0) wins = partner: routed
      4, 4, 0, 1,   // tie between 0 and 1, the first (0) wins; partner is 3: not routed
      0, 0, 7, 0;   // largest at 2 = partner: routed
  CHECK(routed_positions(M, partners) == 3);
  CHECK(routing_accuracy(M, partners) == doctest::Approx(0.75));
}

TEST_CASE("RoutingTally averages over all positions of all samples") {
  const std::int32_t partners[2] = {1, 0};
  Eigen::MatrixXd routed(2, 2), reversed(2, 2);
  routed << 1, 2, 2, 1;
  RoutingTally tally;
  CHECK(tally.accuracy() == 0.0);
  tally.add(routed, partners);
  tally.add(routed, partners);
  const std::int32_t wrong_partners[2] = {0, 1};  // a position never routes to itself
  tally.add(routed, wrong_partners);
  tally.add(routed, wrong_partners);
  CHECK(tally.accuracy() == doctest::Approx(0.5));
  CHECK_THROWS_AS(routing_accuracy(Eigen::MatrixXd::Zero(2, 3), partners), std::invalid_argument);
}
