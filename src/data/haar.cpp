// The `haar` planted kind (docs/planted.md): a signal whose Haar-wavelet coefficients have a
// variance that decays with the scale. The optimum is a Haar-wavelet shrinkage (one gain per
// scale), outside the four families of Section 8.
#include <cmath>

#include "data/bases.hpp"
#include "data/kinds.hpp"

namespace ufl::data {

Eigen::VectorXd haar_variances(int n, double scale_decay) {
  // v ∝ scale_decay^scale per coefficient (the constant at scale 0), Σ v = n: unit variance per
  // element on average.
  const std::vector<int> scales = haar_scales(n);
  Eigen::VectorXd variances(n);
  for (int k = 0; k < n; ++k) variances(k) = std::pow(scale_decay, double(scales[std::size_t(k)]));
  return variances * (double(n) / variances.sum());
}

DatasetKind haar_kind() {
  DatasetKind kind;
  kind.name = "haar";
  kind.summary =
      "Haar-wavelet coefficients with variance ∝ scale_decay^scale, coarse to fine; optimum: a "
      "Haar-wavelet shrinkage, one gain per scale";
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    if (!is_power_of_two(spec.n)) return {"dataset.n", "a power of two for kind 'haar'"};
    if (!(std::isfinite(spec.scale_decay) && spec.scale_decay > 0))
      return {"dataset.scale_decay", "a number > 0"};
    return {};
  };
  kind.covariance = [](const Dataset& dataset) {
    const int n = dataset.spec.n;
    return basis_covariance(haar_basis(n), haar_variances(n, dataset.spec.scale_decay));
  };
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    const int n = dataset.spec.n;
    return [d = dataset.spec.d, rows = haar_basis(n),
            variances = haar_variances(n, dataset.spec.scale_decay)](Rng& rng, double* clean,
                                                                     std::int32_t*) {
      draw_in_basis(d, rows, variances, rng, clean);
    };
  };
  return kind;
}

}  // namespace ufl::data
