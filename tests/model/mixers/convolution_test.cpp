// The convolution mixer: hand-set taps give the Toeplitz band of the kernel and Y = the valid
// convolution of X, computed directly; it starts as the identity; its gradients match finite
// differences, alone and inside a stack, through the composite graph and the fused branch.
#include "model/mixers/convolution.hpp"

#include <doctest/doctest.h>

#include "../../support/classical_operators.hpp"
#include "../layer_runner.hpp"
#include "../model_gradient.hpp"
#include "mixer_properties.hpp"
#include "model/initialize.hpp"

using namespace ufl;
using namespace ufl::model;
using ufl::testing::check_properties;
using ufl::testing::model_with;
using ufl::testing::random_inputs;
using ufl::testing::run_model;

namespace {

LayerConfig convolution(int width) {
  LayerConfig layer;
  layer.mixer = "convolution";
  layer.kernel_width = width;
  return layer;
}

}  // namespace

TEST_CASE("convolution: what it is — one fixed band for every input") {
  check_properties("convolution", {.config_keys = {"layer.kernel_width"}});
}

TEST_CASE("convolution: its parameters are the w taps; it starts as the unit impulse, M = I") {
  Model<double> model = model_with(6, 2, convolution(5));
  CHECK(model.params.slices[0].name == "taps");
  CHECK(model.params.slices[0].cols == 5);
  CHECK(model.params.slices.size() == 2);  // taps, W_v
  initialize(model, 1);
  const auto run = run_model(model, random_inputs(1, 6, 2, 1));
  CHECK(run.M[0] == Eigen::MatrixXd::Identity(6, 6));
}

TEST_CASE("convolution hand-set: M is the Toeplitz band of the kernel, Y its valid convolution") {
  const int n = 10, d = 3;
  const std::vector<double> taps = {0.25, -0.5, 1.0, 0.75, 0.125};
  Model<double> model = model_with(n, d, convolution(5));
  set_convolution(model.mixer_parameters(0)[0], taps);
  model.w_v(0).setIdentity();
  const auto inputs = random_inputs(2, n, d, 13);
  const auto run = run_model(model, inputs);
  CHECK(run.M[0] == toeplitz_from_taps(n, taps));
  for (std::size_t s = 0; s < inputs.size(); ++s) {
    Eigen::MatrixXd convolved = Eigen::MatrixXd::Zero(n, d);  // y_i = Σ_t taps_t x_{i+t−2}
    for (int i = 0; i < n; ++i)
      for (int t = 0; t < 5; ++t)
        if (i + t - 2 >= 0 && i + t - 2 < n) convolved.row(i) += taps[t] * inputs[s].row(i + t - 2);
    CHECK((run.Y[s] - convolved).cwiseAbs().maxCoeff() < 1e-12);
  }
}

TEST_CASE("convolution + loss: gradients match finite differences, alone and in stacks") {
  for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
    CAPTURE(kernels == LayerKernels::kFused);
    CHECK(testing::model_gradient_error(model_with(6, 3, convolution(3)), 3, 0, 1, kernels) <=
          1e-6);
    // A band wider than the matrix's half: every diagonal is a tap.
    CHECK(testing::model_gradient_error(model_with(4, 2, convolution(7)), 2, 0, 2, kernels) <=
          1e-6);
    for (bool residual : {false, true}) {
      CAPTURE(residual);
      CHECK(testing::model_gradient_error(model_with(6, 3, convolution(5), 2, residual), 3, 0, 3,
                                          kernels) <= 1e-6);
    }
  }
}

TEST_CASE("convolution: the fused branch gives the composite graph's loss and gradients") {
  for (int depth : {1, 2}) {
    CAPTURE(depth);
    const auto composite = testing::loss_and_gradients(model_with(7, 3, convolution(5), depth),
                                                       LayerKernels::kComposite);
    const auto fused =
        testing::loss_and_gradients(model_with(7, 3, convolution(5), depth), LayerKernels::kFused);
    CHECK(fused.loss == doctest::Approx(composite.loss).epsilon(1e-13));
    CHECK(testing::gradient_difference(fused, composite) <= 1e-13);
  }
}
