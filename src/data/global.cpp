// The `global` dataset of docs/experiment.md §1: n/2 random vectors, each placed at two random
// positions.
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

DatasetKind global_kind() {
  DatasetKind kind;
  kind.name = "global";
  kind.summary =
      "n/2 random vectors, each at two random positions; optimum: average each token "
      "with its partner (per sample, beyond any fixed matrix)";
  kind.claimed_operator = "attention";
  kind.has_partners = true;
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    if (spec.n % 2 != 0) return {"dataset.n", "even for kind 'global' (tokens come in pairs)"};
    return {};
  };
  kind.covariance = [](const Dataset& dataset) { return global_covariance(dataset.spec.n); };
  // A single head compares the tokens themselves (x_iᵀx_j): the in-class ceiling.
  kind.head_keys = [](const Eigen::MatrixXd& input) { return input; };
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    return
        [n = dataset.spec.n, d = dataset.spec.d](Rng& rng, double* clean, std::int32_t* partners) {
          draw_global_signal(n, d, rng, clean, partners);
        };
  };
  kind.partner_optimum = [](const Dataset& dataset, const std::int32_t* partners) {
    // x_i and its partner's x_p are c + σe_i and c + σe_p with c ~ N(0, 1), so
    // E[c | x_i, x_p] = (x_i + x_p)/(2 + σ²): 1/(2+σ²) at (i, i) and (i, partner(i)).
    const int n = dataset.spec.n;
    const double shrinkage = 1.0 / (2.0 + dataset.spec.noise * dataset.spec.noise);
    Eigen::MatrixXd optimum = Eigen::MatrixXd::Zero(n, n);
    for (int position = 0; position < n; ++position) {
      optimum(position, position) = shrinkage;
      optimum(position, partners[position]) = shrinkage;
    }
    return optimum;
  };
  kind.partner_estimate = [](const Dataset& dataset, const Eigen::MatrixXd& noisy,
                             const std::int32_t* partners) {
    const double shrinkage = 1.0 / (2.0 + dataset.spec.noise * dataset.spec.noise);
    Eigen::MatrixXd estimate(noisy.rows(), noisy.cols());
    for (Eigen::Index position = 0; position < noisy.rows(); ++position)
      estimate.row(position) = shrinkage * (noisy.row(position) + noisy.row(partners[position]));
    return estimate;
  };
  return kind;
}

}  // namespace ufl::data
