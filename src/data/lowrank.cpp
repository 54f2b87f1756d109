// The `lowrank` dataset of docs/experiment.md §1: C = Q diag(s) Z, one random orthonormal basis Q
// per seed.
#include <cmath>

#include "data/kinds.hpp"

namespace ufl::data {

Eigen::MatrixXd lowrank_basis(int n, int rank, Rng& structure_rng) {
  // Draw order: the n×rank standard normal matrix, row by row (position i, then column j).
  Eigen::MatrixXd gaussian(n, rank);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < rank; ++j) gaussian(i, j) = structure_rng.normal();
  }
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(gaussian);
  Eigen::MatrixXd basis = qr.householderQ() * Eigen::MatrixXd::Identity(n, rank);
  // Householder QR leaves the sign of each column free; making diag(R) > 0 picks the one thin QR
  // with that property, so Q depends only on the drawn matrix, not on the QR algorithm. The
  // result is then uniform (Haar) over orthonormal bases.
  for (int j = 0; j < rank; ++j) {
    if (qr.matrixQR()(j, j) < 0.0) basis.col(j) *= -1.0;
  }
  return basis;
}

Eigen::VectorXd lowrank_singular_values(int n, int rank, double singular_value_decay) {
  // docs/experiment.md §1: s_j ∝ decay^j and Σ s_j² = n, so the clean signal has unit variance per
  // element on average: E‖C[:,c]‖² = Σ_j s_j² ‖q_j‖² = n.
  Eigen::VectorXd singular_values(rank);
  for (int j = 0; j < rank; ++j) {
    singular_values(j) = std::pow(singular_value_decay, static_cast<double>(j));
  }
  singular_values *= std::sqrt(n / singular_values.squaredNorm());
  return singular_values;
}

Eigen::MatrixXd lowrank_covariance(const Eigen::MatrixXd& basis,
                                   const Eigen::VectorXd& singular_values) {
  const Eigen::MatrixXd scaled_basis = basis * singular_values.asDiagonal();
  const Eigen::MatrixXd covariance = scaled_basis * scaled_basis.transpose();
  // The product is symmetric in exact arithmetic; make it so bit for bit.
  return (covariance + covariance.transpose()) / 2.0;
}

void draw_lowrank_signal(int d, const Eigen::MatrixXd& basis,
                         const Eigen::VectorXd& singular_values, Rng& rng, double* clean) {
  const int n = static_cast<int>(basis.rows());
  const int rank = static_cast<int>(basis.cols());
  // Draw order: Z (rank×d) row by row (component j, then channel c); each row scaled by s_j.
  std::vector<double> scaled_coefficients(static_cast<size_t>(rank) * d);
  for (int j = 0; j < rank; ++j) {
    for (int channel = 0; channel < d; ++channel) {
      scaled_coefficients[static_cast<size_t>(j) * d + channel] = singular_values(j) * rng.normal();
    }
  }
  // C = Q (diag(s) Z), summed over j in order so the result does not depend on vectorisation.
  for (int position = 0; position < n; ++position) {
    for (int channel = 0; channel < d; ++channel) {
      double value = 0.0;
      for (int j = 0; j < rank; ++j) {
        value += basis(position, j) * scaled_coefficients[static_cast<size_t>(j) * d + channel];
      }
      clean[position * d + channel] = value;
    }
  }
}

DatasetKind lowrank_kind() {
  DatasetKind kind;
  kind.name = "lowrank";
  kind.summary =
      "C = Q diag(s) Z with one random orthonormal n×rank basis Q per seed; optimum: "
      "the data's SVD, shrunk";
  kind.claimed_operator = "svd";
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    if (spec.rank < 1) return {"dataset.rank", "an integer ≥ 1"};
    if (spec.rank > spec.n)
      return {"dataset.rank", "at most dataset.n = " + std::to_string(spec.n)};
    if (!(std::isfinite(spec.singular_value_decay) && spec.singular_value_decay > 0))
      return {"dataset.singular_value_decay", "a number > 0"};
    return {};
  };
  kind.draw_structure = [](Dataset& dataset, Rng& structure_rng) {
    const DatasetConfig& spec = dataset.spec;
    dataset.lowrank_basis = lowrank_basis(spec.n, spec.rank, structure_rng);
    dataset.lowrank_singular_values =
        lowrank_singular_values(spec.n, spec.rank, spec.singular_value_decay);
  };
  kind.covariance = [](const Dataset& dataset) {
    return lowrank_covariance(dataset.lowrank_basis, dataset.lowrank_singular_values);
  };
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    return [d = dataset.spec.d, basis = dataset.lowrank_basis,
            singular_values = dataset.lowrank_singular_values](Rng& rng, double* clean,
                                                               std::int32_t*) {
      draw_lowrank_signal(d, basis, singular_values, rng, clean);
    };
  };
  return kind;
}

}  // namespace ufl::data
