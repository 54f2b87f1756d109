// The universal mixer's structured kernel computes what the composite graph and the dense fused
// kernel compute — loss terms and every gradient, to 1e-12 in double — for one layer and inside
// stacks (dH), and the cost model keeps the dense kernel where the structure does not pay.
#include "model/mixers/universal_structured.hpp"

#include <doctest/doctest.h>

#include "../layer_runner.hpp"
#include "../model_gradient.hpp"
#include "task/loss.hpp"

using namespace ufl;
using namespace ufl::model;
using task::LossGraph;
using task::record_loss;
using ufl::testing::model_of;

namespace {

struct Outcome {
  testing::LossAndGradients values;
  std::string kernel;
};

Outcome run(Model<double> model, LayerKernels kernels, double gate_logit, std::uint64_t seed) {
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  for (double& value : model.params.values) value = 0.4 * rng.normal();
  for (const ParameterSlice& slice : model.params.slices)
    if (slice.tensor == "g") model.params.values[slice.offset] = gate_logit;
  Tape<double> tape;
  const auto graph = record_model(tape, model, 5, true, kernels);
  const auto loss = record_loss(tape, graph, 0.7);
  tape.plan();
  for (Var input : {graph.x, loss.target})
    for (std::size_t e = 0; e < tape.value(input).size(); ++e)
      tape.value(input).data[e] = rng.normal();
  tape.forward();
  tape.backward(loss.loss);
  return Outcome{{tape.value(loss.loss).data[0], tape.value(loss.mse).data[0],
                  tape.value(loss.orthogonality).data[0], model.params.grads},
                 graph.blocks.front().kernel};
}

void check_same(const Outcome& reference, const Outcome& other) {
  CHECK(other.values.loss == doctest::Approx(reference.values.loss).epsilon(1e-12));
  CHECK(other.values.mse == doctest::Approx(reference.values.mse).epsilon(1e-12));
  CHECK(other.values.orthogonality ==
        doctest::Approx(reference.values.orthogonality).epsilon(1e-12));
  REQUIRE(other.values.grads.size() == reference.values.grads.size());
  double largest = 0;  // the gradients are not all tiny, so the comparison means something
  for (double grad : reference.values.grads) largest = std::max(largest, std::abs(grad));
  CHECK(largest > 0.01);
  CHECK(testing::gradient_difference(other.values, reference.values) <= 1e-12);
}

}  // namespace

TEST_CASE("structured kernel: the composite graph's loss terms and gradients, one layer") {
  struct Case {
    int n, d, r;
    double gate;
  };
  for (const Case& c : {Case{7, 3, 5, 0.3}, Case{6, 2, 6, -1.5}, Case{9, 4, 3, 2.0}}) {
    CAPTURE(c.n);
    const Outcome composite = run(model_of(c.n, c.d, c.r), LayerKernels::kComposite, c.gate, 11);
    const Outcome structured = run(model_of(c.n, c.d, c.r), LayerKernels::kStructured, c.gate, 11);
    const Outcome dense = run(model_of(c.n, c.d, c.r), LayerKernels::kDense, c.gate, 11);
    CHECK(structured.kernel == "structured");
    CHECK(dense.kernel == "dense");
    check_same(composite, structured);
    check_same(dense, structured);
  }
}

TEST_CASE("structured kernel: the same inside stacks, where each layer needs dH") {
  for (bool residual : {false, true}) {
    CAPTURE(residual);
    const Model<double> stack = model_of(6, 3, 4, "universal", 3, residual);
    check_same(run(stack, LayerKernels::kComposite, 0.5, 12),
               run(stack, LayerKernels::kStructured, 0.5, 12));
  }
}

TEST_CASE("the cost model keeps the dense kernel where the structure does not pay") {
  // spec defaults: n = 32, d = 16, r = n: about the same FLOPs, so the dense kernel stays
  CHECK_FALSE(structured_pays(32, 16, 32, 64, false));
  // d close to n: no saving at all
  CHECK_FALSE(structured_pays(64, 48, 64, 64, false));
  // few channels, many positions: several times fewer FLOPs
  CHECK(structured_pays(64, 8, 64, 64, false));
  CHECK(structured_pays(128, 8, 128, 64, true));
  const KernelCost cost = universal_kernel_cost(256, 8, 256, false);
  CHECK(cost.dense_per_sample / cost.structured_per_sample > 10);
}
