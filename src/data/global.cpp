// The `global` dataset of spec §1: n/2 random vectors, each placed at two random positions.
#include <numeric>

#include "data/kinds.hpp"

namespace ufl::data {

Eigen::MatrixXd global_covariance(int n) {
  // Two distinct positions hold the same vector with probability 1/(n−1) (the partner of a
  // position is uniform over the other n−1), and independent vectors otherwise.
  Eigen::MatrixXd covariance = Eigen::MatrixXd::Constant(n, n, 1.0 / (n - 1));
  covariance.diagonal().setOnes();
  return covariance;
}

void draw_global_signal(int n, int d, Rng& rng, double* clean, std::int32_t* partners) {
  // Draw order: the n/2 vectors (vector k, then channel c), then one Fisher–Yates shuffle of the
  // positions 0..n−1. Positions order[2k] and order[2k+1] both hold vector k.
  const int pair_count = n / 2;
  std::vector<double> vectors(static_cast<size_t>(pair_count) * d);
  for (double& value : vectors) value = rng.normal();

  std::vector<std::int32_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  rng.shuffle(order.begin(), order.end());

  for (int pair = 0; pair < pair_count; ++pair) {
    const std::int32_t first = order[2 * pair];
    const std::int32_t second = order[2 * pair + 1];
    partners[first] = second;
    partners[second] = first;
    for (int channel = 0; channel < d; ++channel) {
      const double value = vectors[static_cast<size_t>(pair) * d + channel];
      clean[first * d + channel] = value;
      clean[second * d + channel] = value;
    }
  }
}

}  // namespace ufl::data
