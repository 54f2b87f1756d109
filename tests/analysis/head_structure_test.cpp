// The seeds' per-head measures on hand-set matrices whose answers are known in closed form
// (analysis/head_structure.hpp, docs/head_structure.md §2).
#include "analysis/head_structure.hpp"

#include <doctest/doctest.h>

#include <cmath>

using namespace ufl;
using Eigen::MatrixXd;
using Eigen::VectorXd;

TEST_CASE("rank profile: one singular value is rank 1, four equal ones rank 4") {
  const analysis::RankProfile one = analysis::rank_profile(VectorXd::Unit(5, 0) * 3.0);
  CHECK(one.effective_rank == doctest::Approx(1.0));
  CHECK(one.k90 == 1);
  CHECK(one.k99 == 1);
  const analysis::RankProfile flat = analysis::rank_profile(VectorXd::Ones(4));
  CHECK(flat.effective_rank == doctest::Approx(4.0));
  CHECK(flat.k90 == 4);  // 3 of 4 hold 75 %
  CHECK(flat.k99 == 4);
  // σ² = 81, 16, 2, 1 of 100: 90 % needs two, 99 % three.
  VectorXd decaying(4);
  decaying << 9, 4, std::sqrt(2.0), 1;
  const analysis::RankProfile profile = analysis::rank_profile(decaying);
  CHECK(profile.k90 == 2);
  CHECK(profile.k99 == 3);
}

TEST_CASE("rank-k truncation keeps a rank-2 matrix and cuts it to its leading part") {
  VectorXd u1(3), v1(3), u2(3), v2(3);
  u1 << 1, 0, 0;
  v1 << 0, 1, 0;
  u2 << 0, 0, 1;
  v2 << 1, 0, 0;
  const MatrixXd m = 5 * u1 * v1.transpose() + 2 * u2 * v2.transpose();
  CHECK((analysis::truncated(m, 2) - m).norm() < 1e-12);
  CHECK((analysis::truncated(m, 3) - m).norm() == 0.0);
  CHECK((analysis::truncated(m, 1) - 5 * u1 * v1.transpose()).norm() < 1e-12);
  CHECK(analysis::truncated(m, 0).norm() == 0.0);
}

TEST_CASE("the uniform causal average: row i is 1/(i+1) on j <= i") {
  const MatrixXd m = analysis::uniform_causal_average(4);
  CHECK(m(0, 0) == 1.0);
  CHECK(m(3, 0) == 0.25);
  CHECK(m(3, 3) == 0.25);
  CHECK(m(1, 2) == 0.0);
  CHECK(m.rowwise().sum().isApprox(VectorXd::Ones(4)));
}

TEST_CASE("distribution: mean, nearest-rank median and deciles") {
  const analysis::Distribution d = analysis::distribution_of({10, 1, 2, 3, 4, 5, 6, 7, 8, 9});
  CHECK(d.mean == doctest::Approx(5.5));
  CHECK(d.median == 5);
  CHECK(d.p10 == 1);
  CHECK(d.p90 == 9);
  CHECK(analysis::distribution_of({}).mean == 0);
}

