// The `dct` planted kind (docs/planted.md): random combinations of a band of DCT-II basis
// vectors. The optimum is a projection onto that DCT-II band (shrunk), outside the four families
// of Section 8: unlike a Fourier band it has no wrap-around, so it is not circulant.
#include "data/bases.hpp"
#include "data/kinds.hpp"

namespace ufl::data {

Eigen::VectorXd dct_variances(int n, const std::vector<int>& band) {
  // Equal variances on the band's K vectors, n/K each: unit variance per element on average.
  Eigen::VectorXd variances = Eigen::VectorXd::Zero(n);
  const int count = band[1] - band[0] + 1;
  for (int k = band[0]; k <= band[1]; ++k) variances(k) = double(n) / count;
  return variances;
}

DatasetKind dct_kind() {
  DatasetKind kind;
  kind.name = "dct";
  kind.summary =
      "random combinations of the DCT-II basis vectors band[0] … band[1]; optimum: a projection "
      "onto that DCT-II band, shrunk";
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    if (!is_power_of_two(spec.n)) return {"dataset.n", "a power of two for kind 'dct'"};
    if (spec.band.size() != 2 || spec.band[0] < 0 || spec.band[0] > spec.band[1] ||
        spec.band[1] >= spec.n)
      return {"dataset.band",
              "[first, last] with 0 ≤ first ≤ last < n = " + std::to_string(spec.n)};
    return {};
  };
  kind.covariance = [](const Dataset& dataset) {
    const int n = dataset.spec.n;
    return basis_covariance(dct_basis(n), dct_variances(n, dataset.spec.band));
  };
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    const int n = dataset.spec.n;
    return
        [d = dataset.spec.d, rows = dct_basis(n), variances = dct_variances(n, dataset.spec.band)](
            Rng& rng, double* clean, std::int32_t*) {
          draw_in_basis(d, rows, variances, rng, clean);
        };
  };
  return kind;
}

}  // namespace ufl::data
