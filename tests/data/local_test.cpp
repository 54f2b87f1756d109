// The `local` dataset (spec §1): each channel is white noise filtered by a Gaussian bump
// h_t ∝ exp(−t²/(2(w/4)²)), t = −⌊w/2⌋..⌊w/2⌋, ‖h‖ = 1, valid convolution; Γ is Toeplitz.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdlib>

#include "data/dataset.hpp"
#include "data/kinds.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

TEST_CASE("local: the taps for w = 5 are exp(−t²/3.125), t = −2..2, with unit norm") {
  const std::vector<double> taps = local_taps(5);
  REQUIRE(taps.size() == 5);
  // Unnormalised: 1, e^−0.32, e^−1.28; norm² = 1 + 2e^−0.64 + 2e^−2.56.
  const double norm = std::sqrt(1.0 + 2.0 * std::exp(-0.64) + 2.0 * std::exp(-2.56));
  CHECK(taps[2] == doctest::Approx(1.0 / norm).epsilon(1e-14));
  CHECK(taps[1] == doctest::Approx(std::exp(-0.32) / norm).epsilon(1e-14));
  CHECK(taps[3] == doctest::Approx(std::exp(-0.32) / norm).epsilon(1e-14));
  CHECK(taps[0] == doctest::Approx(std::exp(-1.28) / norm).epsilon(1e-14));
  CHECK(taps[4] == doctest::Approx(std::exp(-1.28) / norm).epsilon(1e-14));
  CHECK(taps[2] == doctest::Approx(0.6727954413278926).epsilon(1e-12));
  CHECK(taps[0] == doctest::Approx(0.18706222826402263).epsilon(1e-12));
}

TEST_CASE("local: an even width w keeps the spec's range t = −w/2..w/2, so w + 1 taps") {
  const std::vector<double> taps = local_taps(4);  // bump std 1: exp(−t²/2), t = −2..2
  REQUIRE(taps.size() == 5);
  CHECK(taps[2] == doctest::Approx(0.7511390401802164).epsilon(1e-12));
  CHECK(taps[1] == doctest::Approx(0.45558885757642087).epsilon(1e-12));
  CHECK(taps[0] == doctest::Approx(0.10165561475286698).epsilon(1e-12));
}

TEST_CASE("local: width 1 is a single tap, so the signal is white noise and Γ = I") {
  CHECK(local_taps(1) == std::vector<double>{1.0});
  CHECK(local_covariance(6, 1) == Eigen::MatrixXd::Identity(6, 6));
}

TEST_CASE("local: Γ is Toeplitz with unit diagonal, the autocorrelation of the taps") {
  const int n = 32;
  const Eigen::MatrixXd covariance = local_covariance(n, 5);
  // Σ_t h_t h_{t+lag} for w = 5, lags 0..4; zero beyond lag 2⌊w/2⌋ = 4.
  const double autocorrelation[] = {1.0, 0.8401665194386945, 0.49039009866244593,
                                    0.1827784141457034, 0.034992277243101305};
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int lag = std::abs(i - j);
      const double expected = lag <= 4 ? autocorrelation[lag] : 0.0;
      CHECK(covariance(i, j) == doctest::Approx(expected).epsilon(1e-12));
      CHECK(covariance(i, j) == covariance(j, i));
    }
  }
}

TEST_CASE("local: the empirical position covariance of the clean signal is Γ") {
  const Dataset dataset = generate(test_support::spec_of("local", 4000, 1), 11);
  const Eigen::MatrixXd empirical = test_support::empirical_position_covariance(dataset.train);
  const double tolerance = test_support::covariance_tolerance(dataset.train);  // 0.028
  CHECK((empirical - dataset.covariance).cwiseAbs().maxCoeff() < tolerance);
}

TEST_CASE(
    "local: the clean signal of the first positions is the valid convolution of the "
    "stream's first white-noise values") {
  data::DatasetConfig spec = test_support::spec_of("local", 1, 1);
  spec.n = 4;
  spec.d = 1;
  spec.kernel_width = 3;  // taps t = −1..1, white noise of length n + 2 = 6
  const Dataset dataset = generate(spec, 9);
  Rng rng(9, Stream::kTrainSamples);
  std::vector<double> white_noise(6);
  for (double& value : white_noise) value = rng.normal();
  const std::vector<double> taps = local_taps(3);
  for (int position = 0; position < 4; ++position) {
    const double expected = taps[0] * white_noise[position] + taps[1] * white_noise[position + 1] +
                            taps[2] * white_noise[position + 2];
    CHECK(dataset.train.targets[position] == static_cast<float>(expected));
  }
}

}  // namespace
}  // namespace ufl::data