TEST_CASE("distance-form gap: 0 for keys of equal norm, closed form otherwise, gauge-free") {
  // Keys on the unit circle: ½‖k‖² is the same for every key, so softmax(q·k) is the distance form.
  MatrixXd keys(4, 2), queries(4, 2);
  keys << 1, 0, 0, 1, -1, 0, std::sqrt(0.5), std::sqrt(0.5);
  queries << 2, 1, 0, 3, 1, 1, -1, 2;
  const analysis::DistanceFormGap equal = analysis::distance_form_gap(queries, keys, true);
  CHECK(equal.gap == doctest::Approx(0.0).epsilon(1e-12));
  CHECK(equal.key_norm_variation == doctest::Approx(0.0).epsilon(1e-12));

  // Two keys of squared norms 1 and 4, two identical queries (1, 0), not causal: scores (1, 2)
  // in each row (spread ½); mean‖q‖² = 1, mean‖k‖² = 2.5, so c² = 1/√2.5 and ½c²‖k‖² spreads by
  // ½c²·1.5; the gap is 1.5c².
  MatrixXd q(2, 2), k(2, 2);
  q << 1, 0, 1, 0;
  k << 1, 0, 2, 0;
  const analysis::DistanceFormGap gap = analysis::distance_form_gap(q, k, false);
  CHECK(gap.gap == doctest::Approx(1.5 / std::sqrt(2.5)));
  CHECK(gap.key_norm_variation == doctest::Approx(0.6));  // sd(1, 4) / 2.5
  // Moving a scale from the keys to the queries leaves S, and the gap, unchanged.
  const analysis::DistanceFormGap moved = analysis::distance_form_gap(3 * q, k / 3, false);
  CHECK(moved.gap == doctest::Approx(gap.gap));
}

TEST_CASE("Ω's parts read what they were built from: token, position and bias coordinates") {
  // D = 4 channels, n = 2 positions: x̃ = [x̂ (4), e_i (2), 1], 7 coordinates.
  const int d = 4;
  MatrixXd tokens(2, d), positions(2, d);
  tokens << 1, 0, 0, 0, 0, 2, 0, 0;     // span {e0, e1}
  positions << 0, 0, 1, 0, 0, 0, 3, 0;  // span {e2}
  const analysis::FeatureSpans spans =
      analysis::feature_spans(tokens, positions, VectorXd::Ones(d), false);
  CHECK(spans.token.cols() == 2);  // the leading direction holds 80 % < 90 %
  CHECK(spans.position.cols() == 1);

  // Ω = 5·e0·e5ᵀ (a token feature of the query against the key's one-hot position) +
  //     2·e6·e2ᵀ (the query's bias coordinate against the key's position-embedding feature).
  model::Factors factors{MatrixXd::Zero(7, 2), MatrixXd::Zero(7, 2), VectorXd(2)};
  factors.A(0, 0) = 1;
  factors.B(5, 0) = 1;
  factors.A(6, 1) = 1;
  factors.B(2, 1) = 1;
  factors.sigma << 5, 2;
  const MatrixXd omega = analysis::omega_of(factors);
  CHECK(omega(0, 5) == 5);
  CHECK(omega(6, 2) == 2);
  const analysis::OmegaStructure structure = analysis::omega_structure(omega, spans, d, 4);
  REQUIRE(structure.parts.size() == 2);  // rank 2: no more parts
  CHECK(structure.profile.k99 == 2);
  CHECK(structure.parts[0].sigma == doctest::Approx(5));
  CHECK(structure.parts[0].query.token == doctest::Approx(1));
  CHECK(structure.parts[0].query.position == doctest::Approx(0).epsilon(1e-12));
  CHECK(structure.parts[0].key.position == doctest::Approx(1));
  CHECK(structure.parts[0].key.token == doctest::Approx(0).epsilon(1e-12));
  CHECK(structure.parts[1].sigma == doctest::Approx(2));
  CHECK(structure.parts[1].query.bias == doctest::Approx(1));
  CHECK(structure.parts[1].key.position == doctest::Approx(1));
}

TEST_CASE("feature spans follow the layer norm: centred over channels, scaled by the gain") {
  // A constant row is removed by the centring; the gain stretches e1 away from e0.
  MatrixXd tokens(2, 3);
  tokens << 1, 1, 1, 1, -1, 0;
  VectorXd gain(3);
  gain << 1, 0, 1;
  const analysis::FeatureSpans spans = analysis::feature_spans(tokens, MatrixXd(0, 3), gain, true);
  REQUIRE(spans.token.cols() == 1);
  // (1, −1, 0) centred is itself; times the gain (1, 0, 0) → e0.
  CHECK(std::abs(spans.token(0, 0)) == doctest::Approx(1));
  CHECK(spans.position.cols() == 0);
}
