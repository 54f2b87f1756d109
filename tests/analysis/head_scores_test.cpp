// What a head became (docs/transformer.md §5), from hand-made causal matrices with known answers.
#include "analysis/head_scores.hpp"

#include <doctest/doctest.h>

using namespace ufl;
using analysis::head_kind;
using analysis::head_scores;

namespace {

Eigen::MatrixXd shift(int n) {  // each position reads the one before (row 0 reads nothing)
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  for (int i = 1; i < n; ++i) m(i, i - 1) = 1;
  return m;
}

Eigen::MatrixXd causal_average(int n) {  // uniform over j ≤ i
  Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j <= i; ++j) m(i, j) = 1.0 / (i + 1);
  return m;
}

}  // namespace

TEST_CASE("a previous-token head: offset 1 holds everything, distance 1, a 2-tap causal band") {
  const auto scores = head_scores({shift(16)}, std::nullopt, {});
  CHECK(scores["dominant_offset"] == 1);
  CHECK(scores["dominant_share"].get<double>() == 1.0);
  CHECK(scores["mean_distance"].get<double>() == 1.0);  // row 0, all zero, is left out
  CHECK(scores["closest"]["size"] == 2);
  CHECK(scores["iota"].get<double>() == 0.0);
  CHECK(head_kind(scores) == "previous-token");
  CHECK(scores["closest"]["family"] == "convolution");
}

TEST_CASE("a causal average: distance i/2 per row, a stochastic matrix, no single offset") {
  const int n = 8;
  const auto scores = head_scores({causal_average(n)}, 0.5, {});
  double expected = 0;
  for (int i = 0; i < n; ++i) expected += i / 2.0;
  CHECK(scores["mean_distance"].get<double>() == doctest::Approx(expected / n));
  CHECK(scores["rows_stochastic"] == true);
  CHECK(scores["gamma"] == 0.5);
  CHECK(scores["dominant_offset"] == 0);
  CHECK(head_kind(scores) != "content");  // input-independent
}

TEST_CASE("a causal band of 3 taps is local; the identity is 'self'; rank 1 is low-rank") {
  const int n = 12;
  Eigen::MatrixXd band = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i)
    for (int o = 0; o < 3 && i - o >= 0; ++o) band(i, i - o) = 1.0 - 0.1 * o;
  const auto band_scores = head_scores({band}, std::nullopt, {});
  CHECK(band_scores["closest"]["family"] == "convolution");
  CHECK(band_scores["closest"]["size"] == 3);
  CHECK(band_scores["band_90"].get<int>() <= 2);
  CHECK(head_kind(band_scores) == "local");
  CHECK(head_kind(head_scores({Eigen::MatrixXd::Identity(n, n)}, std::nullopt, {})) == "self");
  Eigen::MatrixXd rank1 =
      Eigen::VectorXd::LinSpaced(n, 1, 2) * Eigen::RowVectorXd::LinSpaced(n, 2, 1);
  const auto rank_scores = head_scores({rank1}, std::nullopt, {});
  CHECK(rank_scores["k99"] == 1);
  CHECK(rank_scores["closest"]["family"] == "lowrank");
  CHECK(head_kind(rank_scores) == "low-rank");
}

TEST_CASE("windows that differ make an input-dependent head: content, by rule") {
  const int n = 6;
  std::vector<Eigen::MatrixXd> windows;
  for (int w = 0; w < n; ++w) {  // window w attends from every row i ≥ w to position w
    Eigen::MatrixXd m = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i) m(i, std::min(i, w)) = 1;
    windows.push_back(m);
  }
  const auto scores = head_scores(windows, 1.0, {});
  CHECK(scores["iota"].get<double>() > 0.2);
  CHECK(scores["closest"]["family"] == "attention");
  CHECK(head_kind(scores) == "content");
}
