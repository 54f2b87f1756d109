// The `global` dataset (spec §1): n/2 vectors from N(0, I_d), each at the two positions of a
// random pairing; Γ is 1 on the diagonal and 1/(n−1) elsewhere.
#include <doctest/doctest.h>

#include <set>

#include "data/dataset.hpp"
#include "data/kinds.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

TEST_CASE("global: partners form a pairing, an involution without fixed points") {
  const Dataset dataset = generate(test_support::spec_of("global", 200, 50), 4);
  for (const SampleSet* set : {&dataset.train, &dataset.test}) {
    for (int s = 0; s < set->count; ++s) {
      const std::int32_t* partners = set->partners.data() + static_cast<size_t>(s) * set->n;
      for (int position = 0; position < set->n; ++position) {
        const int partner = partners[position];
        REQUIRE(partner >= 0);
        REQUIRE(partner < set->n);
        CHECK(partner != position);
        CHECK(partners[partner] == position);
      }
    }
  }
}

TEST_CASE("global: every vector appears exactly twice, at two partner positions, bit for bit") {
  const Dataset dataset = generate(test_support::spec_of("global", 200, 1), 4);
  const SampleSet& set = dataset.train;
  for (int s = 0; s < set.count; ++s) {
    const float* clean = set.target(s);
    const std::int32_t* partners = set.partners.data() + static_cast<size_t>(s) * set.n;
    std::set<std::vector<float>> distinct_rows;
    for (int position = 0; position < set.n; ++position) {
      const std::vector<float> row(clean + position * set.d, clean + (position + 1) * set.d);
      const float* partner_row = clean + partners[position] * set.d;
      CHECK(std::equal(row.begin(), row.end(), partner_row));
      distinct_rows.insert(row);
    }
    // The n/2 vectors are continuous random draws, so no two of them coincide.
    CHECK(distinct_rows.size() == static_cast<size_t>(set.n / 2));
  }
}

TEST_CASE("global: Γ is 1 on the diagonal and 1/(n−1) elsewhere") {
  const Eigen::MatrixXd covariance = global_covariance(4);
  Eigen::MatrixXd expected(4, 4);
  expected << 1, 1.0 / 3, 1.0 / 3, 1.0 / 3,  //
      1.0 / 3, 1, 1.0 / 3, 1.0 / 3,          //
      1.0 / 3, 1.0 / 3, 1, 1.0 / 3,          //
      1.0 / 3, 1.0 / 3, 1.0 / 3, 1;
  CHECK(covariance == expected);
}

TEST_CASE("global: the empirical position covariance of the clean signal is Γ") {
  // Matching 1/(n−1) off the diagonal also says that every pairing is equally likely.
  const Dataset dataset = generate(test_support::spec_of("global", 4000, 1), 12);
  const Eigen::MatrixXd empirical = test_support::empirical_position_covariance(dataset.train);
  const double tolerance = test_support::covariance_tolerance(dataset.train);
  CHECK((empirical - dataset.covariance).cwiseAbs().maxCoeff() < tolerance);
}

TEST_CASE("global: the optimum is not a fixed operator") {
  const Dataset dataset = generate(test_support::spec_of("global", 1, 1), 1);
  CHECK(dataset.kind->has_partners);
}

}  // namespace
}  // namespace ufl::data
