// The model with its loss, differentiated by the tape, against central finite differences in
// double for every parameter: one layer and stacks of layers (whose layers need gradients with
// respect to their inputs), with and without a residual stream, through the composite graph
// (one op per step of each formula) and the fused kernels.
#include "model/model.hpp"

#include <doctest/doctest.h>

#include "data/rng.hpp"
#include "layer_runner.hpp"
#include "model_gradient.hpp"

using namespace ufl;
using namespace ufl::model;
using ufl::testing::model_gradient_error;
using ufl::testing::model_of;

TEST_CASE("one layer + loss: gradients match finite differences for several shapes and gates") {
  for (LayerKernels kernels :
       {LayerKernels::kComposite, LayerKernels::kDense, LayerKernels::kStructured}) {
    CAPTURE(int(kernels));
    CHECK(model_gradient_error(model_of(5, 3, 4), 3, 0.3, 1, kernels) <= 1e-6);
    CHECK(model_gradient_error(model_of(6, 2, 6), 2, -2.0, 2, kernels) <= 1e-6);
    CHECK(model_gradient_error(model_of(4, 4, 2), 4, 3.0, 3, kernels) <= 1e-6);
    CHECK(model_gradient_error(model_of(3, 5, 7), 1, 0.0, 4, kernels) <= 1e-6);  // r > n
  }
}

TEST_CASE("stacks: gradients flow through every layer's input, with and without a residual") {
  for (LayerKernels kernels :
       {LayerKernels::kComposite, LayerKernels::kDense, LayerKernels::kStructured}) {
    for (bool residual : {false, true}) {
      CAPTURE(int(kernels));
      CAPTURE(residual);
      CHECK(model_gradient_error(model_of(5, 3, 4, "universal", 2, residual), 3, 0.2, 5, kernels) <=
            1e-6);
      CHECK(model_gradient_error(model_of(4, 2, 3, "universal", 3, residual), 2, -0.5, 6,
                                 kernels) <= 1e-6);
    }
  }
}

TEST_CASE(
    "a model of depth 1 names its parameters as the single layer does; deeper ones by layer") {
  const Model<double> single = model_of(4, 2, 3);
  std::vector<std::string> names;
  for (const ParameterSlice& slice : single.params.slices) names.push_back(slice.name);
  CHECK(names == std::vector<std::string>{"A", "B", "s", "g", "W_v"});
  const Model<double> stack = model_of(4, 2, 3, "universal", 2);
  CHECK(stack.params.slices.size() == 10);
  CHECK(stack.params.slices[0].name == "layer1/A");
  CHECK(stack.params.slices[9].name == "layer2/W_v");
  CHECK(stack.params.slices[9].layer == 1);
  CHECK(stack.params.values.size() == 2 * single.params.values.size());
}
