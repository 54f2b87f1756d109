// The `local` dataset of docs/experiment.md §1: each channel is white noise filtered by a Gaussian
// bump.
#include <cmath>
#include <cstdlib>

#include "data/kinds.hpp"

namespace ufl::data {

std::vector<double> local_taps(int kernel_width) {
  // docs/experiment.md §1: h_t ∝ exp(−t²/(2(w/4)²)) for t = −⌊w/2⌋..⌊w/2⌋, taken literally, so an
  // even width w gets w + 1 taps (w = 4 gives t = −2..2). The bump's width w/4 is the Gaussian's
  // std.
  const int half_width = kernel_width / 2;
  const double bump_std = kernel_width / 4.0;
  std::vector<double> taps(2 * half_width + 1);
  double squared_norm = 0.0;
  for (int t = -half_width; t <= half_width; ++t) {
    const double tap = std::exp(-(t * t) / (2.0 * bump_std * bump_std));
    taps[t + half_width] = tap;
    squared_norm += tap * tap;
  }
  // ‖h‖₂ = 1 makes each filtered element a unit-variance sum of independent white noise.
  const double norm = std::sqrt(squared_norm);
  for (double& tap : taps) tap /= norm;
  return taps;
}

Eigen::MatrixXd local_covariance(int n, int kernel_width) {
  const std::vector<double> taps = local_taps(kernel_width);
  const int tap_count = static_cast<int>(taps.size());
  // Autocorrelation of the taps at each lag; the taps are symmetric, so lags ±k agree and Γ is
  // exactly symmetric.
  std::vector<double> autocorrelation(tap_count, 0.0);
  for (int lag = 0; lag < tap_count; ++lag) {
    for (int t = 0; t + lag < tap_count; ++t) autocorrelation[lag] += taps[t] * taps[t + lag];
  }
  Eigen::MatrixXd covariance = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const int lag = std::abs(j - i);
      if (lag < tap_count) covariance(i, j) = autocorrelation[lag];
    }
  }
  return covariance;
}

void draw_local_signal(int n, int d, const std::vector<double>& taps, Rng& rng, double* clean) {
  // Draw order: channel by channel, the n + 2⌊w/2⌋ white-noise values of that channel.
  // "Valid" convolution: every output sees a full window, so no wrap-around and no edge effects,
  // and the position covariance is exactly Toeplitz. The taps are symmetric, so correlation and
  // convolution coincide.
  const int tap_count = static_cast<int>(taps.size());
  std::vector<double> white_noise(n + tap_count - 1);
  for (int channel = 0; channel < d; ++channel) {
    for (double& value : white_noise) value = rng.normal();
    for (int position = 0; position < n; ++position) {
      double filtered = 0.0;
      for (int t = 0; t < tap_count; ++t) filtered += taps[t] * white_noise[position + t];
      clean[position * d + channel] = filtered;
    }
  }
}

DatasetKind local_kind() {
  DatasetKind kind;
  kind.name = "local";
  kind.summary =
      "white noise filtered by a Gaussian bump of kernel_width taps; optimum: the "
      "Wiener filter, a banded Toeplitz matrix";
  kind.claimed_operator = "convolution";
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    if (spec.kernel_width < 1) return {"dataset.kernel_width", "an integer ≥ 1"};
    if (spec.kernel_width > spec.n)
      return {"dataset.kernel_width", "at most dataset.n = " + std::to_string(spec.n)};
    return {};
  };
  kind.covariance = [](const Dataset& dataset) {
    return local_covariance(dataset.spec.n, dataset.spec.kernel_width);
  };
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    return
        [n = dataset.spec.n, d = dataset.spec.d, taps = local_taps(dataset.spec.kernel_width)](
            Rng& rng, double* clean, std::int32_t*) { draw_local_signal(n, d, taps, rng, clean); };
  };
  return kind;
}

}  // namespace ufl::data
