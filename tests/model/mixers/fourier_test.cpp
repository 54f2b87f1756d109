// The fourier mixer: hand-set gains give the projection onto chosen frequencies, as the DFT
// computes it; with any gains M = Fᵀ diag(g) F for the real orthonormal DFT basis F, the cos and
// sin rows of a frequency sharing one gain; all gains 1 is the identity; gradients match finite
// differences, alone and inside a stack, for even and odd n.
#include "model/mixers/fourier.hpp"

#include <doctest/doctest.h>

#include <complex>
#include <numbers>

#include "../../support/classical_operators.hpp"
#include "../layer_runner.hpp"
#include "../model_gradient.hpp"
#include "mixer_properties.hpp"
#include "model/initialize.hpp"

using namespace ufl;
using namespace ufl::model;
using ufl::testing::check_properties;
using ufl::testing::model_of;
using ufl::testing::random_inputs;
using ufl::testing::run_model;

TEST_CASE("fourier: what it is — one fixed circulant filter, with no causal form") {
  check_properties("fourier", {.has_causal_form = false, .config_keys = {}});
}

TEST_CASE("fourier: n/2+1 gains, initialised to 1: M = I for even and odd n") {
  for (int n : {8, 9}) {
    CAPTURE(n);
    Model<double> model = model_of(n, 2, n, "fourier");
    CHECK(model.params.slices[0].name == "gains");
    CHECK(model.params.slices[0].cols == n / 2 + 1);
    initialize(model, 1);
    const auto run = run_model(model, random_inputs(1, n, 2, 1));
    CHECK((run.M[0] - Eigen::MatrixXd::Identity(n, n)).cwiseAbs().maxCoeff() < 1e-14);
  }
}

TEST_CASE("fourier: M = Fᵀ diag(g) F, the cos and sin rows of each frequency sharing its gain") {
  for (int n : {8, 9}) {
    CAPTURE(n);
    Model<double> model = model_of(n, 2, n, "fourier");
    const auto gains = random_inputs(1, 1, n / 2 + 1, 3)[0];
    model.mixer_parameters(0)[0] = gains;
    Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(n, n);
    for (int f = 0; f <= n / 2; ++f) {
      const Eigen::MatrixXd rows = real_fourier_basis(n, {f});  // cos (and sin) of f, n×1 or n×2
      expected += gains(0, f) * rows * rows.transpose();
    }
    const auto run = run_model(model, random_inputs(1, n, 2, 4));
    CHECK((run.M[0] - expected).cwiseAbs().maxCoeff() < 1e-14);
    CHECK(run.M[0].isApprox(run.M[0].transpose(), 1e-14));  // symmetric
  }
}

TEST_CASE("fourier hand-set: M projects onto the kept frequencies, as the DFT computes it") {
  const int n = 16, d = 2;
  const std::vector<int> freqs = {0, 2, 5};
  Model<double> model = model_of(n, d, n, "fourier");
  set_fourier_projection(model.mixer_parameters(0)[0], freqs);
  model.w_v(0).setIdentity();
  const auto inputs = random_inputs(2, n, d, 14);
  const auto run = run_model(model, inputs);
  const Eigen::MatrixXd basis = real_fourier_basis(n, freqs);
  CHECK((run.M[0] - basis * basis.transpose()).cwiseAbs().maxCoeff() < 1e-14);
  using Complex = std::complex<double>;
  for (std::size_t s = 0; s < inputs.size(); ++s)
    for (int c = 0; c < d; ++c) {
      // DFT, keep bins ±f, inverse DFT.
      std::vector<Complex> spectrum(n);
      for (int k = 0; k < n; ++k)
        for (int t = 0; t < n; ++t)
          spectrum[k] += inputs[s](t, c) * std::polar(1.0, -2 * std::numbers::pi * k * t / n);
      for (int k = 0; k < n; ++k) {
        bool kept = false;
        for (int f : freqs) kept = kept || k == f || k == (n - f) % n;
        if (!kept) spectrum[k] = 0;
      }
      for (int t = 0; t < n; ++t) {
        Complex y = 0;
        for (int k = 0; k < n; ++k)
          y += spectrum[k] * std::polar(1.0, 2 * std::numbers::pi * k * t / n);
        CHECK(std::abs(run.Y[s](t, c) - y.real() / n) < 1e-12);
      }
    }
}

TEST_CASE("fourier + loss: gradients match finite differences, alone and in stacks") {
  for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
    CAPTURE(kernels == LayerKernels::kFused);
    CHECK(testing::model_gradient_error(model_of(6, 3, 6, "fourier"), 3, 0, 1, kernels) <= 1e-6);
    CHECK(testing::model_gradient_error(model_of(7, 2, 7, "fourier"), 2, 0, 2, kernels) <= 1e-6);
    for (bool residual : {false, true}) {
      CAPTURE(residual);
      CHECK(testing::model_gradient_error(model_of(6, 3, 6, "fourier", 2, residual), 3, 0, 3,
                                          kernels) <= 1e-6);
    }
  }
}

TEST_CASE("fourier: the fused branch gives the composite graph's loss and gradients") {
  for (int depth : {1, 2}) {
    CAPTURE(depth);
    const auto composite =
        testing::loss_and_gradients(model_of(7, 3, 7, "fourier", depth), LayerKernels::kComposite);
    const auto fused =
        testing::loss_and_gradients(model_of(7, 3, 7, "fourier", depth), LayerKernels::kFused);
    CHECK(fused.loss == doctest::Approx(composite.loss).epsilon(1e-13));
    CHECK(testing::gradient_difference(fused, composite) <= 1e-13);
  }
}
