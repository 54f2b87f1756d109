// The `butterfly` planted kind (docs/planted.md): a white signal C seen through a random
// orthogonal butterfly mixing, X = BᵀC + σE, to be unmixed and denoised. The optimum is
// E[C Xᵀ]E[X Xᵀ]⁻¹ = B/(1+σ²): a random butterfly product of log₂n sparse factors, outside the
// four families of Section 8.
#include "data/bases.hpp"
#include "data/kinds.hpp"

namespace ufl::data {

DatasetKind butterfly_kind() {
  DatasetKind kind;
  kind.name = "butterfly";
  kind.summary =
      "a white signal seen through a random orthogonal butterfly mixing Bᵀ (log₂n factors of "
      "2×2 rotations, one per seed); optimum: B/(1+σ²), a random butterfly product";
  kind.check = [](const DatasetConfig& spec) -> BrokenRule {
    if (!is_power_of_two(spec.n)) return {"dataset.n", "a power of two for kind 'butterfly'"};
    return {};
  };
  kind.draw_structure = [](Dataset& dataset, Rng& structure_rng) {
    dataset.input_mixing =
        butterfly_product(random_butterfly_factors(dataset.spec.n, structure_rng)).transpose();
  };
  kind.covariance = [](const Dataset& dataset) {
    return Eigen::MatrixXd::Identity(dataset.spec.n, dataset.spec.n);
  };
  kind.signal_drawer = [](const Dataset& dataset) -> SignalDrawer {
    // Draw order: position by position, channel by channel.
    return [size = dataset.spec.n * dataset.spec.d](Rng& rng, double* clean, std::int32_t*) {
      for (int e = 0; e < size; ++e) clean[e] = rng.normal();
    };
  };
  return kind;
}

}  // namespace ufl::data
