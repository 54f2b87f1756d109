// The `hadamard` planted kind (docs/planted.md): random combinations of a few Walsh functions.
// The optimum is a Walsh–Hadamard projection (shrunk), outside the four families of Section 8.
#include <algorithm>
#include <cmath>

#include "data/bases.hpp"
#include "data/kinds.hpp"

namespace ufl::data {

Eigen::VectorXd hadamard_variances(int n, const std::vector<int>& walsh) {
  // Equal variances n/K on the K chosen Walsh functions: unit variance per element on average.
  Eigen::VectorXd variances = Eigen::VectorXd::Zero(n);
  for (int k : walsh) variances(k) = double(n) / double(walsh.size());
  return variances;
}

DatasetKind hadamard_kind() {
  DatasetKind kind;
  kind.name = "hadamard";
  kind.summary =
      "random combinations of the Walsh functions dataset.walsh (rows of the Walsh–Hadamard "
      "matrix, natural order); optimum: a Walsh–Hadamard projection, shrunk";
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    if (!is_power_of_two(spec.n)) return {"dataset.n", "a power of two for kind 'hadamard'"};
    if (spec.walsh.empty())
      return {"dataset.walsh", "a non-empty list of Walsh function indices 0 ≤ k < n"};
    std::vector<int> sorted = spec.walsh;
    std::sort(sorted.begin(), sorted.end());
    if (sorted.front() < 0 || sorted.back() >= spec.n)
      return {"dataset.walsh", "indices k with 0 ≤ k < n = " + std::to_string(spec.n)};
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      return {"dataset.walsh", "distinct indices"};
    return {};
  };
  kind.covariance = [](const Dataset& dataset) {
    const int n = dataset.spec.n;
    return basis_covariance(walsh_hadamard_basis(n), hadamard_variances(n, dataset.spec.walsh));
  };
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    const int n = dataset.spec.n;
    return [d = dataset.spec.d, rows = walsh_hadamard_basis(n),
            variances = hadamard_variances(n, dataset.spec.walsh)](Rng& rng, double* clean,
                                                                   std::int32_t*) {
      draw_in_basis(d, rows, variances, rng, clean);
    };
  };
  return kind;
}

}  // namespace ufl::data
