// The planted kinds (docs/planted.md), each against its definition: Γ from its basis, the
// empirical covariance of the drawn signal, and the optimum, known in closed form (a Walsh–
// Hadamard projection, a Haar shrinkage per scale, a DCT-II band projection, B/(1+σ²)); n not a
// power of two is refused naming dataset.n.
#include <doctest/doctest.h>

#include <cmath>

#include "data/bases.hpp"
#include "data/dataset.hpp"
#include "data/kinds.hpp"
#include "statistics.hpp"

namespace ufl::data {
namespace {

Eigen::MatrixXd projector(const Eigen::MatrixXd& rows, const std::vector<int>& which) {
  Eigen::MatrixXd p = Eigen::MatrixXd::Zero(rows.cols(), rows.cols());
  for (int k : which) p += rows.row(k).transpose() * rows.row(k);
  return p;
}

void check_empirical_covariance(const Dataset& dataset) {
  const Eigen::MatrixXd empirical = test_support::empirical_position_covariance(dataset.train);
  const double tolerance = test_support::covariance_tolerance(dataset.train);
  CHECK((empirical - dataset.covariance).cwiseAbs().maxCoeff() <
        tolerance * std::max(1.0, dataset.covariance.diagonal().maxCoeff()));
}

TEST_CASE(
    "hadamard: Γ = (n/K) Σ w_k w_kᵀ over the chosen Walsh rows; M* their projection·v/(v+σ²)") {
  DatasetConfig spec = test_support::spec_of("hadamard", 3000, 10);
  const Dataset dataset = generate(spec, 3);
  const Eigen::MatrixXd p = projector(walsh_hadamard_basis(32), {3, 10, 21});
  const double v = 32.0 / 3;
  CHECK((dataset.covariance - v * p).cwiseAbs().maxCoeff() < 1e-12);
  CHECK(dataset.covariance.trace() == doctest::Approx(32.0));
  CHECK((dataset.fixed_operator - v / (v + 0.25) * p).cwiseAbs().maxCoeff() < 1e-12);
  check_empirical_covariance(dataset);
}

TEST_CASE("haar: one gain per scale, v ∝ scale_decay^scale, Σ v = n") {
  DatasetConfig spec = test_support::spec_of("haar", 3000, 10);
  spec.n = 16;
  const Dataset dataset = generate(spec, 4);
  const Eigen::MatrixXd w = haar_basis(16);
  const Eigen::MatrixXd in_basis = w * dataset.fixed_operator * w.transpose();
  // Diagonal in the Haar basis, with gain v/(v+σ²) at each scale: v = c·0.5^scale,
  // c(1 + 0.5 + 2·0.25 + 4·0.125 + 8·0.0625) = 16, so c = 16/3.
  const double c = 16.0 / 3;
  const std::vector<int> scales = haar_scales(16);
  for (int k = 0; k < 16; ++k) {
    const double v = c * std::pow(0.5, scales[std::size_t(k)]);
    CHECK(in_basis(k, k) == doctest::Approx(v / (v + 0.25)).epsilon(1e-12));
  }
  CHECK((in_basis - Eigen::MatrixXd(in_basis.diagonal().asDiagonal())).cwiseAbs().maxCoeff() <
        1e-12);
  check_empirical_covariance(dataset);
}

TEST_CASE("dct: M* projects onto the DCT-II band, shrunk by v/(v+σ²), v = n/K") {
  const Dataset dataset = generate(test_support::spec_of("dct", 3000, 10), 5);
  const Eigen::MatrixXd p = projector(dct_basis(32), {4, 5, 6, 7, 8, 9, 10, 11});
  CHECK((dataset.fixed_operator - 4.0 / 4.25 * p).cwiseAbs().maxCoeff() < 1e-12);
  check_empirical_covariance(dataset);
}

TEST_CASE("butterfly: X = BᵀC + σE with C white, so M* = B/(1+σ²), a butterfly product") {
  const Dataset dataset = generate(test_support::spec_of("butterfly", 2000, 200), 6);
  Rng structure(6, Stream::kDatasetStructure);
  const Eigen::MatrixXd b = butterfly_product(random_butterfly_factors(32, structure));
  CHECK((dataset.input_mixing - b.transpose()).cwiseAbs().maxCoeff() == 0.0);
  CHECK((dataset.fixed_operator - b / 1.25).cwiseAbs().maxCoeff() < 1e-12);
  check_empirical_covariance(dataset);  // the target C is white
  // The input of a sample is BᵀC + noise: its least-squares map from the targets is Bᵀ.
  const Eigen::MatrixXd x = test_support::sample_matrix(dataset.test.inputs, 32, 16, 0);
  const Eigen::MatrixXd c = test_support::sample_matrix(dataset.test.targets, 32, 16, 0);
  CHECK((x - b.transpose() * c).cwiseAbs().maxCoeff() < 0.5 * 6);  // noise σ = 0.5, 6σ
  // M* reaches the closed-form MSE σ²/(1+σ²) = 0.2 per element.
  CHECK(optimal_mse(dataset, dataset.train) == doctest::Approx(0.2).epsilon(0.02));
}

TEST_CASE("the planted kinds refuse an n that is not a power of two, naming dataset.n") {
  for (const char* kind : {"hadamard", "haar", "dct", "butterfly"}) {
    DatasetConfig spec = test_support::spec_of(kind, 4, 4);
    spec.n = 24;
    spec.walsh = {1, 2};
    spec.band = {1, 2};
    CHECK_THROWS_WITH(generate(spec, 1),
                      doctest::Contains("dataset.n: must be a power of two for kind"));
  }
  DatasetConfig spec = test_support::spec_of("hadamard", 4, 4);
  spec.walsh = {3, 40};
  CHECK_THROWS_WITH(generate(spec, 1), doctest::Contains("dataset.walsh"));
  spec = test_support::spec_of("dct", 4, 4);
  spec.band = {9, 4};
  CHECK_THROWS_WITH(generate(spec, 1), doctest::Contains("dataset.band"));
}

TEST_CASE("the planted kinds work at any power of two: n = 8 and 64") {
  for (const char* kind : {"hadamard", "haar", "dct", "butterfly"})
    for (int n : {8, 64}) {
      DatasetConfig spec = test_support::spec_of(kind, 2, 2);
      spec.n = n;
      spec.walsh = {1, n - 1};
      spec.band = {1, n / 4};
      const Dataset dataset = generate(spec, 9);
      CHECK(dataset.fixed_operator.rows() == n);
      CHECK(dataset.covariance.trace() == doctest::Approx(double(n)));
    }
}

}  // namespace
}  // namespace ufl::data
