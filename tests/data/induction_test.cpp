// The `induction` dataset (spec section7.md §2): K = n/4 (key, value) pairs in the first half,
// the keys again in another order in the second half, each followed by a blank whose target is
// its key's value and whose input is noise only. Its best fixed operator and per-sample optimum.
#include <doctest/doctest.h>

#include <algorithm>
#include <set>

#include "data/dataset.hpp"
#include "data/kinds.hpp"
#include "data/registry.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

using test_support::sample_matrix;
using test_support::spec_of;

std::vector<float> row_of(const std::vector<float>& values, int n, int d, int s, int position) {
  const float* start = values.data() + (static_cast<size_t>(s) * n + position) * d;
  return std::vector<float>(start, start + d);
}

// The expected MSE per element of a fixed M when the input hides the rows `hidden`: with
// P the projector off them, E‖M X − C‖² per column = tr(M(PΓP + σ²I)Mᵀ − 2MPΓ + Γ).
double hidden_rows_mse(const Eigen::MatrixXd& M, const Eigen::MatrixXd& covariance,
                       const std::vector<int>& hidden, double noise) {
  const Eigen::Index n = covariance.rows();
  Eigen::VectorXd shown = Eigen::VectorXd::Ones(n);
  for (int position : hidden) shown(position) = 0.0;
  const Eigen::MatrixXd P = shown.asDiagonal();
  const Eigen::MatrixXd input =
      P * covariance * P + noise * noise * Eigen::MatrixXd::Identity(n, n);
  return (M * input * M.transpose() - 2.0 * M * P * covariance + covariance).trace() / double(n);
}

TEST_CASE("induction: positions play fixed roles: keys at even positions, values, then blanks") {
  CHECK(induction_role(32, 0) == InductionRole::kKey);
  CHECK(induction_role(32, 15) == InductionRole::kValue);
  CHECK(induction_role(32, 16) == InductionRole::kKey);
  CHECK(induction_role(32, 17) == InductionRole::kBlank);
  CHECK(induction_blanks(8) == std::vector<int>{5, 7});
  CHECK(induction_second_keys(8) == std::vector<int>{4, 6});
  const std::vector<std::string> roles =
      dataset_kind("induction").row_roles(spec_of("induction", 1, 1));
  CHECK(roles.size() == 32);
  CHECK(std::count(roles.begin(), roles.end(), "key") == 16);
  CHECK(std::count(roles.begin(), roles.end(), "value") == 8);
  CHECK(std::count(roles.begin(), roles.end(), "blank") == 8);
}

TEST_CASE("induction: every key appears twice, once in each half, at partner positions") {
  const Dataset dataset = generate(spec_of("induction", 100, 10), 3);
  const SampleSet& set = dataset.train;
  const int n = set.n, d = set.d;
  for (int s = 0; s < set.count; ++s) {
    const std::int32_t* partners = set.partners.data() + static_cast<size_t>(s) * n;
    std::set<std::vector<float>> first_keys, second_keys;
    for (int position = 0; position < n; position += 2) {
      const int partner = partners[position];
      REQUIRE(partner >= 0);
      REQUIRE(partner < n);
      CHECK(partner % 2 == 0);                         // a key's partner is a key
      CHECK((partner < n / 2) != (position < n / 2));  // in the other half
      CHECK(partners[partner] == position);
      CHECK(row_of(set.targets, n, d, s, position) == row_of(set.targets, n, d, s, partner));
      (position < n / 2 ? first_keys : second_keys).insert(row_of(set.targets, n, d, s, position));
    }
    // K distinct keys in each half, the same K.
    CHECK(first_keys.size() == static_cast<size_t>(n / 4));
    CHECK(first_keys == second_keys);
  }
}

