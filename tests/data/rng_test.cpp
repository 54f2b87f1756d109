// The seeded random stream (data/rng.hpp): reproducible per (seed, stream), independent across
// streams, with the right distributions.
#include "data/rng.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <vector>

namespace ufl::data {
namespace {

TEST_CASE("rng: the same seed and stream give the same numbers; other streams and seeds differ") {
  Rng first(42, Stream::kTrainSamples), second(42, Stream::kTrainSamples);
  Rng other_stream(42, Stream::kTestSamples), other_seed(43, Stream::kTrainSamples);
  int differing_stream = 0, differing_seed = 0;
  for (int i = 0; i < 100; ++i) {
    const std::uint64_t value = first.next_u64();
    CHECK(value == second.next_u64());
    differing_stream += value != other_stream.next_u64();
    differing_seed += value != other_seed.next_u64();
  }
  CHECK(differing_stream == 100);
  CHECK(differing_seed == 100);
}

TEST_CASE("rng: normal() has mean 0 and variance 1; uniform() lies in [0, 1)") {
  Rng rng(7, Stream::kMonteCarlo);
  const int count = 200000;
  double sum = 0.0, sum_of_squares = 0.0;
  for (int i = 0; i < count; ++i) {
    const double value = rng.normal();
    sum += value;
    sum_of_squares += value * value;
  }
  // Standard errors: 0.0022 for the mean, 0.0032 for the variance.
  CHECK(std::abs(sum / count) < 0.012);
  CHECK(sum_of_squares / count == doctest::Approx(1.0).epsilon(0.016));
  for (int i = 0; i < 1000; ++i) {
    const double value = rng.uniform();
    CHECK((value >= 0.0 && value < 1.0));
  }
}

TEST_CASE("rng: below(b) stays below b and shuffle() permutes") {
  Rng rng(3, Stream::kMinibatches);
  std::vector<int> hits(5, 0);
  for (int i = 0; i < 5000; ++i) ++hits[rng.below(5)];
  for (const int hit : hits) CHECK(hit > 800);  // about 1000 each
  std::vector<int> order(20);
  std::iota(order.begin(), order.end(), 0);
  rng.shuffle(order.begin(), order.end());
  std::vector<int> sorted = order;
  std::sort(sorted.begin(), sorted.end());
  for (int i = 0; i < 20; ++i) CHECK(sorted[i] == i);
  CHECK_FALSE(std::is_sorted(order.begin(), order.end()));
}

}  // namespace
}  // namespace ufl::data
