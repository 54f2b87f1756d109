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

TEST_CASE("stacks of 1, 2 and 3 layers on a wider stream (D > d): exact gradients end to end") {
  // H_0 = [X, 0] and Y = H_L[:, :d] are ops of their own; every layer's A and B have D+n+1 rows.
  for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
    for (bool residual : {false, true}) {
      for (int depth : {1, 2, 3}) {
        CAPTURE(kernels == LayerKernels::kFused);
        CAPTURE(residual);
        CAPTURE(depth);
        CHECK(model_gradient_error(model_of(5, 2, 4, "universal", depth, residual, 4), 3, 0.1,
                                   10 + depth, kernels) <= 1e-6);
      }
    }
  }
}

TEST_CASE("a wider stream pads X with zero channels and reads Y from the first d channels") {
  Model<double> model = model_of(4, 2, 3, "universal", 2, true, 5);
  CHECK(model.width == 5);
  CHECK(model.part(1).shape.d == 5);
  CHECK(model.params.slices[0].rows == 5 + 4 + 1);  // layer1/A: D + n + 1
  CHECK(model.params.slices[4].rows == 5);          // layer1/W_v: D×D
  data::Rng rng(3, data::Stream::kMonteCarlo);
  for (double& value : model.params.values) value = 0.3 * rng.normal();
  Tape<double> tape;
  const ModelGraph<double> graph = record_model(tape, model, 2, false, LayerKernels::kComposite);
  tape.plan();
  auto x = tape.value(graph.x);
  for (std::size_t e = 0; e < x.size(); ++e) x.data[e] = rng.normal();
  tape.forward();
  CHECK(tape.shape(graph.stream) == Shape{2, 4, 5});
  CHECK(tape.shape(graph.y) == Shape{2, 4, 2});
  for (int s = 0; s < 2; ++s) {
    const auto stream = tape.value(graph.stream).view(s);
    CHECK(stream.leftCols(2) == tape.value(graph.x).view(s));
    CHECK(stream.rightCols(3).isZero(0.0));
    CHECK(tape.value(graph.y).view(s) == tape.value(graph.blocks[1].output).view(s).leftCols(2));
  }
  CHECK_THROWS_AS(model_of(4, 2, 3, "universal", 1, false, 1), std::invalid_argument);
}

TEST_CASE("a stack as wide as the data records no padding: the single layer, op for op") {
  Model<double> model = model_of(4, 2, 3);
  Tape<double> tape;
  const ModelGraph<double> graph = record_model(tape, model, 2, false, LayerKernels::kFused);
  CHECK(graph.stream.id == graph.x.id);
  CHECK(graph.y.id == graph.blocks.front().output.id);
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