TEST_CASE("induction: the target at a blank is the value after its key's first appearance") {
  const Dataset dataset = generate(spec_of("induction", 100, 10), 4);
  const SampleSet& set = dataset.test;
  const int n = set.n, d = set.d;
  for (int s = 0; s < set.count; ++s) {
    const std::int32_t* partners = set.partners.data() + static_cast<size_t>(s) * n;
    for (int blank : induction_blanks(n)) {
      // Find the key before the blank in the first half, by content.
      const std::vector<float> key = row_of(set.targets, n, d, s, blank - 1);
      int first = -1;
      for (int position = 0; position < n / 2; position += 2) {
        // Compared in place: a temporary vector here makes GCC 12 warn (-Wfree-nonheap-object,
        // a false positive) once the dataset structs grew.
        const float* row = set.targets.data() + (static_cast<size_t>(s) * n + position) * d;
        if (std::equal(key.begin(), key.end(), row)) first = position;
      }
      REQUIRE(first >= 0);
      CHECK(row_of(set.targets, n, d, s, blank) == row_of(set.targets, n, d, s, first + 1));
      CHECK(partners[blank] == first + 1);
      CHECK(partners[first + 1] == blank);
    }
  }
}

TEST_CASE("induction: blanks are noise only in X; elsewhere X − C is the noise") {
  DatasetConfig spec = spec_of("induction", 400, 1);
  spec.noise = 0.7;
  const Dataset dataset = generate(spec, 5);
  const SampleSet& set = dataset.train;
  const int n = set.n, d = set.d;
  double blank_sum = 0, blank_squares = 0, blank_target_product = 0, other_squares = 0;
  long long blank_count = 0, other_count = 0;
  for (int s = 0; s < set.count; ++s)
    for (int position = 0; position < n; ++position)
      for (int c = 0; c < d; ++c) {
        const size_t e = (static_cast<size_t>(s) * n + position) * d + c;
        const double x = set.inputs[e], target = set.targets[e];
        if (induction_role(n, position) == InductionRole::kBlank) {
          blank_sum += x, blank_squares += x * x, blank_target_product += x * target;
          ++blank_count;
        } else {
          other_squares += (x - target) * (x - target);
          ++other_count;
        }
      }
  // 51 200 blank elements: standard errors 0.003 (mean), 0.3% of σ (deviation), 0.003 (the
  // correlation with the target, which is independent of the noise).
  CHECK(std::abs(blank_sum / blank_count) < 0.015);
  CHECK(std::sqrt(blank_squares / blank_count) == doctest::Approx(0.7).epsilon(0.015));
  CHECK(std::abs(blank_target_product / blank_count) < 0.015);
  CHECK(std::sqrt(other_squares / other_count) == doctest::Approx(0.7).epsilon(0.01));

  // Without noise, the input is exactly the target except at blanks, where it is 0.
  spec.noise = 0.0;
  const Dataset clean = generate(spec, 5);
  for (int s = 0; s < 10; ++s)
    for (int position = 0; position < n; ++position) {
      const bool blank = induction_role(n, position) == InductionRole::kBlank;
      const std::vector<float> x = row_of(clean.train.inputs, n, d, s, position);
      CHECK(x ==
            (blank ? std::vector<float>(d, 0.0f) : row_of(clean.train.targets, n, d, s, position)));
    }
}

TEST_CASE("induction: the empirical position covariance of the targets is Γ") {
  const Dataset dataset = generate(spec_of("induction", 4000, 1), 12);
  const Eigen::MatrixXd empirical = test_support::empirical_position_covariance(dataset.train);
  CHECK((empirical - dataset.covariance).cwiseAbs().maxCoeff() <
        test_support::covariance_tolerance(dataset.train));
  CHECK(dataset.covariance(0, 16) == 1.0 / 8);  // a first-half key and a second-half one
  CHECK(dataset.covariance(17, 1) == 1.0 / 8);  // a blank and a first-half value
  CHECK(dataset.covariance(17, 19) == 0.0);     // two blanks: different values
  CHECK(dataset.covariance(0, 2) == 0.0);       // two keys of one half: different keys
}

