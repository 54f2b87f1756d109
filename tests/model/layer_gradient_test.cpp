// The whole layer and its loss, differentiated by the tape, against central finite
// differences in double for every parameter: both the composite graph (one op per step of the
// formula) and the fused per-sample kernel, and the two against each other.
#include <doctest/doctest.h>

#include "data/rng.hpp"
#include "model/layer.hpp"

using namespace ufl;
using namespace ufl::model;

namespace {

// Records the layer with its loss on `tape`, plans it, and fills X and C with standard normals.
LayerGraph<double> record_with_random_inputs(Tape<double>& tape, Parameters<double>& params,
                                             int batch, double ortho_weight, LayerKernels kernels,
                                             data::Rng& rng) {
  auto graph = record_layer(tape, params, batch, ortho_weight, true, kernels);
  plan_layer(tape, graph);
  for (Var input : {graph.x, graph.target}) {
    auto tensor = tape.value(input);
    for (std::size_t e = 0; e < tensor.size(); ++e) tensor.data[e] = rng.normal();
  }
  return graph;
}

double layer_gradient_error(LayerShape shape, int batch, double gate_logit, std::uint64_t seed,
                            LayerKernels kernels) {
  Parameters<double> params(shape);
  data::Rng rng(seed, data::Stream::kMonteCarlo);
  for (double& value : params.values) value = 0.5 * rng.normal();
  params.value(Parameters<double>::kG)[0] = gate_logit;
  Tape<double> tape;
  const auto graph = record_with_random_inputs(tape, params, batch, 0.3, kernels, rng);
  tape.forward();
  tape.backward(graph.loss);
  const std::vector<double> analytic = params.grads;
  double max_error = 0, max_numeric = 0;
  for (std::size_t e = 0; e < params.values.size(); ++e) {
    const double original = params.values[e], step = 1e-6 * std::max(1.0, std::abs(original));
    params.values[e] = original + step;
    tape.forward();
    const double plus = tape.value(graph.loss).data[0];
    params.values[e] = original - step;
    tape.forward();
    const double minus = tape.value(graph.loss).data[0];
    params.values[e] = original;
    const double numeric = (plus - minus) / (2 * step);
    max_error = std::max(max_error, std::abs(numeric - analytic[e]));
    max_numeric = std::max(max_numeric, std::abs(numeric));
  }
  return max_error / max_numeric;
}

}  // namespace

TEST_CASE("layer + loss gradients match finite differences for several shapes and gates") {
  for (LayerKernels kernels : {LayerKernels::kComposite, LayerKernels::kFused}) {
    CAPTURE(kernels == LayerKernels::kFused);
    CHECK(layer_gradient_error(LayerShape{5, 3, 4}, 3, 0.3, 1, kernels) <= 1e-6);
    CHECK(layer_gradient_error(LayerShape{6, 2, 6}, 2, -2.0, 2, kernels) <= 1e-6);
    CHECK(layer_gradient_error(LayerShape{4, 4, 2}, 4, 3.0, 3, kernels) <= 1e-6);
    CHECK(layer_gradient_error(LayerShape{3, 5, 7}, 1, 0.0, 4, kernels) <= 1e-6);  // r > n
  }
}

TEST_CASE("the fused kernel gives the composite graph's loss terms and gradients") {
  const LayerShape shape{7, 3, 5};
  const int batch = 4;
  struct Outcome {
    double loss, mse, orthogonality;
    std::vector<double> grads;
  };
  auto run = [&](LayerKernels kernels) {
    Parameters<double> params(shape);
    data::Rng rng(11, data::Stream::kMonteCarlo);
    for (double& value : params.values) value = 0.4 * rng.normal();
    Tape<double> tape;
    const auto graph = record_with_random_inputs(tape, params, batch, 0.7, kernels, rng);
    tape.forward();
    tape.backward(graph.loss);
    return Outcome{tape.value(graph.loss).data[0], tape.value(graph.mse).data[0],
                   tape.value(graph.orthogonality).data[0], params.grads};
  };
  const Outcome composite = run(LayerKernels::kComposite), fused = run(LayerKernels::kFused);
  CHECK(fused.loss == doctest::Approx(composite.loss).epsilon(1e-13));
  CHECK(fused.mse == doctest::Approx(composite.mse).epsilon(1e-13));
  CHECK(fused.orthogonality == doctest::Approx(composite.orthogonality).epsilon(1e-13));
  REQUIRE(fused.grads.size() == composite.grads.size());
  double largest = 0, difference = 0;
  for (std::size_t e = 0; e < fused.grads.size(); ++e) {
    largest = std::max(largest, std::abs(composite.grads[e]));
    difference = std::max(difference, std::abs(fused.grads[e] - composite.grads[e]));
  }
  CHECK(largest > 0.01);
  CHECK(difference <= 1e-13 * largest);
}
