// The linear mixer: a hand-set matrix M gives Y = M X W_v exactly; it starts as the identity;
// gradients match finite differences, alone and inside a stack.
#include "model/mixers/linear.hpp"

#include <doctest/doctest.h>

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

TEST_CASE("linear: what it is — one free fixed matrix") { check_properties("linear", {}); }

TEST_CASE("linear: its parameter is the n×n matrix M, initialised to I") {
  Model<double> model = model_of(5, 2, 5, "linear");
  CHECK(model.params.slices[0].name == "M");
  CHECK(model.params.slices[0].rows == 5);
  CHECK(model.params.slices[0].cols == 5);
  initialize(model, 3);
  CHECK(run_model(model, random_inputs(1, 5, 2, 1)).M[0] == Eigen::MatrixXd::Identity(5, 5));
}

TEST_CASE("linear hand-set: Y = M X W_v for the matrix and W_v given") {
  const int n = 6, d = 3;
  Model<double> model = model_of(n, d, n, "linear");
  const Eigen::MatrixXd matrix = random_inputs(1, n, n, 5)[0];
  const Eigen::MatrixXd value = random_inputs(1, d, d, 6)[0];
  set_linear(model.mixer_parameters(0)[0], matrix);
  model.w_v(0) = value;
  const auto inputs = random_inputs(3, n, d, 7);
  const auto run = run_model(model, inputs);
  CHECK(run.M[0] == matrix);
  for (std::size_t s = 0; s < inputs.size(); ++s)
    CHECK((run.Y[s] - matrix * inputs[s] * value).cwiseAbs().maxCoeff() < 1e-12);
}

TEST_CASE("linear + loss: gradients match finite differences, alone and in stacks") {
  for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
    CAPTURE(kernels == LayerKernels::kFused);
    CHECK(testing::model_gradient_error(model_of(5, 3, 5, "linear"), 3, 0, 1, kernels) <= 1e-6);
    for (bool residual : {false, true}) {
      CAPTURE(residual);
      CHECK(testing::model_gradient_error(model_of(5, 3, 5, "linear", 2, residual), 3, 0, 2,
                                          kernels) <= 1e-6);
    }
  }
}

TEST_CASE("linear: the fused branch gives the composite graph's loss and gradients") {
  for (int depth : {1, 2}) {
    CAPTURE(depth);
    const auto composite =
        testing::loss_and_gradients(model_of(7, 3, 7, "linear", depth), LayerKernels::kComposite);
    const auto fused =
        testing::loss_and_gradients(model_of(7, 3, 7, "linear", depth), LayerKernels::kFused);
    CHECK(fused.loss == doctest::Approx(composite.loss).epsilon(1e-13));
    CHECK(testing::gradient_difference(fused, composite) <= 1e-13);
  }
}