TEST_CASE("induction: the best fixed operator is the Wiener operator of the hidden rows") {
  // At σ = 0.5, n = 32 (spec section7.md §2's reference: 0.368 overall, 0.893 on blank rows).
  const Dataset dataset = generate(spec_of("induction", 1, 4000), 6);
  const int n = 32, pairs = 8;
  const double noise = 0.5, variance = noise * noise;
  const Eigen::MatrixXd& fixed = dataset.fixed_operator;
  const std::vector<int> blanks = induction_blanks(n);

  // A blank's row weighs every first-half value position by 1/(K(1+σ²)), nothing else.
  for (int j = 0; j < n; ++j)
    CHECK(fixed(17, j) ==
          doctest::Approx(j < n / 2 && j % 2 == 1 ? 1.0 / (pairs * (1.0 + variance)) : 0.0));
  // A value position shrinks on its own; keys also borrow a little from the other half.
  CHECK(fixed(1, 1) == doctest::Approx(1.0 / (1.0 + variance)));
  CHECK(fixed(0, 16) > 0.0);
  // The orthogonality principle: M_fix E[XXᵀ] = E[CXᵀ], so no fixed matrix does better.
  Eigen::VectorXd shown = Eigen::VectorXd::Ones(n);
  for (int blank : blanks) shown(blank) = 0.0;
  const Eigen::MatrixXd P = shown.asDiagonal();
  const Eigen::MatrixXd input =
      P * dataset.covariance * P + variance * Eigen::MatrixXd::Identity(n, n);
  CHECK((fixed * input - dataset.covariance * P).cwiseAbs().maxCoeff() < 1e-12);

  // Its MSE, in closed form and on 4000 test samples: 0.368 overall, 0.9 (= 1 − 1/(K(1+σ²)))
  // on blank rows.
  const double closed_form = hidden_rows_mse(fixed, dataset.covariance, blanks, noise);
  CHECK(closed_form == doctest::Approx(0.3684).epsilon(0.002));
  CHECK(fixed_mse(dataset, dataset.test) == doctest::Approx(closed_form).epsilon(0.01));
  Eigen::MatrixXd blank_rows = Eigen::MatrixXd::Zero(n, n);
  for (int blank : blanks) blank_rows(blank, blank) = 1.0;
  const double blank_mse =
      (blank_rows * (fixed * input * fixed.transpose() - 2.0 * fixed * P * dataset.covariance +
                     dataset.covariance))
          .trace() /
      double(blanks.size());
  CHECK(blank_mse == doctest::Approx(1.0 - 1.0 / (pairs * (1.0 + variance))));

  // Shrinking each position on its own and leaving blanks at 0 (the spec's words) is worse:
  // 0.40 overall, 1.0 on blank rows.
  Eigen::MatrixXd own = Eigen::MatrixXd::Identity(n, n) / (1.0 + variance);
  for (int blank : blanks) own(blank, blank) = 0.0;
  CHECK(hidden_rows_mse(own, dataset.covariance, blanks, noise) ==
        doctest::Approx(0.75 * variance / (1.0 + variance) + 0.25));
  CHECK(hidden_rows_mse(own, dataset.covariance, blanks, noise) > closed_form + 0.03);
}

TEST_CASE("induction: the per-sample optimum averages a key's copies and recalls each value") {
  const Dataset dataset = generate(spec_of("induction", 1, 2000), 7);
  const double variance = 0.25;
  const SampleSet& set = dataset.test;
  // The direct estimate and the per-sample operator agree.
  for (int s = 0; s < 5; ++s) {
    const Eigen::MatrixXd noisy = sample_matrix(set.inputs, set.n, set.d, s);
    CHECK((optimal_estimate(dataset, set, s) - optimal_operator(dataset, set, s) * noisy)
              .cwiseAbs()
              .maxCoeff() < 1e-12);
  }
  // Keys σ²/(2+σ²), values and blanks σ²/(1+σ²): 0.1556 overall (spec: 0.155).
  const double expected = 0.5 * variance / (2.0 + variance) + 0.5 * variance / (1.0 + variance);
  CHECK(optimal_mse(dataset, set) == doctest::Approx(expected).epsilon(0.01));
  CHECK(optimal_mse(dataset, set) < 0.5 * fixed_mse(dataset, set));
}

TEST_CASE("induction: n must be divisible by 4") {
  DatasetConfig spec = spec_of("induction", 2, 2);
  spec.n = 30;
  const BrokenRule broken = dataset_kind("induction").check(spec);
  CHECK(broken.key == "dataset.n");
  CHECK(broken.rule.find("divisible by 4") != std::string::npos);
  CHECK_THROWS_AS(generate(spec, 1), std::invalid_argument);
  spec.n = 4;  // one key, its value and one blank
  CHECK_FALSE(dataset_kind("induction").check(spec));
  CHECK(generate(spec, 1).train.partners.size() == 8);
}

}  // namespace
}  // namespace ufl::data
